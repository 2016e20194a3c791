"""The leakage audit in the reports (docs/leakage.md, docs/reports.md): the HTML drill-downs
of ReportBench, TaxoBench Deep Research and ResearchArena discovery mark exactly the items of a
scripted answer the audit counted (the survey, papers after the cut-off, excluded papers), with
the rule's label; the sample's rows carry a `suspected leak` badge; older rows with counts only
render without marks; the Markdown leaderboard notes the flagged samples and the means without
them."""
from __future__ import annotations

import json
import re
from pathlib import Path

from test_leakage import AGENT, SURVEYS, setup  # noqa: F401  (fixture)
from test_leakage_rb_ra import ra_inputs, rb_inputs  # noqa: F401  (fixtures)

MARK = re.compile(r'<li class="[^"]*\bleak\b[^"]*"[^>]*data-rule="(\w+)"[^>]*>(.*?)'
                  r'<span class="leak-tag"', re.S)
FINDINGS = re.compile(r'<div class="leak-findings".*?</div>', re.S)


def test_findings_record_each_counted_reference_once_with_its_position_and_rule():
    from datetime import date
    from scholarbench.leakage import AnswerKey, Cited, findings
    from scholarbench.leakage.marks import LeakMarks
    key = AnswerKey(titles=("A Survey of Graph Neural Networks for Molecules",),
                    ids=("10.1145/3744238",), cutoff=date(2024, 3, 1),
                    abstract=" ".join(f"w{i}" for i in range(20)))
    papers = ["Clean paper", "https://doi.org/10.1145/3744238", "2403.00001", "2403.00001",
              Cited("P9", titles=("Another survey",), excluded=True)]
    found = findings(key, papers, "x " + " ".join(f"w{i}" for i in range(3, 16)) + " y")
    assert found.counts == {"survey": 1, "after_cutoff": 1, "excluded": 1,
                            "abstract_words": 13}
    assert [(i["rule"], i["index"], i["ref"]) for i in found.items] == [
        ("survey", 1, "https://doi.org/10.1145/3744238"), ("after_cutoff", 2, "2403.00001"),
        ("excluded", 4, "P9")]                                  # the repeat counted once
    assert found.spans == (" ".join(f"w{i}" for i in range(3, 16)),)
    row = found.row()
    assert set(row) == {"suspected_leak", "leaked_items", "leaked_spans"}
    assert findings(key, ["Clean paper"]).row() == {}
    marks = LeakMarks(row)
    assert marks.rule_for("2403.00001") == "after_cutoff"
    assert marks.rule_for(None, ["ANOTHER SURVEY"]) == "excluded"
    assert marks.rule_for("X", [], ["DOI:10.1145/3744238"]) == "survey"   # by an id, any spelling
    assert marks.rule_for("Clean paper") is None and not LeakMarks({"suspected_leak": {}})


def _html(*runs: Path) -> str:
    from scholarbench.report.html import render_html_report
    from scholarbench.report.sections.base import load_report_runs
    return render_html_report(load_report_runs(list(runs)))


def _sample(html: str, sid: str) -> str:
    start = html.index(f'<details class="sample" data-sample="{sid}"')
    end = html.find('<details class="sample"', start + 1)
    return html[start:end if end > 0 else None]


def marks_in_place(part: str) -> list[tuple[str, str]]:
    """(rule, text) of every item marked where the answer lists it (the findings block,
    which lists every finding, left out)."""
    return [(rule, re.sub(r"<[^>]+>", "", text).strip())
            for rule, text in MARK.findall(FINDINGS.sub("", part))]


