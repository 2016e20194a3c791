"""`Benchmark.tool_source` (tools/source.py): one record says what the literature tools serve.

Its defaults pick a task from the sub-task's samples and name some ids; a benchmark's own
`find` and `hint` replace them (the samples are then never read); a benchmark without tools is
refused by every way in with one line, before its tasks are loaded; and making the record opens
no corpus — `tools serve` with an unknown task never touches the corpus directory."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from scinet_files import write_tiny_graph
from scholarbench.cli import build_parser, main
from scholarbench.core.benchmark import Benchmark, Loaded, Sample
from scholarbench.errors import ScholarbenchError
from scholarbench.tools import commands
from scholarbench.tools.provider import ToolProvider
from scholarbench.tools.rules import AccessRules
from scholarbench.tools.source import ToolSource, ids_hint, offered


def _samples(*ids: str) -> list[Sample]:
    return [Sample(i, SimpleNamespace(native=i)) for i in ids]


def _refuse(*args):
    raise AssertionError("the corpus was opened")


def test_the_default_finder_picks_by_id_and_names_some_ids():
    reads: list[int] = []

    def samples():
        reads.append(1)
        return _samples("a", "b", "c", "d", "e", "f", "g")
    source = ToolSource(_refuse, lambda s: AccessRules(why=s.id), samples=samples)
    assert source.sample("c").id == "c"
    assert source.sample("z") is None
    assert source.task_hint() == "7 tasks, e.g. a, b, c, d, e"
    assert source.rules(source.sample("f")) == AccessRules(why="f")
    assert len(reads) == 4                  # read when asked, never when made


def test_a_benchmark_finder_and_hint_replace_the_samples():
    source = ToolSource(_refuse, lambda s: AccessRules(), samples=lambda: _refuse(),
                        find=lambda task_id: _samples(task_id)[0] if task_id == "x" else None,
                        hint=lambda: "ids are x")
    assert source.sample("x").id == "x" and source.sample("y") is None
    assert source.task_hint() == "ids are x"


@pytest.mark.parametrize("given", [{}, {"find": lambda t: None}, {"hint": lambda: ""}])
def test_a_source_that_cannot_find_a_task_is_refused(given):
    with pytest.raises(TypeError, match="needs `samples`, or both `find` and `hint`"):
        ToolSource(_refuse, lambda s: AccessRules(), **given)


def test_ids_hint_names_the_count_and_the_first_ids():
    assert ids_hint(["p", "q"]) == "2 tasks, e.g. p, q"
    assert ids_hint(["p", "q", "r"], n=1) == "3 tasks, e.g. p"


class NoTools(Benchmark):
    name = "notools"
    subtasks = {"find": "ranking"}

    def load(self, subtask: str, limit: int | None) -> Loaded:
        raise AssertionError("the tasks were loaded")


def test_a_benchmark_without_tools_is_refused_in_one_line_before_loading(capsys):
    bench = NoTools()
    assert bench.tool_source("find") is None            # the base default
    message = "notools does not offer the literature tools"
    with pytest.raises(ScholarbenchError, match=f"^{message}$"):
        offered(bench, "find")
    with pytest.raises(ScholarbenchError, match=f"^{message}$"):
        ToolProvider(bench, "find")                     # a run's agent with needs.tools
    argv = ("tools", "serve", "--benchmark", "notools", "--task", "q1")
    args = build_parser(argv).parse_args(argv)
    args.open_benchmark = lambda a: (bench, "find")
    with pytest.raises(ScholarbenchError, match=f"^{message}$"):
        commands._session(args)


def test_an_unknown_scinet_task_never_opens_the_corpus(tmp_path, capsys):
    """The task is looked for first; the corpus (here a directory that does not exist) is
    opened only for a task that is served."""
    graph, unarxive = write_tiny_graph(tmp_path)
    base = ["tools", "serve", "--benchmark", "scinet", "--subtask", "ego", "--option",
            f"graph={graph}", "--option", f"unarxive={unarxive}",
            "--corpus", str(tmp_path / "no-corpus")]
    assert main([*base, "--task", "ego/novel/cs.XX"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no task 'ego/novel/cs.XX'" in err
    assert main([*base, "--task", "ego/novel/cs.LG"]) == 2      # a known task: opened
    err = capsys.readouterr().err.strip()
    assert "has no task" not in err and "no-corpus" in err
