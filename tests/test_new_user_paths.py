"""What a new user hits (issue 35), each on the path a user takes: three imports of one kind
(every file listed and usable by name, a re-import saying it replaces), `eval` running the task
file imported last and naming it (a sub-task the file has no task for is skipped), a replay file
with a gap (`missing` in every file, the reason naming the task), `report SUITE_DIR` (the suite
overview, with SciNet and DeepSynth-Eval in it) and `aggregate SUITE_DIR [--check]`, and the
command-line forms users try (`report --format html`, `list agent`, `eval --help`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from scinet_files import write_tiny_graph
from scholarbench.cli import main
from test_build_unarxive_import import GOOD_TASK
from test_replay_suite import _judge, _rows, _write, suite_data  # noqa: F401 (a fixture)


def _survey(sid: str, title: str) -> dict:
    return {"id": sid, "title": title, "publicationDate": "2020-01-01",
            "references": {"influential": [], "relevant": ["arxiv:1001.00001"]}}


# -- data import ---------------------------------------------------------------------------

def test_three_imports_of_one_kind_stay_listed_and_usable_by_name(tmp_path, capsys):
    from scholarbench.data.store import latest_import
    from scholarbench.data.task_files import imported_file
    data = tmp_path / "data"
    sources = {}
    for name in ("a", "b", "c"):
        folder = tmp_path / f"src-{name}"
        folder.mkdir()
        sources[name] = _write(folder / f"{name}.jsonl", [_survey(f"s-{name}", f"T {name}")])
        assert main(["data", "--data", str(data), "import", "researcharena",
                     str(sources[name])]) == 0
    out = capsys.readouterr().out
    assert "replaced" not in out
    assert main(["data", "--data", str(data), "list"]) == 0
    listed = capsys.readouterr().out
    for name in ("a", "b", "c"):
        assert f"researcharena/{name}.jsonl: surveys=1  (from {sources[name].resolve()})" \
            in listed, listed
        assert imported_file(data, "researcharena", name) == data / "researcharena" / \
            f"{name}.jsonl"
    assert latest_import(data, "researcharena") == "c.jsonl"
    # the same name again, from elsewhere: it replaces a.jsonl and says so
    other = tmp_path / "other"
    other.mkdir()
    again = _write(other / "a.jsonl", [_survey("s-a2", "T a2"), _survey("s-a3", "T a3")])
    assert main(["data", "--data", str(data), "import", "researcharena", str(again)]) == 0
    out = capsys.readouterr().out
    assert f"replaced researcharena/a.jsonl (imported earlier from {sources['a'].resolve()})" \
        in out, out
    assert main(["data", "--data", str(data), "list"]) == 0
    listed = capsys.readouterr().out
    assert listed.count("researcharena/") == 3
    assert f"researcharena/a.jsonl: surveys=2  (from {again.resolve()})" in listed
    assert latest_import(data, "researcharena") == "a.jsonl"
    assert len(_rows(data / "researcharena" / "a.jsonl")) == 2
    # eval runs the survey file imported last unless a task source is named; organisation
    # keeps preferring TaxoBench instances (its mind-maps) once they are imported
    from scholarbench.benchmarks.researcharena.benchmark import ResearchArena
    arena = ResearchArena({"data": str(data)})
    assert arena.eval_defaults().options("discovery", {}) == {"tasks_from": "a.jsonl"}
    assert arena.eval_defaults().options("organisation", {}) == {"tasks_from": "a.jsonl"}
    assert arena.eval_defaults().options("selection", {"tasks_from": "corpus"}) == {}
    from test_replay_suite import shared_path
    assert main(["data", "--data", str(data), "import", "taxobench",
                 str(shared_path("data", "taxobench", "taxobench_5_instances.jsonl"))]) == 0
    assert arena.eval_defaults().options("organisation", {}) == {"tasks_from": "taxobench"}
    assert arena.eval_defaults().options("discovery", {}) == {"tasks_from": "a.jsonl"}


# -- eval runs the imported task file --------------------------------------------------------

def test_eval_runs_the_imported_task_file_names_it_and_skips_a_family_it_lacks(
        tmp_path, monkeypatch, capsys):
    graph, unarxive = write_tiny_graph(tmp_path / "g")
    data = tmp_path / "data"
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(data))
    built = tmp_path / "built" / "scinet"
    built.mkdir(parents=True)
    _write(built / "tasks.jsonl", [GOOD_TASK])              # one path task, no ego task
    assert main(["data", "import", "scinet", str(built)]) == 0
    answers = _write(tmp_path / "answers.jsonl", [
        {"benchmark": "scinet", "subtask": "ego", "id": "ego/novel/cs.AI", "papers": []},
        {"benchmark": "scinet", "subtask": "path", "id": GOOD_TASK["task_id"],
         "papers": GOOD_TASK["gold"]["path"]}])
    capsys.readouterr()
    assert main(["eval", "--agent", "replay", "--agent-arg", f"path={answers}", "--benchmarks",
                 "scinet", "--option", f"scinet.graph={graph}", "--option",
                 f"scinet.unarxive={unarxive}", "--out", str(tmp_path / "runs"),
                 "--quiet"]) == 0
    table = capsys.readouterr().out
    runs = {r["subtask"]: r for r in
            json.loads((tmp_path / "runs" / "eval.json").read_text())["runs"]}
    path = runs["path"]
    assert path["status"] == "complete" and path["samples"] == 1, path
    assert path["tasks"] == "scinet/tasks.jsonl" and path["counts"]["scored"] == 1
    assert runs["ego"]["status"] == "skipped" and runs["ego"]["samples"] == 0
    assert runs["ego"]["reason"] == "no ego task in the task set (scinet/tasks.jsonl)"
    assert "tasks: scinet/tasks.jsonl" in table and "no ego task in the task set" in table
    # a second file imported: eval runs it (the last one), unless the user names another
    _write(tmp_path / "other.jsonl", [{**GOOD_TASK, "task_id": "path/x/009"},
                                      {**GOOD_TASK, "task_id": "path/x/010"}])
    assert main(["data", "import", "scinet", str(tmp_path / "other.jsonl")]) == 0
    for option, tasks, n in (([], "scinet/other.jsonl", 2),
                             (["--option", "scinet.tasks=tasks"], "scinet/tasks.jsonl", 1)):
        out = tmp_path / f"runs-{n}"
        assert main(["eval", "--agent", "replay", "--agent-arg", f"path={answers}",
                     "--benchmarks", "scinet", "--option", f"scinet.graph={graph}", "--option",
                     f"scinet.unarxive={unarxive}", *option, "--out", str(out),
                     "--quiet"]) == 0
        row = next(r for r in json.loads((out / "eval.json").read_text())["runs"]
                   if r["subtask"] == "path")
        assert (row["tasks"], row["samples"]) == (tasks, n), row


# -- a replay file with a gap, the suite report, aggregate SUITE_DIR ---------------------------

@pytest.fixture(scope="module")
def gap_suite(suite_data, tmp_path_factory):  # noqa: F811
    """`eval --agent replay` over TaxoBench, DeepSynth-Eval and SciNet with one sample of each
    answered and the other left out (limit 2), one answer malformed."""
    root = tmp_path_factory.mktemp("gap-suite")
    answers = _write(root / "answers.jsonl", [
        {"benchmark": "taxobench", "subtask": "bottom-up", "id": "1",
         "taxonomy": {"name": "t", "subtopics": [{"name": "a", "papers": ["x"]}]}},
        {"benchmark": "taxobench", "subtask": "deep-research", "id": "1",
         "taxonomy": {"nam": "t", "papers": 3}},
        {"benchmark": "deepsynth", "subtask": "report", "id": "0", "report": "# R\n\nText."},
        {"benchmark": "scinet", "subtask": "ego", "id": "ego/novel/cs.AI", "papers": ["x"]}])
    mp = pytest.MonkeyPatch()
    mp.setenv("SCHOLARBENCH_DATA", str(suite_data / "data"))
    judge = FakeOpenAI(default=_judge).start()
    try:
        code = main(["eval", "--agent", "replay", "--agent-arg", f"path={answers}",
                     "--benchmarks", "taxobench,deepsynth,scinet", "--limit", "2",
                     "--out", str(root / "runs"), "--quiet", "--judge", "judge-x",
                     "--judge-base-url", judge.base_url])
    finally:
        judge.stop()
    assert code == 0
    yield root, answers, mp
    mp.undo()


def test_a_sample_with_no_line_is_missing_in_every_file(gap_suite):
    from scholarbench.core.engine import benchmark_class
    root, answers, _ = gap_suite
    runs = {(r["benchmark"], r["subtask"]): r
            for r in json.loads((root / "runs" / "eval.json").read_text())["runs"]}
    for pair in (("taxobench", "bottom-up"), ("deepsynth", "report"), ("scinet", "ego")):
        cls = benchmark_class(pair[0])
        run = Path(runs[pair]["run_dir"])
        generated = {str(g[cls.id_key]): g for g in _rows(run / cls.generate_file)}
        scores = {str(s[cls.id_key]): s for s in _rows(run / "scores.jsonl")}
        gaps = [i for i, g in generated.items() if g.get("status") not in (None, "ok")]
        assert len(gaps) == 1, (pair, generated)
        gap = gaps[0]
        assert generated[gap]["status"] == "missing", (pair, generated[gap])
        assert scores[gap]["status"] == "missing", (pair, scores[gap])
        summary = json.loads((run / "summary.json").read_text())
        assert summary["status"] == {"scored": 1, "missing": 1}, (pair, summary["status"])
        assert runs[pair]["counts"]["missing"] == 1 and runs[pair]["malformed"] == 0
        # the reason names the task and the file, not a template
        reason = runs[pair]["reasons"]["missing"]
        assert reason.startswith("1× ") and "…" not in reason, reason
        assert repr(gap) in reason or f"sample {gap}" in reason, (pair, reason)
        assert answers.name in reason, reason


def test_a_malformed_answers_reason_names_the_sample_and_its_fields(gap_suite):
    root, _, _ = gap_suite
    run = next(r for r in json.loads((root / "runs" / "eval.json").read_text())["runs"]
               if r["subtask"] == "deep-research")
    reason = run["reasons"]["malformed"]
    assert reason.startswith("1× taxonomy answer, field taxonomy.name: Field required; "
                             "also fields "), reason
    assert "taxonomy.nam" in reason and "taxonomy.papers" in reason
    assert reason.endswith("(sample 1)") and "+N" not in reason


def test_the_suite_report_shows_the_overview_with_scinet_and_deepsynth(gap_suite, capsys):
    root, _, _ = gap_suite
    capsys.readouterr()
    assert main(["report", str(root / "runs"), "--format", "markdown"]) == 0
    out = capsys.readouterr().out.replace("\\_", "_")      # Markdown's escaped underscores
    assert "Suite overview" in out
    for name in ("taxobench bottom-up", "deepsynth report", "scinet ego", "scinet path"):
        assert f"| {name} |" in out, name
    assert out.index("Suite overview") < out.index("| scinet ego |")   # the overview first
    scinet = next(line for line in out.splitlines() if line.startswith("| scinet ego |"))
    assert "novelty_sos" in scinet                      # SciNet's headline, read per run
    deepsynth = next(line for line in out.splitlines()
                     if line.startswith("| deepsynth report |"))
    assert "dse_overall" in deepsynth
    # the HTML report as users ask for it
    html = root / "suite.html"
    assert main(["report", str(root / "runs"), "--format", "html", "--out", str(html)]) == 0
    assert html.read_text().startswith("<!DOCTYPE html>") and "Suite overview" in \
        html.read_text()
    capsys.readouterr()
    assert main(["report", str(root / "runs"), "--format", "html"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out REPORT.html" in err


def test_aggregate_a_suite_dir_rebuilds_and_checks_every_run_and_eval_json(gap_suite, capsys):
    root, _, _ = gap_suite
    suite = root / "runs"
    before = json.loads((suite / "eval.json").read_text())
    capsys.readouterr()
    assert main(["aggregate", str(suite), "--check"]) == 0
    out = capsys.readouterr().out
    assert out.count("summary.json is reproduced from scores.jsonl") == \
        sum(1 for r in before["runs"] if r["status"] != "no answers")
    assert f"{suite}: eval.json is reproduced from its runs" in out
    assert main(["aggregate", str(suite)]) == 0
    assert json.loads((suite / "eval.json").read_text()) == before
    tampered = json.loads(json.dumps(before))
    tampered["runs"][0]["counts"]["scored"] += 1
    (suite / "eval.json").write_text(json.dumps(tampered))
    capsys.readouterr()
    try:
        assert main(["aggregate", str(suite), "--check"]) == 1
        err = capsys.readouterr().err
        assert "eval.json rebuilt from its runs differs at: runs.0.counts.scored" in err
        assert json.loads((suite / "eval.json").read_text()) == tampered   # nothing written
        assert main(["aggregate", str(suite)]) == 0                        # rebuilt
        assert json.loads((suite / "eval.json").read_text()) == before
    finally:
        (suite / "eval.json").write_text(json.dumps(before))


# -- the forms users try -------------------------------------------------------------------

def test_list_agent_and_eval_help_name_the_flags_that_exist(capsys):
    assert main(["list", "agent"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("replay "))
    assert "--agent-arg path=FILE" in line and "--replay FILE" not in line
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "SciNet's judged measures" not in help_text
    assert "every judged measure" in help_text


# -- DeepSynth: citations resolve alike by every way in ----------------------------------------

CITED = ["arxiv:2304.07638", "Representation Learning via Invariant Causal Mechanisms"]


def test_deepsynth_citations_resolve_alike_by_every_way_in(suite_data, tmp_path,  # noqa: F811
                                                         monkeypatch, capsys):
    """The same report and cited list (two papers of the imported arxiv-2023 graph, by id and
    by title) from a replay file and from a plain function: both resolve against the data's
    corpus; with `--corpus none` they stay as written, and the warning says so."""
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(suite_data / "data"))
    answer = {"report": "# R\n\nCausal models [1] and invariant mechanisms [2].", "cited": CITED}
    answers = _write(tmp_path / "answers.jsonl", [{"id": "0", **answer}])
    (tmp_path / "same_answer_agent.py").write_text(
        f"def solve(task):\n    return {answer!r}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    judge = FakeOpenAI(default=_judge).start()
    common = ["--limit", "1", "--quiet", "--judge", "judge-x", "--judge-base-url",
              judge.base_url]
    ways = {"replay": ["--agent", "replay", "--agent-arg", f"path={answers}"],
            "function": ["--agent", "same_answer_agent:solve", "--oracle", "none"],
            "no-corpus": ["--agent", "replay", "--agent-arg", f"path={answers}", "--corpus",
                          "none"]}
    info, err = {}, {}
    try:
        for way, argv in ways.items():
            out = tmp_path / way
            capsys.readouterr()
            assert main(["run", "deepsynth", *argv, *common, "--out", str(out)]) == 0, way
            err[way] = capsys.readouterr().err
            (record,) = _rows(out / "generate.jsonl")
            info[way] = (record["info"]["n_cited_refs"], record["info"]["n_cited_unresolved"],
                         record["cited"])
    finally:
        judge.stop()
    assert info["replay"][:2] == info["function"][:2] == (2, 0), info
    assert info["replay"][2] == info["function"][2] != CITED       # resolved to corpus ids
    assert info["no-corpus"] == (2, 2, CITED)
    assert "resolve to no paper" not in err["replay"] + err["function"]
    assert "2 of 2 answer references resolve to no paper of the task (kept as written in " \
        "the report the judge reads)" in err["no-corpus"], err["no-corpus"]


def test_a_tampered_data_index_is_one_line(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    for content in ("{not json", '{"researcharena": ["a.jsonl"]}'):
        (data / "index.json").write_text(content)
        for argv in (["list"], ["import", "researcharena", str(_write(
                tmp_path / "s.jsonl", [_survey("s", "T")]))]):
            capsys.readouterr()
            assert main(["data", "--data", str(data), *argv]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and str(data / "index.json") in err, err
            assert "Traceback" not in err


def test_a_generate_line_that_says_missing_is_missing_everywhere():
    from scholarbench.core.status import sample_status
    assert sample_status({"status": "scored"}, {"status": "missing", "missing": True}) == \
        "missing"                                   # the answer decides first
    assert sample_status({"status": "missing"}, {"status": "malformed", "missing": True}) == \
        "missing"                                   # a run written before: read alike
    assert sample_status({"status": "missing"}, {"status": "malformed"}) == "malformed"