def badges(part: str) -> set[str]:
    return set(re.findall(r'class="leak-badge" data-leak="([^"]*)"', part))


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _strip_items(run: Path) -> None:
    """The run's rows as an older version wrote them: counts, no item lists."""
    rows = _rows(run / "scores.jsonl")
    for row in rows:
        row.pop("leaked_items", None)
        row.pop("leaked_spans", None)
    (run / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_reportbench_drilldown_marks_the_survey_by_doi_and_the_later_papers_only(
        tmp_path, rb_inputs, monkeypatch):  # noqa: F811
    from scholarbench.cli import main
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "no-data"))
    folder, gt, corpus, answers = rb_inputs
    out = tmp_path / "run"
    assert main(["run", "reportbench", "--agent", "replay", "--agent-arg", f"path={answers}",
                 "--tasks", str(folder), "--gt-dir", str(gt), "--corpus", str(corpus),
                 "--out", str(out)]) == 0
    rows = {r["arxiv_id"] if "arxiv_id" in r else r["id"]: r
            for r in _rows(out / "scores.jsonl")}
    # the row records which references were counted (by the scorer's index) and the spans
    assert [(i["rule"], i["index"], i["label"]) for i in rows["2102.00001"]["leaked_items"]] \
        == [("survey", 1, "[2] Sequence survey")]
    assert rows["2102.00005"]["leaked_spans"] == [
        "attention based sequence models and residual convolutional networks and show how "
        "both ideas combine"]
    assert "leaked_items" not in rows["2102.00004"]
    html = _html(out)
    survey, later, clean = (_sample(html, s) for s in ("2102.00001", "2102.00003",
                                                        "2102.00004"))
    assert marks_in_place(survey) == [("survey", "Sequence survey")]        # by its DOI
    assert marks_in_place(later) == [("after_cutoff", "A later paper"),
                                     ("after_cutoff", "A paper of the month")]
    assert marks_in_place(clean) == [] and 'class="leak' not in clean
    assert badges(survey) == {"survey 1"} and badges(later) == {"after cut-off 2"}
    assert "leak: the survey itself" in survey and "leak: after the cut-off" in later
    # the report text's finding: the verbatim span of the abstract, shown
    copied = _sample(html, "2102.00005")
    assert marks_in_place(copied) == [] and badges(copied) == {"abstract words 14"}
    assert "<q>attention based sequence models and residual convolutional networks and show " \
           "how both ideas combine</q>" in FINDINGS.search(copied).group(0)
    # the run's row in the runs table and the note under the leaderboards
    assert "4 suspected leak" in html
    assert re.search(r": 4 samples suspected of leakage \(papers or text only the answer key "
                     r"could give; docs/leakage.md\); without the 4 samples", html)
    # an older run's rows (counts only): badges, no marks, and the block says why
    _strip_items(out)
    old = _sample(_html(out), "2102.00001")
    assert marks_in_place(old) == [] and badges(old) == {"survey 1"}
    assert "record the counts only" in old


def test_researcharena_drilldown_marks_the_survey_later_papers_and_a_survey(
        tmp_path, ra_inputs, monkeypatch):  # noqa: F811
    from scholarbench.cli import main
    from test_leakage_rb_ra import S, E, L
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(tmp_path / "no-data"))
    surveys, corpus, answers = ra_inputs
    out = tmp_path / "run"
    assert main(["run", "researcharena", "--task", "discovery", "--agent", "replay",
                 "--agent-arg", f"path={answers}", "--corpus", str(corpus), "--tasks-from",
                 str(surveys), "--out", str(out)]) == 0
    rows = {r["id"]: r for r in _rows(out / "scores.jsonl")}
    pid = {i["rule"]: [] for i in rows["102"]["leaked_items"]}
    for item in rows["102"]["leaked_items"]:
        pid[item["rule"]].append(item["index"])
    # ranking [L, A, E, C, 2107.00001]: L and the unknown July id after the cut-off, E a survey
    assert pid == {"after_cutoff": [0, 4], "excluded": [2]}
    html = _html(out)
    survey, later, clean = (_sample(html, s) for s in ("100", "102", "103"))
    # 100 named the survey by its arXiv id with a version: its corpus entry is marked
    assert marks_in_place(survey) == [("survey", f"· {S} Graph learning: a survey (2021)")]
    assert marks_in_place(later) == [
        ("after_cutoff", f"· {L} Graph benchmarks later (2022)"),
        ("excluded", f"· {E} A survey of graph methods (2019)"),
        ("after_cutoff", "· 2107.00001")]                   # unknown to the corpus: as written
    assert marks_in_place(clean) == [] and 'class="leak' not in clean
    assert badges(survey) == {"survey 1"} and badges(later) == {"after cut-off 2, excluded 1"}
    assert "leak: excluded by the task&#x27;s rule" in later


