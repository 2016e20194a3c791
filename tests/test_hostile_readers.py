"""The hostile probes of test_hostile_inputs.py against the remaining readers of user files:
SciNet task and answer files, ResearchArena qrels and run files, the generic replay agent,
`data import deepsynth`, and a run directory's own records (generate.jsonl, manifest.json,
summary.json). Each gives a line naming the file — an error with exit status 2, or for an
agent's output a warning naming the line with the sample counted — never a traceback."""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import shared_path
from scholarbench.cli import main
from test_hostile_inputs import PROBES, SAYS, probes  # noqa: F401 (a fixture)


def _no_traceback(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])            # a traceback would raise here
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def tiny_scinet(tmp_path_factory):
    from scinet_files import write_tiny_tasks
    return write_tiny_tasks(tmp_path_factory.mktemp("hostile-scinet"))


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_score_scinet_task_file(probe, probes, tiny_scinet, capsys, tmp_path):
    graph, unarxive, tasks = tiny_scinet
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"task_id": "x", "papers": []}) + "\n")
    code, _, err = _no_traceback(["score", "scinet", "--tasks", probes[probe], "--answers",
                                  answers, "--out", tmp_path / "s.jsonl", "--graph", graph,
                                  "--unarxive", unarxive], capsys)
    assert code == 2 and str(probes[probe]) in err and SAYS[probe] in err, err


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_score_scinet_answer_file(probe, probes, tiny_scinet, capsys, tmp_path):
    graph, unarxive, tasks = tiny_scinet
    code, _, err = _no_traceback(["score", "scinet", "--tasks", tasks, "--answers",
                                  probes[probe], "--out", tmp_path / "s.jsonl", "--graph",
                                  graph, "--unarxive", unarxive], capsys)
    assert code == 2 and str(probes[probe]) in err and SAYS[probe] in err, err


@pytest.mark.parametrize("probe", sorted(PROBES))
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_score_researcharena_trec_files(probe, which, probes, capsys, tmp_path):
    qrels = tmp_path / "q.trec"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\n")
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d3 2 1.0 t\n")
    files = {"qrels": qrels, "run": run, which: probes[probe]}
    code, _, err = _no_traceback(["score", "researcharena", "--qrels", files["qrels"], "--run",
                                  files["run"], "--out", tmp_path / "s.jsonl"], capsys)
    assert code == 2 and str(probes[probe]) in err, err


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_the_generic_replay_agent(probe, probes, capsys, tmp_path):
    """A file whose every line is unusable is refused before anything runs (exit 2, one line
    naming the file and what was expected); the same line among good ones is a warning that
    names it, and its sample is counted as missing."""
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(gold)]) == 0
    code, out, err = _no_traceback(["run", "taxobench", "--mode", "bottom-up", "--agent",
                                    "replay", "--agent-arg", f"path={probes[probe]}", "--out",
                                    tmp_path / "run", "--quiet"], capsys)
    assert code == 2 and str(probes[probe]) in err and not (tmp_path / "run").exists(), err
    if probe == "empty":
        assert "in the file (it is empty)" in err
        return
    says = "one JSON array" if probe == "list" else SAYS[probe]
    assert "expected JSON lines, one object per line" in err and says in err, err
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(json.dumps({"id": 1, "taxonomy": {"name": "x"}}).encode() + b"\n"
                      + PROBES[probe])
    code, out, err = _no_traceback(["run", "taxobench", "--mode", "bottom-up", "--agent",
                                    "replay", "--agent-arg", f"path={mixed}", "--out",
                                    tmp_path / "run2", "--quiet"], capsys)
    assert code == 0, err
    assert f"{mixed}, {SAYS[probe].replace('line 1', 'line 2')}" in err, err
    assert "line ignored" in err
    assert "5 samples" in out and "4 missing" in out


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_data_import_deepsynth(probe, probes, capsys):
    code, _, err = _no_traceback(["data", "import", "deepsynth", probes[probe]], capsys)
    assert code == 2 and str(probes[probe]) in err and SAYS[probe] in err, err


# -- a run directory's own records ------------------------------------------------------------

@pytest.fixture
def finished_run(probes, tmp_path, capsys):
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(gold)]) == 0
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": 1, "taxonomy": {"name": "x"}}) + "\n")
    run = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={answers}", "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()
    return run


@pytest.mark.parametrize("probe", ["bytes", "deep", "number", "badjson", "list"])
def test_a_bad_line_inside_generate_jsonl(probe, probes, finished_run, capsys):
    """A bad line that is not the torn last one: named, its sample redone on the next run;
    a re-score names it and still writes every row."""
    gen = finished_run / "generate.jsonl"
    gen.write_bytes(PROBES[probe] + gen.read_bytes())
    code, out, err = _no_traceback(["score", finished_run], capsys)
    assert code in (0, 2), err
    assert str(gen) in err or str(gen) in out or code == 0, err
    rows = (finished_run / "scores.jsonl").read_text().splitlines()
    assert len(rows) == 5
    code, _, err = _no_traceback(["report", finished_run, "--html", finished_run / "r.html"],
                                 capsys)
    assert code in (0, 2) and (code == 0 or str(finished_run) in err), err


@pytest.mark.parametrize("probe", sorted(PROBES))
@pytest.mark.parametrize("name", ["manifest.json", "summary.json"])
def test_a_bad_manifest_or_summary(probe, name, probes, finished_run, capsys):
    path = finished_run / name
    path.write_bytes(PROBES[probe])
    argv = (["score", finished_run] if name == "manifest.json"
            else ["report", finished_run, "--html", finished_run / "r.html"])
    code, _, err = _no_traceback(argv, capsys)
    assert code == 2 and str(path) in err, err


def test_a_copied_run_directory_with_a_bad_tools_file(finished_run, capsys):
    (finished_run / "tools.jsonl").write_bytes(b'{"id": "1", "calls": [\xff]}\n{"id": "2"}\n')
    code, _, err = _no_traceback(["report", finished_run, "--html", finished_run / "r.html"],
                                 capsys)
    assert code == 2 and "tools.jsonl" in err and "line 1" in err, err
    shutil.rmtree(finished_run)


def test_a_generated_line_whose_prediction_is_not_an_object_is_malformed(finished_run, capsys):
    run = finished_run
    lines = [json.loads(x) for x in (run / "generate.jsonl").read_text().splitlines()]
    lines[0]["prediction"] = "oops"
    (run / "generate.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    capsys.readouterr()
    assert main(["score", str(run)]) == 0
    assert "1 malformed" in capsys.readouterr().out
