"""ReportBench statement rates against upstream's `metrics_calculator.py` @ 1826140
(ByteDance-BandAI/ReportBench), on hand cases; docs/reportbench.md §13 states the mapping."""
from __future__ import annotations

import pytest

from scholarbench.benchmarks.reportbench.section import ReportBenchSection
from scholarbench.benchmarks.reportbench.statement_rows import (aggregate_statement_rows,
                                                                statement_row)


def _row(checked, matched, unreachable, correct, incorrect, tie):
    return statement_row({
        "cited_match_rate": matched / (checked + unreachable),
        "cited_match_rate_checkable": matched / checked,
        "noncited_accuracy": correct / (correct + incorrect),
        "noncited_accuracy_upstream": correct / (correct + incorrect + tie),
        "n_cited": checked + unreachable, "n_cited_checked": checked,
        "n_cited_matched": matched, "n_cited_unreachable": unreachable,
        "n_noncited": correct + incorrect + tie, "n_noncited_correct": correct,
        "n_noncited_incorrect": incorrect, "n_noncited_tie": tie})


def test_upstream_rates_on_a_hand_case():
    # report A: 4 sources read, 2 support, 1 unreadable; 3 correct, 1 incorrect, 1 tie
    # report B: 2 read, 2 support, 3 unreadable; 1 correct, 1 incorrect
    stats = aggregate_statement_rows([_row(4, 2, 1, 3, 1, 1), _row(2, 2, 3, 1, 1, 0)])
    # upstream alignment_rate per report: A 2/4, B 2/2 -> avg_alignment_rate 0.75;
    # overall_alignment_rate = (2 + 2) / (4 + 2)
    assert stats["cited_match_rate_checkable"]["mean"] == pytest.approx(0.75)
    assert stats["micro"]["cited_match_rate_checkable"] == pytest.approx(4 / 6)
    # ours, the unreadable sources as mismatches: A 2/5, B 2/5; pooled 4/10
    assert stats["cited_match_rate"]["mean"] == pytest.approx(0.4)
    assert stats["micro"]["cited_match_rate"] == pytest.approx(0.4)
    # upstream no_citations_accuracy per report (ties in): A 3/5, B 1/2 -> avg 0.55;
    # overall_no_citations_accuracy (ties out) = 4 / (4 + 2)
    assert stats["noncited_accuracy_upstream"]["mean"] == pytest.approx(0.55)
    assert stats["micro"]["noncited_accuracy"] == pytest.approx(4 / 6)


def test_the_report_says_which_match_rate_the_published_one_is():
    notes = ReportBenchSection().footnotes([object()])
    assert any("Match Rate (checkable)" in n and "metrics_calculator.py @ 1826140" in n
               for n in notes)
    assert ReportBenchSection().footnotes([object()], published=False) == []
