"""`score_reportbench_files`: both prediction forms, every GT survey written, missing /
malformed / duplicate / unknown lines counted (never dropped, never a crash), the summary."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.benchmarks.reportbench import (ExtractedTitle, format_summary, load_ground_truth,
                                                 score_reportbench_files)

GT_DIR = Path(__file__).parent / "data" / "reportbench" / "gt"

REPORT = """# Report

Transformers [1] and ResNets [2] (He et al., 2016).

## References

[1] Vaswani, A. (2017). Attention is all you need. NeurIPS. https://arxiv.org/abs/1706.03762.
[2] He, K., Zhang, X. (2016). Deep residual learning for image recognition. CVPR.
[3] Someone, S. (2020). A paper that is not in the ground truth. Venue.
"""


def _write(path: Path, lines: list) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n",
                    encoding="utf-8")
    return path


def _rows(path: Path) -> dict[str, dict]:
    return {r["arxiv_id"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_both_forms_and_every_count(tmp_path):
    pred = _write(tmp_path / "p.jsonl", [
        {"arxiv_id": "2101.00001", "report": REPORT},
        {"arxiv_id": "arXiv:2101.00002v3", "references": [
            {"title": "Adam: a method for stochastic optimization", "authors": ["Kingma"],
             "is_academic_paper": True},
            {"title": "A blog post", "is_academic_paper": False},
            {"title": "Adam: A Method for Stochastic Optimization."}]},
        "{not json",
        {"arxiv_id": "2101.00001", "report": "a duplicate line"},
        {"arxiv_id": "2999.00001", "report": "a survey not in the GT"},
        {"arxiv_id": "2101.00003", "report": "x", "model": "extra key"},
        {"arxiv_id": "2101.00003", "references": [{"name": "bad item"}]},
        {"report": "no id"},
        [1, 2],
        {"arxiv_id": "2101.00003", "report": "r", "references": []},
    ])
    out = tmp_path / "s.jsonl"
    summary = score_reportbench_files(GT_DIR, pred, out)
    rows = _rows(out)
    assert list(rows) == ["2101.00001", "2101.00002", "2101.00003"]
    one = rows["2101.00001"]
    # GT: 3 distinct titles (the two "Deep residual learning" lines are one); report: 3 refs
    assert (one["ref_precision"], one["ref_recall"], one["ref_count"], one["n_gt"]) == (
        2 / 3, 2 / 3, 3, 3)
    assert one["status"] == "scored" and one["pred_line"] == 1 and one["input"] == "report"
    two = rows["2101.00002"]
    assert (two["ref_precision"], two["ref_recall"], two["ref_count"], two["n_gt"]) == (
        1.0, 0.5, 1, 2)
    assert two["n_not_academic"] == 1
    three = rows["2101.00003"]
    assert (three["status"], three["ref_precision"], three["ref_recall"]) == ("malformed", 0, 0)
    assert summary["n_surveys"] == 3 and summary["n_predicted"] == 2
    assert summary["n_malformed_lines"] == 6
    assert [m["line"] for m in summary["malformed"]] == [3, 6, 7, 8, 9, 10]
    reasons = " | ".join(m["reason"] for m in summary["malformed"])
    for part in ("not valid JSON", "unknown key(s) ['model']", "references[0]: unknown key",
                 "no 'arxiv_id'", "expected a JSON object", "exactly one of"):
        assert part in reasons
    assert summary["duplicates"] == [{"line": 4, "arxiv_id": "2101.00001", "first_line": 1}]
    assert summary["unknown"] == [{"line": 5, "arxiv_id": "2999.00001"}]
    assert summary["means"]["ref_precision"] == pytest.approx((2 / 3 + 1.0 + 0) / 3)
    assert summary["means_scored"]["ref_recall"] == pytest.approx((2 / 3 + 0.5) / 2)
    assert summary["micro"] == {"ref_precision": 3 / 4, "ref_recall": 3 / 6}
    # the run's measures, aggregated as a run aggregates them, each with its interval
    metrics = summary["metrics"]
    assert metrics["ref_precision"]["mean"] == summary["means"]["ref_precision"]
    assert metrics["ref_precision_micro"]["mean"] == 3 / 4      # (2 + 1 + 0) / (3 + 1 + 0)
    assert metrics["ref_recall_micro"]["mean"] == 3 / 6         # (2 + 1 + 0) / (3 + 2 + 1)
    assert all(m["ci95"] is not None for m in metrics.values())
    assert rows["2101.00001"]["n_gt_matched"] == 2 and rows["2101.00003"]["n_gt_matched"] == 0
    # it is a run's summary of the rows written (core.summarise), with the files' counts added
    assert (summary["mode"], summary["agent"], summary["n_samples"]) == ("files", "p", 3)
    assert summary["status"]["scored"] == 2 and summary["status"]["malformed"] == 1
    assert summary["n_refs"] == one["n_found"] + two["n_found"] and "ci_method" in summary
    text = format_summary(summary)
    assert "3 surveys, 2 with a prediction" in text and "6 malformed" in text
    assert "1 duplicate" in text and "malformed line 3: not valid JSON" in text


def test_missing_surveys_score_zero_and_are_listed(tmp_path):
    pred = _write(tmp_path / "p.jsonl", [{"arxiv_id": "2101.00002", "report": "No refs."}])
    summary = score_reportbench_files(GT_DIR, pred, tmp_path / "s.jsonl")
    rows = _rows(tmp_path / "s.jsonl")
    assert summary["missing_ids"] == ["2101.00001", "2101.00003"]
    assert rows["2101.00002"]["status"] == "no_references"
    assert summary["n_no_references"] == 1
    assert rows["2101.00001"]["reason"] == "no answer"          # as a run's row says why
    assert rows["2101.00002"]["reason"] == "no references in the answer"
    assert summary["status"]["missing"] == 2
    assert summary["means"] == {"ref_precision": 0.0, "ref_recall": 0.0, "ref_count": 0.0}
    assert "2 missing" in format_summary(summary)


def test_empty_prediction_file(tmp_path):
    pred = _write(tmp_path / "p.jsonl", [""])
    summary = score_reportbench_files(GT_DIR, pred, tmp_path / "s.jsonl")
    assert summary["n_missing"] == 3 and summary["means_scored"]["ref_precision"] is None
    assert "—" in format_summary(summary)


def test_options_and_extractor(tmp_path):
    pred = _write(tmp_path / "p.jsonl", [
        {"arxiv_id": "2101.00003", "report": "See https://example.org/lime.pdf and "
                                             "arXiv:9999.00001."}])
    plain = score_reportbench_files(GT_DIR, pred, tmp_path / "a.jsonl")
    assert plain["references"]["unresolved"] == 2
    assert _rows(tmp_path / "a.jsonl")["2101.00003"]["status"] == "no_references"

    def extractor(report, unresolved):
        return [ExtractedTitle("Why should I trust you? Explaining the predictions of any "
                               "classifier", 0)]

    hooked = score_reportbench_files(GT_DIR, pred, tmp_path / "b.jsonl",
                                     title_extractor=extractor)
    row = _rows(tmp_path / "b.jsonl")["2101.00003"]
    assert (row["ref_precision"], row["ref_recall"], row["ref_count"]) == (1.0, 1.0, 1)
    miss = score_reportbench_files(GT_DIR, pred, tmp_path / "c.jsonl",
                                   title_extractor=extractor, unresolved="miss")
    assert _rows(tmp_path / "c.jsonl")["2101.00003"]["ref_precision"] == 0.5
    assert miss["options"]["unresolved"] == "miss" and hooked["options"]["title_extractor"]


def test_corpus_directory_is_accepted(tmp_path):
    from scholarbench.corpus.build import build
    from scholarbench.data.sources.records import PaperRecord
    build(tmp_path / "c", [("t", [PaperRecord("t", ("arxiv:1706.03762",),
                                              "Attention Is All You Need", "", 2017)])], {})
    pred = _write(tmp_path / "p.jsonl", [{"arxiv_id": "2101.00001",
                                          "report": "Only https://arxiv.org/abs/1706.03762v5."}])
    summary = score_reportbench_files(GT_DIR, pred, tmp_path / "s.jsonl", corpus=tmp_path / "c")
    row = _rows(tmp_path / "s.jsonl")["2101.00001"]
    assert (row["ref_precision"], row["n_resolved"]) == (1.0, 1)
    assert summary["options"]["corpus"].endswith("c")


def test_real_ground_truth_perfect_and_empty_predictions(tmp_path):
    rb = shared_path("data", "reportbench")
    gt = load_ground_truth(rb)
    lines = [{"arxiv_id": s, "references": [{"title": r.title} for r in refs]}
             for s, refs in sorted(gt.items())[:50]]
    pred = _write(tmp_path / "p.jsonl", lines)
    summary = score_reportbench_files(rb, pred, tmp_path / "s.jsonl")
    rows = list(_rows(tmp_path / "s.jsonl").values())
    assert len(rows) == 100 and summary["n_missing"] == 50
    assert all(r["ref_precision"] == r["ref_recall"] == 1.0 for r in rows[:50])
    assert all(r["ref_count"] == r["n_gt"] for r in rows[:50])
    assert summary["means"]["ref_recall"] == pytest.approx(0.5)
    assert summary["means_scored"]["ref_precision"] == 1.0
