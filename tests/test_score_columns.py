"""Rows as columns (issue 37): scores.jsonl read once, its measures, pooled sums, status counts
and judge panels computed from columns — and every summary byte for byte what the rows gave.
tests/data/runs-columns holds runs whose summary.json was written before this change (their
README says how)."""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from scholarbench.core.aggregate import cmd_aggregate

DATA = Path(__file__).parent / "data"
WRITTEN_BEFORE = sorted(p for d in ("runs-columns", "runs-intervals") for p in (DATA / d).iterdir()
                        if (p / "summary.json").is_file())


@pytest.mark.parametrize("run_dir", WRITTEN_BEFORE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_aggregate_writes_the_stored_summary_byte_for_byte(run_dir, tmp_path, capsys):
    copy = tmp_path / run_dir.name
    shutil.copytree(run_dir, copy)
    (copy / "summary.json").unlink()
    assert cmd_aggregate(argparse.Namespace(run_dir=str(copy), check=False)) == 0
    assert (copy / "summary.json").read_bytes() == (run_dir / "summary.json").read_bytes()
    assert cmd_aggregate(argparse.Namespace(run_dir=str(run_dir), check=True)) == 0, \
        capsys.readouterr().err


@pytest.mark.parametrize("run_dir", WRITTEN_BEFORE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_report_reads_every_stored_summary_with_its_counts(run_dir, tmp_path):
    """Rows of every status (errored and unscorable among them): the report accepts the summary
    `aggregate` writes, and each measure's n + n_null is the samples that have a result (found
    by a 4 × 10k-sample bench: the report refused TaxoBench and ResearchArena summaries with
    unscorable samples)."""
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.html import write_html_report
    from scholarbench.report.sections.base import load_report_run
    run = load_report_run(run_dir)
    assert run.summary.n_samples > 0
    assert leaderboard_text([run], "csv").strip()
    assert write_html_report([run_dir], tmp_path / "r.html").stat().st_size > 0


# -- the columns answer what the rows answer --------------------------------------------------

import math
import random

import numpy as np

from scholarbench.core.columns import ScoreRows
from scholarbench.core.measure import defined, is_number
from scholarbench.core.pooled import _total, ratio
from scholarbench.core.score_rows import _plainly_valid, check_score_row

ODD = [None, 0, 1, -1, 0.0, -0.0, 0.5, -0.5, 1.5, -2, 7, 2**53, 2**60, 1e300, float("nan"),
       float("inf"), True, False, "1", "", [], [1], {}, {"a": 1}, np.float64(0.25), 3.0]


def _odd_rows(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        row = {"id": str(i), "status": rng.choice(["scored", "error", "unscorable", "missing"])}
        for key in ("a", "b", "c"):
            if rng.random() < 0.85:
                row[key] = rng.choice(ODD)
        rows.append(row)
    return rows


def test_a_number_column_is_the_defined_values_row_by_row():
    rows = _odd_rows(400, 1)
    table = ScoreRows(rows)
    for key in ("a", "b", "c", "absent"):
        numbers = table.numbers(key)
        assert [not math.isnan(v) for v in numbers] == [is_number(r.get(key)) for r in rows]
        assert table.defined(key) == defined(list(rows), key)
    counted = table.counted()
    assert list(counted) == [r for r in rows if r["status"] not in ("error", "unscorable")]
    assert counted.defined("a") == defined([r for r in counted], "a")


def test_summed_count_columns_are_the_row_by_row_totals_or_refused():
    rng = random.Random(2)
    rows = [{"x": rng.choice([None, 0, 3, 2.5, True, False, -0.0]),
             "y": rng.choice([0, 1, 4])} for _ in range(300)]
    table = ScoreRows(rows)
    totals = table.counts("x", "y")
    want = [_total(r, ("x", "y")) for r in rows]
    assert totals.tolist() == want
    assert all(str(a) == str(float(b)) for a, b in zip(totals.tolist(), want))   # no -0.0
    assert ScoreRows([{"x": "3"}, {"x": 1}]).counts("x") is None        # a string: refused
    assert ScoreRows([{"x": 2**60}, {"x": 1}]).counts("x") is None      # past 2^53: refused
    ints = ScoreRows([{"x": 2}, {"x": True}, {}]).counts("x")
    assert ints.dtype == np.int64 and ints.tolist() == [2, 1, 0]


def test_a_pooled_ratio_from_columns_equals_the_ratio_of_the_rows():
    rng = random.Random(3)
    rows = [{"status": rng.choice(["scored", "error"]), "hit": rng.randint(0, 4),
             "n": rng.choice([0, 1, 2, 3.5]), "m": rng.randint(0, 3),
             "judged": rng.random() < 0.7} for _ in range(500)]
    pooled = ratio(("hit",), ("n", "m"), where=lambda r: r["judged"])
    table = ScoreRows(rows)
    assert pooled.value(table) == pooled.value(list(rows))
    arrays, plain = pooled.arrays(table), pooled.arrays(list(rows))
    assert [a.dtype for a in arrays] == [a.dtype for a in plain]
    assert all(np.array_equal(a, b) for a, b in zip(arrays, plain))
    assert pooled.arrays(table) is not arrays and pooled.arrays(table)[0] is arrays[0]   # kept


def test_a_subset_slices_its_columns_and_a_change_drops_them():
    rows = _odd_rows(50, 4)
    table = ScoreRows(rows)
    def scored(row):
        return row["status"] == "scored"
    kept = table.where(scored)
    assert table.where(scored) is kept                      # kept under its predicate
    assert np.array_equal(kept.numbers("a"), table.numbers("a")[[scored(r) for r in rows]],
                          equal_nan=True)
    assert kept.defined("a") == defined([r for r in rows if r["status"] == "scored"], "a")
    before = table.numbers("a")
    table.append({"id": "x", "a": 0.125})
    assert len(table.numbers("a")) == len(before) + 1 and table.numbers("a")[-1] == 0.125


@pytest.mark.parametrize("seed", range(6))
def test_a_row_passed_without_the_model_is_one_the_model_passes(seed):
    """`score_rows._plainly_valid` is a shortcut: every row it lets through, the full check
    (`check_score_row`: the id, pydantic's ScoreRecord, the measures) passes too."""
    rng = random.Random(seed)
    values = ODD + ["scored", "no_references", "bogus", "\ud800", "é", ["a", "\ud800"],
                    ["a", 1], {"papers": 1}, {"papers": True}, {"\ud800": 1}, 10**400]
    units = {"a": "fraction", "b": "", "c": "percent"}
    seen = {True: 0, False: 0}
    for _ in range(3000):
        row = {}
        for key in ("id", "status", "reason", "unresolved", "n_refs", "suspected_injection",
                    "suspected_leak", "leaked_items", "a", "b", "c", "\ud800k"):
            if rng.random() < (0.9 if key in ("id", "a") else 0.3 if key != "\ud800k" else 0.02):
                row[key] = rng.choice(values) if rng.random() < 0.5 or key in (
                    "status", "reason", "\ud800k") else {"id": "t1", "unresolved": 3,
                                                         "n_refs": 0, "a": 0.5, "b": -7.5,
                                                         "c": 1}.get(key, None)
        bounds = [(k, u, *((-1.0, 1.0) if u else (-1.7976931348623157e308,
                                                  1.7976931348623157e308)))
                  for k, u in units.items()]
        plain = _plainly_valid(row, "id", bounds)
        seen[plain] += 1
        if plain:
            assert check_score_row(row, "id", units) is None, row
    assert seen[True] > 100 and seen[False] > 100


def test_the_collector_is_paused_while_rows_are_summarised_and_back_after():
    import gc
    from scholarbench.core.columns import collector_paused
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()               # left as it was
    finally:
        gc.enable()


def test_score_rows_pickle_and_copy_as_their_rows():
    import copy
    import pickle
    table = ScoreRows([{"a": 1.0}, {"a": None}])
    table.where(lambda r: True).numbers("a")          # a kept lambda does not pickle
    for other in (pickle.loads(pickle.dumps(table)), copy.deepcopy(table), copy.copy(table)):
        assert isinstance(other, ScoreRows) and list(other) == list(table)
        assert other.defined("a") == [1.0]
