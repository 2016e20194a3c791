"""A measure carries its own display (issue 36): label, direction, percent, decimals, sign and
bounds live on `core.measure.Measure`, and a direction of "none" draws no arrow anywhere."""
from __future__ import annotations

import pytest

from scholarbench.core.display import arrow, best_directions
from scholarbench.core.measure import Measure
from scholarbench.report.compare import MetricComparison, favours, format_comparison


def test_the_display_defaults_follow_the_unit():
    percent = Measure("toy", "acc", label="Acc", unit="percent")
    assert (percent.percent, percent.decimals, percent.bounds) == (True, 2, (0.0, 1.0))
    fraction = Measure("toy", "rate", unit="fraction")
    assert (fraction.percent, fraction.decimals, fraction.bounds) == (False, 4, (0.0, 1.0))
    count = Measure("toy", "n", unit="references")
    assert count.bounds == (None, None)
    own = Measure("toy", "x", percent=True, decimals=1, sign="", bounds=(None, 1.0))
    assert own.format(0.4523) == "45.2" and own.bounds == (None, 1.0)
    assert own == Measure("toy", "x")          # display is no part of the identity


def test_a_direction_of_none_draws_no_arrow_and_has_no_best():
    up = Measure("toy", "acc", label="Acc")
    down = Measure("toy", "dist", label="Dist", direction="lower")
    none = Measure("toy", "n", label="N", direction="none")
    assert (up.header(), down.header(), none.header()) == ("Acc↑", "Dist↓", "N")
    assert (up.higher_is_better, down.higher_is_better, none.higher_is_better) == \
        (True, False, None)
    assert not none.directional and arrow("none") == ""
    assert best_directions([up, down, none]) == {"acc": True, "dist": False}
    with pytest.raises(ValueError, match="direction"):
        Measure("toy", "bad", direction="up")       # type: ignore[arg-type]


def test_compare_draws_none_without_an_arrow_and_favours_no_run():
    count = MetricComparison("n", "N", None, 5, 0, 1.0, 3.0, 2.0, 1.5, 2.5, 0.001, True)
    rate = MetricComparison("acc", "Acc", True, 5, 0, 0.1, 0.3, 0.2, 0.1, 0.3, 0.001, True)
    assert favours(count) == "—" and favours(rate) == "B"

    class Result:
        name_a = name_b = run_a = run_b = "r"
        benchmark, mode_a, mode_b = "toy", "m", "m"
        warnings: list[str] = []
        n_shared, n_only_a, n_only_b, n_boot, seed = 5, 0, 0, 10, 0
        metrics = [count, rate]
        displays: dict = {}
        judge_rankings: dict = {}
    table = format_comparison(Result(), "markdown")      # type: ignore[arg-type]
    assert "| n | 5 |" in table and "| acc↑ | 5 |" in table


def test_taxobench_tables_draw_a_directionless_measure_without_an_arrow(monkeypatch):
    """TaxoBench's tables drew any measure not "higher" with ↓ (issue 36)."""
    from scholarbench.benchmarks.taxobench import tables
    count = Measure("taxobench", "n_nodes", label="Nodes", direction="none", decimals=2)
    monkeypatch.setitem(tables.BY_KEY, "n_nodes", count)
    assert tables._header("n_nodes") == "Nodes"
    assert tables._header("us_ted") == "US-TED↓" and tables._header("f1") == "F1↑"
    assert tables.format_value("f1", 0.2092) == "20.92%"
    assert tables.format_value("us_ted", 29.256) == "29.26"


def test_reportbench_draws_ref_num_and_its_counts_without_an_arrow_or_a_best():
    """ReportBench drew its directionless Ref Num ↑ and bolded the largest (issue 36)."""
    from scholarbench.benchmarks.reportbench import section
    assert section.COLUMNS["ref_count"].header() == "Ref Num"
    assert section.COLUMNS["n_cited"].header() == "Count (cited)"
    assert section.COLUMNS["ref_precision"].header() == "Precision↑"
    best = best_directions(section.COLUMNS.values())
    assert "ref_count" not in best and "n_cited" not in best and best["ref_recall"] is True
