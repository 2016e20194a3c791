"""`tools serve --task ID` reads only what the task's rules need (`ToolSource.sample` of
`Benchmark.tool_source`),
never the benchmark's gold: the rules equal those of the task `load` builds, on the
hand-made ResearchArena corpus (test_researcharena_fixtures) and SciNet graph
(scinet_files); building the gold fails the start."""
from __future__ import annotations

import pytest

from scinet_files import write_tiny_graph
from test_researcharena_fixtures import build_tiny
from test_scinet_engine import SETTINGS
from scholarbench.benchmarks.researcharena.benchmark import ResearchArena
from scholarbench.benchmarks.scinet.benchmark import SciNet
from scholarbench.cli import build_parser, main
from scholarbench.tools import commands

S = "arxiv:2106.00100"


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-start")
    build_tiny(out)
    return out


@pytest.fixture(scope="module")
def scinet_files(tmp_path_factory):
    """(graph folder, unArXive folder, a task file built from them by rule)."""
    from scholarbench.benchmarks.scinet.env import SciNetEnv
    from scholarbench.benchmarks.scinet.records import write_tasks
    from scholarbench.benchmarks.scinet.tasks import build_tasks
    root = tmp_path_factory.mktemp("scinet-start")
    graph, unarxive = write_tiny_graph(root)
    tasks = root / "tasks.jsonl"
    write_tasks(build_tasks(SciNetEnv.from_arxiv2023(graph, unarxive), settings=SETTINGS),
                tasks)
    return graph, unarxive, tasks


def _serve(*argv: str):
    argv = ("tools", "serve", *argv)
    return commands._session(build_parser(argv).parse_args(argv))


# -- ResearchArena -----------------------------------------------------------------------------
@pytest.mark.parametrize("task_set", ["reference-lists", "all"])
@pytest.mark.parametrize("subtask", ["discovery", "organisation"])
def test_researcharena_tool_sample_has_the_rules_of_the_loaded_task(corpus_dir, tmp_path,
                                                                    subtask, task_set):
    options = {"corpus": str(corpus_dir), "data": str(tmp_path), "task_set": task_set}
    loaded = ResearchArena(options).load(subtask, None).samples
    assert len(loaded) >= 3                     # S, T, U (and V in "all"), U without cut-off
    bench = ResearchArena(options)              # a fresh one: nothing `load` left behind
    for full in loaded:
        sample = bench.tool_source(subtask).sample(full.id)
        assert sample is not None and sample.id == full.id and sample.gold is None
        assert bench.tool_source(subtask).rules(sample) == \
            ResearchArena(options).tool_source(subtask).rules(full)
    assert bench.tool_source(subtask).sample("arxiv:0000.00000") is None
    assert bench.tool_source(subtask).task_hint().startswith(f"{len(loaded)} tasks, e.g. ")


def test_researcharena_start_builds_no_task_set(corpus_dir, tmp_path, monkeypatch):
    """The reference lists (re-read sources, every reference classified) are not built."""
    from scholarbench.benchmarks.researcharena import loading, tasks
    options = {"corpus": str(corpus_dir), "data": str(tmp_path)}
    bench = ResearchArena(options)
    full = next(s for s in bench.load("discovery", None).samples if s.id == S)
    expected = bench.tool_source("discovery").rules(full)

    def refuse(*args, **kwargs):
        raise AssertionError("the task set's gold was built")
    for module, name in ((loading, "load_task_set"), (tasks, "build_tasks"),
                         (tasks, "reference_lists_from_sources")):
        monkeypatch.setattr(module, name, refuse)
    session = _serve("--benchmark", "researcharena", "--subtask", "discovery", "--task", S,
                     "--corpus", str(corpus_dir), "--data", str(tmp_path))
    assert session.sample_id == S and session.rules == expected
    assert expected.before is not None and S in expected.exclude_ids


# -- SciNet ------------------------------------------------------------------------------------
@pytest.mark.parametrize("from_file", [False, True])
def test_scinet_tool_sample_accepts_every_task_and_keeps_its_rules(scinet_files, from_file):
    graph, unarxive, task_file = scinet_files
    options = {"graph": str(graph), "unarxive": str(unarxive),
               **({"tasks": str(task_file)} if from_file else {})}
    bench = SciNet(dict(options))
    for subtask in SciNet.subtasks:
        loaded = SciNet(dict(options), build=SETTINGS).load(subtask, None).samples
        assert loaded, subtask
        for full in loaded:
            sample = bench.tool_source(subtask).sample(full.id)
            assert sample is not None and sample.id == full.id and sample.gold is None
            rules = bench.tool_source(subtask).rules
            assert rules(sample) == rules(full)
        other = next(s for s in SciNet.subtasks if s != subtask)
        assert bench.tool_source(other).sample(loaded[0].id) is None  # another family's id
    for wrong in ("ego/novel/cs.XX", "ego/cited/cs.LG", "ego/novel", "path/cs.LG/0",
                  "pair/pncites/ ", "nope"):
        family = wrong.split("/")[0] if wrong != "nope" else "ego"
        assert bench.tool_source(family).sample(wrong) is None, wrong
    assert bench._env is None                   # the graph was never opened


def test_scinet_start_computes_no_measure(scinet_files, corpus_dir, monkeypatch):
    """Neither the tasks (their gold: the graph measures) nor the graph are built."""
    from scholarbench.benchmarks.scinet import tasks
    from scholarbench.benchmarks.scinet.env import SciNetEnv
    calls: list[str] = []

    def refuse(name):
        def f(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} was called")
        return f
    monkeypatch.setattr(tasks, "build_tasks", refuse("build_tasks"))
    monkeypatch.setattr(SciNetEnv, "from_arxiv2023", classmethod(refuse("from_arxiv2023")))
    monkeypatch.setattr(SciNetEnv, "measure", refuse("measure"))
    graph, unarxive, _ = scinet_files
    session = _serve("--benchmark", "scinet", "--subtask", "ego", "--task", "ego/novel/cs.LG",
                     "--option", f"graph={graph}", "--option", f"unarxive={unarxive}",
                     "--corpus", str(corpus_dir))
    assert session.sample_id == "ego/novel/cs.LG" and calls == []
    assert session.rules == SciNet({}).tool_source("ego").rules(None)


def test_scinet_unknown_task_is_one_line_naming_the_id_form(scinet_files, corpus_dir, capsys):
    graph, unarxive, task_file = scinet_files
    base = ["tools", "serve", "--benchmark", "scinet", "--subtask", "path", "--option",
            f"graph={graph}", "--option", f"unarxive={unarxive}", "--corpus", str(corpus_dir)]
    assert main([*base, "--task", "path/cs.LG/x"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no task 'path/cs.LG/x'" in err
    assert "path/<arXiv category>/<nnn>" in err
    assert main([*base, "--option", f"tasks={task_file}", "--task", "path/cs.LG/999"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "tasks, e.g. path/" in err
