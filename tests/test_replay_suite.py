"""One replay file for the whole suite, and missing things that fail up front.

A suite's answers file tags lines with `benchmark` and `subtask` (an id is unique only within its
pair): `eval --agent replay` runs every pair the file answers, DeepSynth and SciNet included,
and lists the others as `no answers` with their samples missing; the same id in two sub-tasks
gives each its own answer; a duplicate id in one run keeps the first line, as the warning says;
a CSV or a JSON array is refused in one line (exit 2). An empty data directory, an unset
`--api-key-env` variable and an agent module in the current folder fail (or work) up front,
in one line, never with a traceback."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI
from scholarbench.cli import main

TREE = {"name": "t", "subtopics": [{"name": "a", "papers": ["x"]}]}


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


# -- the reader ------------------------------------------------------------------------------

def test_a_run_reads_its_own_lines_and_the_untagged_ones_first_of_each_id_kept(tmp_path):
    from scholarbench.core.replay import read_replay_file
    path = _write(tmp_path / "a.jsonl", [
        {"benchmark": "taxobench", "subtask": "bottom-up", "id": "1", "taxonomy": TREE},
        {"benchmark": "taxobench", "subtask": "deep-research", "id": "1", "taxonomy": {}},
        {"benchmark": "taxobench", "id": 2, "taxonomy": TREE},          # every sub-task
        {"id": "3", "taxonomy": TREE},                                  # any run
        {"benchmark": "taxobench", "subtask": "bottom-up", "id": "1", "taxonomy": None},
        {"benchmark": "scinet", "subtask": "ego", "id": "1", "papers": []},
        {"benchmark": 5, "id": "9"}])
    replay = read_replay_file(path)
    bottom_up = replay.select("taxobench", "bottom-up")
    assert bottom_up.lines == [(1, {"id": "1", "taxonomy": TREE}), (3, {"id": "2", "taxonomy": TREE}),
                               (4, {"id": "3", "taxonomy": TREE})]
    assert bottom_up.problems == [
        f"{path}, line 7: field 'benchmark': Input should be a valid string; line ignored",
        f"{path}: duplicate id '1' in taxobench/bottom-up: first kept (line 1), line 5 ignored"]
    assert [n for n, _ in replay.select("taxobench", "deep-research").lines] == [2, 3, 4]
    assert [n for n, _ in replay.select("scinet", "ego", ("task_id", "id")).lines] == [4, 6]
    assert replay.applies("scinet", "path")            # the untagged line applies everywhere
    tagged_only = read_replay_file(_write(tmp_path / "b.jsonl", [
        {"benchmark": "scinet", "subtask": "ego", "id": "1", "papers": []}]))
    assert not tagged_only.applies("taxobench", "bottom-up")
    assert tagged_only.select("taxobench", "bottom-up").problems == [
        f"{tmp_path / 'b.jsonl'}: no line for taxobench/bottom-up (the lines are tagged for "
        "other runs): every sample is missing"]
    assert replay.tagged()[("taxobench", None)] == 1


@pytest.mark.parametrize("content, says", [
    ("id,taxonomy\n1,x\n", "line 1: not valid JSON"),
    ('[{"id": "1", "taxonomy": {"name": "x"}}]\n', "one JSON array"),
    ('\n[\n  {"id": "1"},\n  {"id": "2"}\n]\n', "one JSON array")])
def test_a_file_that_is_not_json_lines_is_refused_in_one_line(content, says, tmp_path,
                                                                monkeypatch, capsys):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    assert main(["data", "import", "taxobench",
                 str(shared_path("data", "taxobench", "taxobench_5_instances.jsonl"))]) == 0
    answers = tmp_path / "answers.csv"
    answers.write_text(content)
    for argv in (["run", "taxobench", "--mode", "bottom-up"], ["eval"]):
        capsys.readouterr()
        code = main([*argv, "--agent", "replay", "--agent-arg", f"path={answers}", "--out",
                     str(tmp_path / "runs"), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and not (tmp_path / "runs").exists(), err
        assert err.count("\n") == 1 and str(answers) in err and says in err
        assert "expected JSON lines, one object per line" in err


# -- a suite ---------------------------------------------------------------------------------

def _judge(body):
    from test_bring_your_own_agent import _judge as checklist_judge
    return checklist_judge(body)


@pytest.fixture(scope="module")
def suite_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("replay-suite")
    for name, parts in {"taxobench": ("taxobench", "taxobench_5_instances.jsonl"),
                        "reportbench": ("reportbench",),
                        "arxiv2023": ("arxiv2023_citation_graph",),
                        "unarxive": ("unarxive_sample",),
                        "deepsynth": ("deepsynth", "example_gen_result.jsonl")}.items():
        assert main(["data", "--data", str(root / "data"), "import", name,
                     str(shared_path("data", *parts))]) == 0
    return root


def test_one_file_answers_the_suite(suite_data, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(suite_data / "data"))
    answers = _write(tmp_path / "suite.jsonl", [
        {"benchmark": "taxobench", "subtask": "bottom-up", "id": "1", "taxonomy": TREE},
        {"benchmark": "taxobench", "subtask": "deep-research", "id": "1",
         "taxonomy": {"name": "deep", "papers": ["y"]}},
        {"benchmark": "deepsynth", "subtask": "report", "id": "0", "report": "# R\n\nText."},
        {"benchmark": "scinet", "subtask": "ego", "id": "ego/novel/cs.AI", "papers": ["x"]},
        {"benchmark": "nosuchbench", "id": "1", "papers": []}])
    judge = FakeOpenAI(default=_judge).start()
    try:
        code = main(["eval", "--agent", "replay", "--agent-arg", f"path={answers}",
                     "--benchmarks", "taxobench,deepsynth,scinet,reportbench", "--limit", "2",
                     "--out", str(tmp_path / "runs"), "--quiet", "--judge", "judge-x",
                     "--judge-base-url", judge.base_url])
    finally:
        judge.stop()
    err = capsys.readouterr().err
    assert code == 0, err
    runs = {(r["benchmark"], r["subtask"]): r
            for r in json.loads((tmp_path / "runs" / "eval.json").read_text())["runs"]}
    ran = {k for k, r in runs.items() if r["status"] == "complete"}
    assert ran == {("taxobench", "bottom-up"), ("taxobench", "deep-research"),
                   ("deepsynth", "report"), ("scinet", "ego")}
    for pair in (("reportbench", "shipped"), ("scinet", "pair"), ("scinet", "path")):
        assert runs[pair]["status"] == "no answers" and runs[pair]["missing"] == 2
        assert f"no answers for {pair[0]}/{pair[1]} in {answers}: its 2 samples are missing" \
            in err
    assert "1 line(s) tagged nosuchbench/*, which is no benchmark's sub-task: ignored" in err
    # the same id in two sub-tasks: each run got its own line
    trees = {s: _rows(Path(runs[("taxobench", s)]["run_dir"]) / "generate.jsonl")
             for s in ("bottom-up", "deep-research")}
    assert trees["bottom-up"][0]["prediction"]["hierarchy_tree"]["name"] == "t"
    assert trees["deep-research"][0]["prediction"]["hierarchy_tree"]["name"] == "deep"
    # DeepSynth and SciNet ran: one sample answered, the other counted as missing
    for pair in (("deepsynth", "report"), ("scinet", "ego"), ("taxobench", "bottom-up")):
        summary = json.loads((Path(runs[pair]["run_dir"]) / "summary.json").read_text())
        assert summary["status"] == {"scored": 1, "missing": 1}, (pair, summary["status"])


def test_a_duplicate_id_keeps_the_first_line_as_the_warning_says(suite_data, tmp_path,
                                                                 monkeypatch, capsys):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(suite_data / "data"))
    answers = _write(tmp_path / "a.jsonl", [
        {"id": "1", "taxonomy": TREE},
        {"id": 1, "taxonomy": {"name": "second"}}])
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={answers}", "--limit", "2", "--out", str(tmp_path / "run"),
                 "--quiet"]) == 0
    err = capsys.readouterr().err
    assert (f"warning: {answers}: duplicate id '1' in taxobench/bottom-up: first kept "
            "(line 1), line 2 ignored") in err
    gen = {g["id"]: g for g in _rows(tmp_path / "run" / "generate.jsonl")}
    assert gen["1"]["prediction"]["hierarchy_tree"]["name"] == "t"
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["n_missing"] == 1                  # sample "2" has no line


# -- missing things, up front ------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["eval", "--benchmarks", "all", "--agent", "replay", "--agent-arg", "path=PATH"],
    ["run", "researcharena", "--task", "discovery", "--agent", "title-bm25"]])
def test_an_empty_data_dir_is_one_line(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "empty"))
    answers = _write(tmp_path / "a.jsonl", [{"id": "1", "taxonomy": TREE}])
    code = main([a.replace("PATH", str(answers)) for a in argv]
                + ["--out", str(tmp_path / "runs"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert str(tmp_path / "empty") in err and "scholarbench data import" in err


def test_an_unset_api_key_variable_stops_before_any_sample(suite_data, tmp_path, monkeypatch,
                                                           capsys):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(suite_data / "data"))
    monkeypatch.delenv("MY_UNSET_PRODUCT_KEY", raising=False)
    fake = FakeOpenAI().start()                        # it would answer anything
    try:
        for argv in (["run", "taxobench", "--mode", "bottom-up"],
                     ["eval", "--benchmarks", "taxobench"]):
            code = main([*argv, "--agent", "endpoint", "--model", "product", "--base-url",
                         fake.base_url, "--api-key-env", "MY_UNSET_PRODUCT_KEY", "--out",
                         str(tmp_path / "runs"), "--quiet", "--no-llm-cache"])
            err = capsys.readouterr().err
            assert code == 2 and err.count("\n") == 1, err
            assert "$MY_UNSET_PRODUCT_KEY" in err and "not set" in err
    finally:
        fake.stop()
    assert fake.requests == [] and not (tmp_path / "runs").exists()


def test_an_agent_module_in_the_current_folder_imports_as_written(suite_data, tmp_path,
                                                                  monkeypatch, capsys):
    """`eval --agent mypkg_agent:solve` from the folder holding the module (the README's
    command), with no PYTHONPATH: the current folder is on sys.path as `python -m` puts it."""
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(suite_data / "data"))
    user = tmp_path / "user"
    user.mkdir()
    (user / "mypkg_replay_suite_agent.py").write_text(
        "def solve(task):\n    return {'taxonomy': {'name': task['id']}}\n")
    monkeypatch.chdir(user)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(user))])
    monkeypatch.delitem(sys.modules, "mypkg_replay_suite_agent", raising=False)
    argv = ["eval", "--agent", "mypkg_replay_suite_agent:solve", "--benchmarks", "taxobench",
            "--limit", "1", "--out", str(tmp_path / "runs"), "--quiet"]
    assert main(argv) == 0, capsys.readouterr().err
    runs = json.loads((tmp_path / "runs" / "eval.json").read_text())["runs"]
    assert [r["status"] for r in runs] == ["complete", "complete"]
    monkeypatch.chdir(tmp_path)                        # elsewhere: one line saying what to do
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(user)])
    monkeypatch.delitem(sys.modules, "mypkg_replay_suite_agent", raising=False)
    capsys.readouterr()
    assert main([*argv[:-3], "--out", str(tmp_path / "runs2"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run from the folder that holds it" in err, err
