"""Size limits on agent outputs (`core.limits`): the check itself on hand-made answers, and the
`oversized` status through a run, a re-score and `score taxobench` files — an answer over a
limit is scored exactly as a missing one and counted under its own status."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.cli import main
from scholarbench.core.limits import OutputLimits
from scholarbench.errors import ScholarbenchError

SMALL = OutputLimits(nodes=4, depth=3, label_chars=10, papers=3, report_bytes=100)


def tree(depth: int = 1, fanout: int = 1, name: str = "n", papers=()) -> dict:
    node = {"name": name, "subtopics": [], "papers": list(papers)}
    if depth > 1:
        node["subtopics"] = [tree(depth - 1, fanout, name) for _ in range(fanout)]
    return node


@pytest.mark.parametrize("answer, says", [
    ({"taxonomy": tree(2, 4)}, "more than 4 nodes"),            # 5 nodes
    ({"taxonomy": tree(4)}, "depth 4 (limit depth=3)"),
    ({"taxonomy": tree(1, name="x" * 11)}, "taxonomy.name is 11 characters"),
    ({"taxonomy": {"name": "r", "subtopics": [tree(1, papers=["a", "b"]),
                                             tree(1, papers=["c", "d"])]}},
     "places over 3 papers"),
    ({"taxonomy": {"name": "r", "subtopics": [tree(1, papers=["y" * 11])]}},
     "taxonomy.subtopics[0].papers[0] is 11"),
    ({"taxonomy": tree(1), "retrieved": ["a", "b", "c", "d"]}, "retrieved lists 4 papers"),
    # the upstream TaxoBench form (`hierarchy_tree`, `children`) is read the same way
    ({"hierarchy_tree": {"name": "r", "children": [{"name": "c" * 11}]}},
     "taxonomy.children[0].name is 11"),
])
def test_taxonomy_answers_over_a_limit_name_it(answer, says):
    problem = SMALL.violation("taxonomy", answer)
    assert problem is not None and says in problem, problem


@pytest.mark.parametrize("answer", [
    {"taxonomy": tree(2, 3)},                                   # 4 nodes: at the limit
    {"taxonomy": tree(3)},                                      # depth 3: at the limit
    {"taxonomy": tree(2, 1, name="x" * 10, papers=["a", "b"]), "retrieved": ["a", "b", "c"]},
])
def test_taxonomy_answers_at_the_limits_pass(answer):
    assert SMALL.violation("taxonomy", answer) is None


def test_ranking_path_and_report_limits():
    assert SMALL.violation("ranking", {"papers": ["a", "b", "c"]}) is None
    assert "4 papers" in SMALL.violation("ranking", {"papers": list("abcd")})
    assert "papers[1] is 11" in SMALL.violation("ranking", {"papers": [
        {"id": "a", "score": 1}, {"id": "z" * 11}]})
    assert "4 papers" in SMALL.violation("path", {"papers": list("abcd")})
    assert SMALL.violation("report", {"report": "e" * 100}) is None
    # bytes, not characters: 60 two-byte characters are 120 bytes
    assert "120 bytes" in SMALL.violation("report", {"report": "é" * 60})
    assert "cited lists 4" in SMALL.violation("report", {"report": "", "cited": list("abcd")})


@pytest.mark.parametrize("answer", [None, "text", 5, {"taxonomy": "x"}, {"papers": "x"},
                                    {"taxonomy": {"name": "r", "subtopics": [1, None]}}])
def test_shapes_that_do_not_fit_are_left_to_the_schema_check(answer):
    for family in ("taxonomy", "ranking", "report", "path"):
        assert SMALL.violation(family, answer) is None


def test_limits_from_the_command_line():
    given = OutputLimits.from_pairs(["nodes=7", "report-bytes=9"])
    assert {k: v for k, v in given.model_dump().items()
            if v != getattr(OutputLimits(), k)} == {"nodes": 7, "report_bytes": 9}
    assert OutputLimits.from_pairs(None) == OutputLimits()
    for bad, says in (["nodes"], "KEY=N"), (["nodes=x"], "KEY=N"), (["leaves=3"], "unknown"), \
            (["depth=0"], "greater than or equal to 1"):
        with pytest.raises(ScholarbenchError, match=says):
            OutputLimits.from_pairs(bad)


# -- through the engine ------------------------------------------------------------------------

@pytest.fixture
def taxo_data(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "data"))
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    assert main(["data", "import", "taxobench", str(gold)]) == 0
    return gold


def _run(tmp_path, answers: list[dict], name: str, *extra: str) -> dict:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answers))
    out = tmp_path / name
    code = main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay",
                 "--agent-arg", f"path={path}", "--out", str(out), "--quiet", *extra])
    assert code == 0
    rows = {r["id"]: r for r in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}
    return {"rows": rows, "summary": json.loads((out / "summary.json").read_text()),
            "manifest": json.loads((out / "manifest.json").read_text()), "out": out}


def test_an_oversized_answer_is_scored_as_missing_and_counted_on_its_own(taxo_data, tmp_path,
                                                                          capsys):
    wide = {"name": "root", "subtopics": [{"name": f"c{i}"} for i in range(10_000)]}
    small = {"id": "2", "taxonomy": {"name": "root", "subtopics": [{"name": "a"}]}}
    big = _run(tmp_path, [{"id": "1", "taxonomy": wide}, small], "big")
    # the same run where sample 1 has no answer at all
    none = _run(tmp_path, [small], "none")
    row = big["rows"]["1"]
    assert row["status"] == "oversized" and "more than 1,000 nodes" in row["error"]
    assert "missing" not in row
    assert big["summary"]["status"]["oversized"] == 1
    assert none["rows"]["1"]["status"] == "missing"
    for key in ("ari", "v_measure", "us_nted", "sem_path"):
        assert row.get(key) == none["rows"]["1"].get(key), key
    assert big["summary"]["metrics"] == none["summary"]["metrics"]
    assert big["manifest"]["output_limits"]["nodes"] == 1000
    generated = (big["out"] / "generate.jsonl").read_text()
    assert "c9999" not in generated            # the oversized answer is not kept
    assert "1 oversized" in capsys.readouterr().out
    # a re-score keeps the status
    assert main(["score", str(big["out"])]) == 0
    assert json.loads((big["out"] / "summary.json").read_text())["status"]["oversized"] == 1
    # and the report shows it
    html = tmp_path / "r.html"
    assert main(["report", str(big["out"]), "--html", str(html)]) == 0
    text = html.read_text()
    assert "1 oversized" in text and "more than 1,000 nodes" in text


def test_max_output_raises_a_limit_and_is_recorded(taxo_data, tmp_path):
    deep = {"name": "r", "subtopics": [{"name": "a", "subtopics": [{"name": "b"}]}]}
    low = _run(tmp_path, [{"id": "1", "taxonomy": deep}], "low", "--max-output", "depth=2")
    assert low["rows"]["1"]["status"] == "oversized"
    assert low["manifest"]["options"]["max_output"] == ["depth=2"]
    assert low["manifest"]["output_limits"]["depth"] == 2
    ok = _run(tmp_path, [{"id": "1", "taxonomy": deep}], "ok")
    assert ok["rows"]["1"]["status"] == "scored"


def test_a_bad_max_output_is_a_usage_error_before_any_run_directory(taxo_data, tmp_path,
                                                                    capsys):
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": "1", "taxonomy": {"name": "r"}}) + "\n")
    code = main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay", "--agent-arg",
                 f"path={answers}", "--out", str(tmp_path / "x"), "--max-output", "leaves=3"])
    assert code == 2 and "unknown limit(s) leaves" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_score_taxobench_files_marks_an_oversized_prediction(tmp_path, capsys):
    """The issue's case: one node with 10,000 children (69 s and 2.2 GB before limits)."""
    gold = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    ids = [json.loads(x)["id"] for x in gold.read_text().splitlines()]
    pred = tmp_path / "pred.jsonl"
    wide = {"name": "root", "children": [{"name": f"c{i}"} for i in range(10_000)]}
    label = {"name": "x" * 5_000_000}
    pred.write_text(json.dumps({"id": ids[0], "hierarchy_tree": wide}) + "\n"
                    + json.dumps({"id": ids[1], "hierarchy_tree": label}) + "\n")
    out = tmp_path / "s.jsonl"
    assert main(["score", "taxobench", "--gold", str(gold), "--pred", str(pred), "--out",
                 str(out), "--no-llm-cache"]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["oversized", "oversized", "missing", "missing",
                                           "missing"]
    assert "more than 1,000 nodes" in rows[0]["error"]
    assert "5,000,000 characters" in rows[1]["error"]
    assert "2 oversized" in capsys.readouterr().out


def test_score_reportbench_files_marks_an_oversized_report(tmp_path, capsys):
    gt = Path(__file__).parent / "data" / "reportbench" / "gt"
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"arxiv_id": "2101.00001", "report": "é" * 60}) + "\n"
                    + json.dumps({"arxiv_id": "2101.00002", "report": "short [1]."}) + "\n")
    out = tmp_path / "s.jsonl"
    assert main(["score", "reportbench", "--gt-dir", str(gt), "--pred", str(pred), "--out",
                 str(out), "--max-output", "report_bytes=100"]) == 0
    rows = {r["arxiv_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["2101.00001"]["status"] == "oversized"
    assert "120 bytes (limit report_bytes=100)" in rows["2101.00001"]["error"]
    assert rows["2101.00001"]["ref_recall"] == 0
    assert rows["2101.00002"]["status"] != "oversized"
    assert "and 1 oversized" in capsys.readouterr().out


def test_score_scinet_files_marks_an_oversized_ranking(tmp_path):
    from scinet_files import write_tiny_tasks
    from test_scinet_core import B
    from scholarbench.benchmarks.scinet.records import read_tasks
    graph, unarxive, tasks = write_tiny_tasks(tmp_path)
    pair = [t.task_id for t in read_tasks(tasks) if t.family == "pair"][:2]
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": pair[0], "papers": [B] * 4}) + "\n"
                       + json.dumps({"id": pair[1], "papers": [B]}) + "\n")
    out = tmp_path / "s.jsonl"
    assert main(["score", "scinet", "--tasks", str(tasks), "--answers", str(answers), "--out",
                 str(out), "--graph", str(graph), "--unarxive", str(unarxive),
                 "--max-output", "papers=3"]) == 0
    rows = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows[pair[0]]["status"] == "oversized"
    assert "papers lists 4 papers (limit papers=3)" in rows[pair[0]]["error"]
    assert rows[pair[1]]["status"] == "scored"
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert summary["status"]["oversized"] == 1
