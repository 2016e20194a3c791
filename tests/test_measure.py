"""Measure objects (core.measure), their intervals, and the summary rebuilt from scores alone
(core.summarise, `scholarbench aggregate`)."""
from __future__ import annotations

import json
import statistics

import pytest

from scholarbench.core.aggregate import differences, read_scores
from scholarbench.core.benchmark import Benchmark
from scholarbench.core.measure import Measure, interval
from scholarbench.core.registry import Registry
from scholarbench.core.summarise import add_intervals
from scholarbench.errors import ScholarbenchError


def rows_of(key, values, status="scored"):
    return [{"id": str(i), "status": status, key: v} for i, v in enumerate(values)]


def test_a_measure_is_its_qualified_name_and_parses_back():
    m = Measure("taxobench", "sem_path(lambda=0.5)", description="x")
    assert m.qualified == "taxobench/sem_path(lambda=0.5)" == str(m)
    assert str(m.name) == "sem_path(lambda=0.5)"
    assert Measure.split(str(m)) == ("taxobench", "sem_path(lambda=0.5)")
    assert m == Measure("taxobench", "sem_path(lambda=0.5)", description="other text")
    assert m != Measure("reportbench", "sem_path(lambda=0.5)")
    with pytest.raises(ValueError):
        Measure("taxobench", "not a name!")
    with pytest.raises(ValueError):
        Measure("a/b", "f1")


def test_two_benchmarks_may_both_name_a_measure_f1():
    reg = Registry()
    reg._benchmarks_loaded = reg._loaded = True          # no package scan in this test
    for bench in ("alpha", "beta"):
        m = Measure(bench, "f1")
        reg.add("measure", m.qualified, m)
    assert reg.names("measure") == ["alpha/f1", "beta/f1"]


def test_plain_mean_excludes_undefined_errors_and_unscorable():
    m = Measure("b", "x")
    rows = rows_of("x", [0.0, 1.0, None, 0.5]) + [
        {"id": "e", "status": "error", "x": 100.0}, {"id": "u", "status": "unscorable"}]
    assert m.value(rows) == pytest.approx(0.5)


def test_interval_brackets_the_mean_and_is_reproducible():
    values = [0.1, 0.9, 0.4, 0.6, 0.2, 0.8, 0.5, 0.3]
    rows = rows_of("x", values)
    ci = interval(Measure("b", "x"), rows)
    assert ci is not None and ci == interval(Measure("b", "x"), rows)
    low, high = ci
    assert min(values) <= low < statistics.mean(values) < high <= max(values)
    # more samples of the same spread: a narrower interval
    wide = high - low
    low2, high2 = interval(Measure("b", "x"), rows_of("x", values * 8))
    assert high2 - low2 < wide


def test_interval_degenerate_cases():
    assert interval(Measure("b", "x"), rows_of("x", [0.7])) is None
    assert interval(Measure("b", "x"), rows_of("x", [None, None])) is None
    assert interval(Measure("b", "x"), rows_of("x", [0.25, 0.25, 0.25])) == [0.25, 0.25]


def test_a_pooled_aggregator_is_resampled_as_itself():
    def pooled(rows):
        total = sum(r["n"] for r in rows)
        return sum(r["hits"] for r in rows) / total if total else None
    m = Measure("b", "micro", aggregator=pooled)
    rows = [{"id": str(i), "status": "scored", "hits": h, "n": n}
            for i, (h, n) in enumerate([(1, 10), (9, 10), (5, 10), (0, 1), (3, 4)])]
    assert m.value(rows) == pytest.approx(18 / 35)
    low, high = interval(m, rows)
    assert low <= 18 / 35 <= high and 0 <= low and high <= 1


class _Toy(Benchmark):
    name = "toy"

    def measures(self, subtask):
        return (Measure("toy", "x"),)


def test_undeclared_key_that_is_not_a_plain_mean_gets_no_interval():
    rows = rows_of("x", [0.0, 1.0, 0.5]) + [{"id": "9", "status": "scored", "y": 1.0}]
    summary = {"metrics": {"x": {"mean": 0.5, "n": 3, "n_null": 1},
                           "y": {"mean": 0.25, "n": 1, "n_null": 3},      # not the mean of y
                           "z": {"mean": None, "n": 0, "n_null": 4}}}
    add_intervals(_Toy(), summary, rows, {"mode": None})
    assert summary["metrics"]["x"]["ci95"] is not None
    assert summary["metrics"]["y"]["ci95"] is None
    assert summary["metrics"]["z"]["ci95"] is None
    assert "bootstrap" in summary["ci_method"]


def test_read_scores_names_file_line_and_field(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_text(json.dumps({"id": "1", "status": "scored"}) + "\n"
                    + json.dumps({"id": "2", "status": "fine"}) + "\n")
    with pytest.raises(ScholarbenchError, match=r"scores.jsonl, line 2, field 'status'"):
        read_scores(path, "id")
    path.write_text(json.dumps({"status": "scored"}) + "\n")
    with pytest.raises(ScholarbenchError, match=r"scores.jsonl, line 1, field 'id': missing"):
        read_scores(path, "id")
    path.write_text(json.dumps({"id": "1", "unresolved": -2}) + "\n")
    with pytest.raises(ScholarbenchError, match=r"scores.jsonl, line 1, field 'unresolved'"):
        read_scores(path, "id")


def test_differences_names_the_keys():
    assert differences({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3}, "d": 0}) == \
        ["a.c", "d"]
    assert differences({"a": [1]}, {"a": [1]}) == []