def test_researcharena_marks_an_unresolved_title_at_its_placeholder():
    """A REF the corpus did not resolve is `unresolved:<rank>` in the ranking; the audit
    records that entry, so the drill-down marks it, with the REF's text as its title."""
    from datetime import date
    from types import SimpleNamespace
    from scholarbench.benchmarks.researcharena.leakage import leak_findings
    from scholarbench.leakage.marks import LeakMarks
    from test_leakage_rb_ra import A, S
    task = SimpleNamespace(topic="Graph learning: a survey", survey_id=S,
                           cutoff=date(2021, 6, 15))
    found = leak_findings(task, [A, "unresolved:2", "2107.00001", "unresolved:4"], None,
                          ["Some other paper", "2107.00001", "GRAPH LEARNING - A SURVEY."])
    assert [(i["rule"], i["ref"], i["index"]) for i in found.items] == [
        ("after_cutoff", "2107.00001", 2), ("survey", "unresolved:4", 3)]
    marks = LeakMarks(found.row())
    assert marks.rule_for("unresolved:4") == "survey" and marks.rule_for("unresolved:2") is None


def test_taxobench_drilldown_marks_the_survey_in_the_model_tree_only(
        tmp_path, setup):  # noqa: F811
    from scholarbench.cli import main
    gold, corpus = setup
    out = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "deep-research", "--agent", AGENT, "--gold",
                 str(gold), "--corpus", str(corpus), "--out", str(out)]) == 0
    html = _html(out)
    by_id, by_title, clean = (_sample(html, s) for s in "123")
    # 1 named the survey by its corpus id (recorded as its corpus title), 2 by a subtitled
    # title; both marked in the model tree, nothing in the expert tree or in 3
    assert marks_in_place(by_id) == [("survey", "·" + SURVEYS["1"])]
    assert [r for r, _ in marks_in_place(by_title)] == ["survey"]
    assert "Uncertainty Quantification of Large Language Models: Taxonomy" in \
        marks_in_place(by_title)[0][1]
    assert marks_in_place(clean) == [] and 'class="leak' not in clean
    assert badges(by_id) == {"survey 1"}
    tree = by_id[by_id.index('class="tree tree-model"'):]
    assert 'class="paper other leak"' in tree
    expert = by_id[by_id.index('class="tree tree-expert"'):by_id.index('class="tree tree-model"')]
    assert 'leak"' not in expert and "leak-tag" not in expert


def test_markdown_and_terminal_leaderboards_note_the_flagged_samples(
        tmp_path, setup):  # noqa: F811
    from scholarbench.cli import main
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.sections.base import load_report_runs
    gold, corpus = setup
    out = tmp_path / "run"
    assert main(["run", "taxobench", "--mode", "deep-research", "--agent", AGENT, "--gold",
                 str(gold), "--corpus", str(corpus), "--out", str(out)]) == 0
    runs = load_report_runs([out])
    for fmt in ("markdown", "terminal"):
        text = leaderboard_text(runs, fmt)
        # by hand (test_leakage): without samples 1 and 2, recall 0.75, precision 0.8333
        assert "2 samples suspected of leakage" in text, fmt
        assert "without the 2 samples suspected of leakage (docs/leakage.md): recall 0.7500 " \
               "(n=2), precision 0.8333 (n=2)" in text, fmt
