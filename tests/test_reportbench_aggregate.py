"""ReportBench's summary from its score rows alone (issue 25): the declared measures and their
micro (pooled) aggregators on hand-computed rows, and for every sub-task a small run whose
summary.json `scholarbench aggregate --check` rebuilds exactly with an empty data dir and no
corpus, ground truth or judge — every metric with its `ci95`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholarbench.benchmarks.reportbench import ReportBench
from scholarbench.benchmarks.reportbench.measures import (BY_KEY, MEASURES, family_of, is_pooled,
                                                         keys)
from scholarbench.core.aggregate import cmd_aggregate, differences, rebuild
from scholarbench.core.registry import REGISTRY
from scholarbench.core.summarise import summarise
from test_reportbench_llm import fake  # noqa: F401
from test_reportbench_run import Factory, config, corpus_dir, run_reportbench, server  # noqa: F401


def _row(sid, status, matched=None, count=None, gt_matched=None, n_gt=0, **extra):
    row = {"id": sid, "arxiv_id": sid, "status": status, "n_gt": n_gt}
    if count is not None:
        row.update(ref_precision=matched / count if count else 0.0,
                   ref_recall=gt_matched / n_gt if n_gt else 0.0, ref_count=count,
                   n_matched=matched, n_gt_matched=gt_matched)
    else:
        row.update(ref_precision=None, ref_recall=None, ref_count=None)
    row.update(extra)
    return row


def _judged(matched, checked, unreachable, correct, incorrect, tie):
    rate = matched / (checked + unreachable) if checked + unreachable else None
    return {"statements": "judged", "n_cited_matched": matched, "n_cited_checked": checked,
            "n_cited_unreachable": unreachable, "n_noncited_correct": correct,
            "n_noncited_incorrect": incorrect, "n_noncited_tie": tie,
            "cited_match_rate": rate,
            "cited_match_rate_checkable": matched / checked if checked else None,
            "noncited_accuracy": correct / (correct + incorrect) if correct + incorrect
            else None,
            "noncited_accuracy_upstream": (correct / (correct + incorrect + tie)
                                           if correct + incorrect + tie else None)}


# A: 1 of 2 refs match, 1 of 3 GT; B: 3 of 3, 3 of 4; C: no report (0, counted, GT 2);
# D errored and E unscored: in no aggregate (their n_gt would change the pooled recall).
ROWS = [
    _row("A", "scored", 1, 2, 1, 3, **_judged(2, 3, 1, 4, 1, 1)),
    _row("B", "scored", 3, 3, 3, 4, **_judged(0, 0, 2, 0, 0, 1)),
    _row("C", "missing", 0, 0, 0, 2, statements="not judged (no report)"),
    _row("D", "error", n_gt=5, statements="not judged (no report)"),
    _row("E", "unscored", n_gt=7, statements="not judged (no prompt)"),
]
HAND = {"ref_precision_micro": 4 / 5,                 # (1 + 3 + 0) / (2 + 3 + 0)
        "ref_recall_micro": 4 / 9,                    # (1 + 3 + 0) / (3 + 4 + 2)
        "cited_match_rate_micro": 2 / 6,              # 2 / ((3 + 1) + (0 + 2))
        "cited_match_rate_checkable_micro": 2 / 3,    # 2 / (3 + 0)
        "noncited_accuracy_micro": 4 / 5,             # 4 / (4 + 1)
        "noncited_accuracy_upstream_micro": 4 / 7}    # 4 / (4 + 1 + 1 + 1)


@pytest.mark.parametrize("key", sorted(HAND))
def test_each_micro_aggregator_is_the_hand_computed_pooled_ratio(key):
    assert BY_KEY[key].aggregator is not None
    assert BY_KEY[key].value(ROWS) == pytest.approx(HAND[key], abs=1e-15)


def test_the_summary_reports_every_measure_with_the_measures_own_value_and_an_interval():
    manifest = {"benchmark": "reportbench", "mode": "shipped", "agent": "replay"}
    summary = summarise(ReportBench({}), ROWS, manifest, warn=False)
    metrics = summary["metrics"]
    assert list(metrics) == [s.key for s in MEASURES]
    for key, value in HAND.items():
        assert metrics[key]["mean"] == pytest.approx(value, abs=1e-15), key
    # each pooled ratio resamples the surveys it draws on (`defined_on`): the counted ones
    # (A, B, C) for the reference ratios; for a statement rate the judged reports with an item
    # in its denominator — A and B for Match Rate (resamples AA 2/4, AB 2/6, BB 0/2), A alone
    # for Match Rate (checkable) and Factual Acc: one report, no interval
    low, high = metrics["ref_precision_micro"]["ci95"]
    assert 0.0 <= low <= 4 / 5 <= high <= 1.0
    assert metrics["ref_recall_micro"]["ci95"] is not None
    low, high = metrics["cited_match_rate_micro"]["ci95"]
    assert 0.0 <= low <= 2 / 6 <= high <= 0.5
    assert metrics["noncited_accuracy_upstream_micro"]["ci95"] is not None
    assert metrics["cited_match_rate_checkable_micro"]["ci95"] is None
    assert metrics["noncited_accuracy_micro"]["ci95"] is None
    # the summary's micro blocks are the same numbers
    assert summary["micro"] == {"ref_precision": metrics["ref_precision_micro"]["mean"],
                                "ref_recall": metrics["ref_recall_micro"]["mean"]}
    for rate in keys("statement"):
        assert summary["statements"]["micro"][rate] == metrics[f"{rate}_micro"]["mean"]
    # the per-survey means differ from the pooled ones: macro Match Rate (2/4 + 0/2) / 2
    assert metrics["cited_match_rate"]["mean"] == pytest.approx(0.25)
    assert (metrics["cited_match_rate"]["n"], metrics["cited_match_rate"]["n_null"]) == (2, 1)
    assert metrics["ref_precision"]["mean"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert (metrics["ref_precision_micro"]["n"], metrics["ref_recall"]["n_null"]) == (3, 0)
    assert all("ci95" in m for m in metrics.values())


def test_without_statements_the_statement_measures_are_not_reported():
    rows = [{k: v for k, v in r.items() if k not in _judged(0, 0, 0, 0, 0, 0)}
            for r in ROWS]
    manifest = {"benchmark": "reportbench", "mode": "shipped", "agent": "replay"}
    metrics = summarise(ReportBench({}), rows, manifest, warn=False)["metrics"]
    assert list(metrics) == list(keys("reference", pooled=None))


def test_the_measures_are_registered_under_the_benchmark():
    for shown in MEASURES:
        assert REGISTRY.find("measure", f"reportbench/{shown.key}") is shown
    assert set(ReportBench({}).measures("shipped")) == set(MEASURES)
    assert ReportBench.judge_scored == tuple(s.key for s in MEASURES
                                             if family_of(s) == "statement")


# ---------------------------------------------------------------- runs rebuilt from scores.jsonl

def _check_rebuilt(out: Path, monkeypatch, tmp_path) -> dict:
    """Rebuild with an empty data dir, and no corpus or ground truth openable: identical."""
    empty = tmp_path / "empty-data"
    empty.mkdir()
    monkeypatch.setenv("SCHOLARBENCH_DATA", str(empty))

    def refuse(*args, **kwargs):
        raise AssertionError("aggregate read the corpus or the ground truth")
    monkeypatch.setattr("scholarbench.benchmarks.reportbench.scoring.open_corpus", refuse)
    monkeypatch.setattr("scholarbench.benchmarks.reportbench.ground_truth.load_ground_truth",
                        refuse)
    own = json.loads((out / "summary.json").read_text())
    rebuilt, _ = rebuild(out)
    assert differences(json.loads(json.dumps(rebuilt)), own) == []
    assert cmd_aggregate(type("Args", (), {"run_dir": str(out), "check": True})()) == 0
    assert all("ci95" in m for m in own["metrics"].values())
    return own


def test_a_judged_shipped_run_with_llm_titles_is_rebuilt_from_its_scores(
        server, corpus_dir, tmp_path, monkeypatch):  # noqa: F811
    reports = tmp_path / "reports.jsonl"       # [1] only the title extractor resolves
    reports.write_text(json.dumps({"arxiv_id": "2101.00001",
                                   "report": "Transformers [1] and more [2]."}) + "\n")
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    run_reportbench(config(out, corpus_dir, agent_params={"path": str(reports)},
                           statements=True, llm_titles=True), factory)
    own = _check_rebuilt(out, monkeypatch, tmp_path)
    # what score() alone knew is in the rows now: the title extractor's counts, summed
    assert own["title_extractor"]["reports"] == 1 and own["title_extractor"]["titles"] == 1
    assert "statements" in own
    assert {k for k in own["metrics"]} == {s.key for s in MEASURES}
    assert own["metrics"]["ref_precision"]["ci95"] is not None


@pytest.mark.parametrize("granularity", ["sentence", "paragraph", "detail"])
def test_a_constructed_prompt_run_is_rebuilt_from_its_scores(
        granularity, server, corpus_dir, tmp_path, monkeypatch):  # noqa: F811
    out = tmp_path / "run"
    factory = Factory(server, tmp_path / "cache.sqlite")
    run_reportbench(config(out, corpus_dir, granularity=granularity), factory)
    own = _check_rebuilt(out, monkeypatch, tmp_path)
    assert own["granularity"] == granularity and own["prompts"]["n"] == 2
    assert set(own["metrics"]) == set(keys("reference", pooled=None))


def test_the_key_lists_are_the_declared_measures():
    """One declaration: the row keys, rates, headline, report columns and `score reportbench`
    means all follow `measures.MEASURES` (a measure added there shows up in each)."""
    from scholarbench.benchmarks.reportbench import score_files, scoring, section
    from scholarbench.benchmarks.reportbench.benchmark import REF_HEADLINE
    from scholarbench.benchmarks.reportbench.statement_rows import STATEMENT_RATES
    per_survey = [s for s in MEASURES if not is_pooled(s)]
    assert scoring.REF_KEYS == score_files.METRICS == section.REF_KEYS == tuple(
        s.key for s in per_survey if family_of(s) == "reference") == REF_HEADLINE
    assert STATEMENT_RATES == section.RATES == tuple(
        s.key for s in per_survey if family_of(s) == "statement")
    for s in MEASURES:
        shown = section.COLUMNS[s.key]
        assert (shown.label, shown.decimals, shown.percent) == (s.label, s.decimals,
                                                                s.percent)