def test_the_eval_table_shows_half_the_interval_beside_the_mean():
    from scholarbench.core.status import COLUMNS
    from scholarbench.core.suite import format_table
    counts = {c: 0 for c in COLUMNS}
    counts["scored"] = 4
    entry = {"benchmark": "toy", "subtask": "a", "status": "complete", "samples": 4,
             "counts": counts, "reasons": {}, "headline": {"x": 0.5, "y": 0.25, "z": None},
             "headline_ci95": {"x": [0.4, 0.6], "y": None}}
    table = format_table([entry])
    assert "x 0.5000 ±0.1000" in table and "y 0.2500  " in table + "  " and "z —" in table
    assert "±half its 95% bootstrap interval" in table


def test_the_eval_table_prints_each_headline_as_its_measure_does():
    """A percent measure ×100 with its sign and two decimals, a count with its own decimals,
    as the report prints them; a headline key without a measure keeps four decimals."""
    from scholarbench.core.suite import headline_cells

    class Bench:
        def measures(self, subtask):
            return (Measure("toy", "recall", unit="percent"),
                    Measure("toy", "size", unit="count", decimals=1, direction="none"))

    entry = {"headline": {"recall": 0.4567, "size": 12.25, "other": 0.5, "gone": None},
             "headline_ci95": {"recall": [0.40, 0.50], "size": None, "other": [0.4, 0.6]}}
    assert headline_cells(Bench(), "a", entry) == {
        "recall": "45.67% ±5.00", "size": "12.2", "other": "0.5000 ±0.1000", "gone": "—"}


def test_the_report_cell_carries_the_interval_in_its_unit():
    from scholarbench.report.htmlkit import _with_interval
    percent = Measure("toy", "r", label="Recall", percent=True, decimals=2)
    assert percent.format_with_interval(0.5, (0.4, 0.6)) == "50.00% ±10.00"
    assert percent.format_with_interval(0.5, None) == "50.00%"
    assert percent.format_with_interval(None, (0.4, 0.6)) == "—"
    assert _with_interval("0.5000 ±0.1000") == \
        '0.5000<span class="ci" title="± half the 95% bootstrap interval"> ±0.1000</span>'
    assert _with_interval("a<b") == "a&lt;b"


def test_a_pooled_measure_defined_on_few_samples_keeps_its_interval():
    """Resampling every row would draw resamples with no defined sample (the aggregator gives
    None); `defined_on` restricts the resampling to the rows the aggregate draws on."""
    def pooled(rows):
        rows = [r for r in rows if r.get("n")]
        return sum(r["hits"] for r in rows) / sum(r["n"] for r in rows) if rows else None
    rows = [{"id": str(i), "status": "scored"} for i in range(60)] + [
        {"id": "a", "status": "scored", "hits": 1, "n": 2},
        {"id": "b", "status": "scored", "hits": 2, "n": 2}]
    bare = Measure("b", "m", aggregator=pooled)
    assert interval(bare, rows) is None
    named = Measure("b", "m", aggregator=pooled, defined_on=lambda r: bool(r.get("n")))
    low, high = interval(named, rows)
    assert low <= 3 / 4 <= high


class _Declares(Benchmark):
    """Declares two measures and never narrows them (no `rows` in `measures`)."""
    name = "declares"

    def measures(self, subtask):
        return (Measure("declares", "x"), Measure("declares", "judged"))


class _Narrows(_Declares):
    """The judge's measure only for rows that carry it (a judged run)."""
    name = "narrows"

    def measures(self, subtask, rows=None):
        declared = super().measures(subtask)
        if rows is None or any("judged" in r for r in rows):
            return declared
        return declared[:1]


def test_measures_given_the_rows_narrow_the_summary_and_nothing_else():
    from scholarbench.core.benchmark import summary_measures
    from scholarbench.core.summary_metrics import metrics
    plain = rows_of("x", [0.0, 1.0])
    judged = [{**r, "judged": 1.0} for r in plain]
    assert [m.key for m in summary_measures(_Narrows(), "s", plain)] == ["x"]
    assert [m.key for m in summary_measures(_Narrows(), "s", judged)] == ["x", "judged"]
    assert [m.key for m in _Narrows().measures("s")] == ["x", "judged"]     # rows None: all
    # a benchmark that never narrows keeps every declared measure, undefined ones counted
    assert [m.key for m in summary_measures(_Declares(), "s", plain)] == ["x", "judged"]
    assert metrics(_Declares(), plain, {"mode": "s"})["judged"] == {
        "mean": None, "n": 0, "n_null": 2}
    assert metrics(_Narrows(), plain, {"mode": "s"}) == {
        "x": {"mean": 0.5, "n": 2, "n_null": 0}}
    assert metrics(_Narrows(), judged, {"mode": "s"})["judged"]["mean"] == 1.0
