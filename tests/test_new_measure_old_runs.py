"""A measure declared after a run was made (issue 36): `aggregate`, `aggregate --check` and
`report OLD NEW` still work on the older run — the measure it lacks is undefined (n = 0, every
counted row null) and shown "—", never an error.

The measure is declared as a developer adds one — one more entry in the benchmark's
`measures.MEASURES`, everything derived from it at import — in a fresh interpreter
(`declared_measure.run_declared`); the runs are the format-2 fixture runs
(tests/data/runs-format-2) and runs made here by the current code before the declaration.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from declared_measure import run_declared
from scholarbench.cli import main
from test_reportbench_run import config, corpus_dir, run_reportbench  # noqa: F401
from test_run_format import old_runs  # noqa: F401

TAXO = "scholarbench.benchmarks.taxobench.measures"
DEPTH = ('_measure("depth_ratio", "Depth ratio", "higher", "ratio", "(test)", '
         '"model tree depth / expert tree depth")')
DEPTH_ROW = ("_score_instance = score_instance\n"          # the new row field of new scores
             "def score_instance(*args, **kwargs):\n"
             "    return {**_score_instance(*args, **kwargs), 'depth_ratio': 0.5}\n")
RB = "scholarbench.benchmarks.reportbench.measures"
DUP = ('_declare("ref_duplicate_share", "Dup. share", "repeated references / references", '
       '"(test)", family="reference", direction="lower")')


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def line_of(text: str, word: str) -> str:
    return next(line for line in text.splitlines() if word in line)


def cells(table: str) -> list[str]:
    """The first value cell of each of our rows (after "n=2")."""
    return [line.split("n=2", 1)[1].split()[0] for line in table.splitlines() if "n=2" in line]


def assert_ok(results) -> None:
    for code, out, err in results:
        assert code == 0, err
        assert "error" not in err, err


# --------------------------------------------------------------------------------- TaxoBench

def check_taxo(old: Path, new: Path, null: Path) -> None:
    """`old` lacks depth_ratio; `new` (a copy) is re-scored with it, `null` holds it as null."""
    check, rescore, report, aggregate, recheck, report_after = run_declared(TAXO, DEPTH, [
        ["aggregate", "--check", str(old)],
        ["score", str(new), "--quiet"],
        ["report", str(old), str(new), str(null), "--no-published"],
        ["aggregate", str(old)],
        ["aggregate", "--check", str(old)],
        ["report", str(old), str(new), "--no-published", "--format", "markdown"]], tail=DEPTH_ROW)
    assert_ok([check, rescore, report, aggregate, recheck, report_after])
    assert summary(new)["metrics"]["depth_ratio"]["mean"] == 0.5
    table = report.out[report.out.index("Depth ratio"):]    # the further-measures table
    assert cells(table)[:3] == ["—", "0.50", "—"]
    assert line_of(aggregate.out, "depth_ratio").split()[1] == "—"
    entry = summary(old)["metrics"]["depth_ratio"]
    n_counted = summary(old)["n_samples"] - summary(old)["status"].get("error", 0)
    assert (entry["mean"], entry["n"], entry["n_null"]) == (None, 0, n_counted)
    markdown = report_after.out[report_after.out.index("Depth ratio"):]
    assert next(x for x in markdown.splitlines() if "n=2" in x).endswith("| — |")


def copies(run: Path, tmp: Path) -> tuple[Path, Path]:
    new, null = tmp / "new", tmp / "null"
    shutil.copytree(run, new)
    shutil.copytree(run, null)
    data = summary(null)
    data["metrics"]["depth_ratio"] = None            # an older summary holding it as null
    (null / "summary.json").write_text(json.dumps(data))
    return new, null


def test_taxobench_format_2_run_without_the_new_measure(old_runs, tmp_path):  # noqa: F811
    old = old_runs / "bottom-up-cluster"
    check_taxo(old, *copies(old, tmp_path))


def test_taxobench_run_made_before_the_measure(tmp_path):
    runs = tmp_path / "runs"
    assert main(["demo", "--limit", "2", "--out", str(runs)]) == 0
    old = next(p.parent for p in runs.glob("*/summary.json"))
    assert "depth_ratio" not in summary(old)["metrics"]
    check_taxo(old, *copies(old, tmp_path))


# ------------------------------------------------------------------------------- ReportBench

def test_reportbench_run_made_before_the_measure(corpus_dir, tmp_path):  # noqa: F811
    old = tmp_path / "old"
    run_reportbench(config(old, corpus_dir))
    assert "ref_duplicate_share" not in summary(old)["metrics"]
    new = tmp_path / "new"                           # scored after: its rows carry the field
    shutil.copytree(old, new)
    rows = [json.loads(x) for x in (new / "scores.jsonl").read_text().splitlines()]
    (new / "scores.jsonl").write_text("".join(
        json.dumps({**r, "ref_duplicate_share": 0.25}) + "\n" for r in rows))
    check, rebuilt, report, aggregate, recheck = run_declared(RB, DUP, [
        ["aggregate", "--check", str(old)],
        ["aggregate", str(new)],
        ["report", str(old), str(new), "--no-published"],
        ["aggregate", str(old)],
        ["aggregate", "--check", str(old)]])
    assert_ok([check, rebuilt, report, aggregate, recheck])
    assert summary(new)["metrics"]["ref_duplicate_share"]["mean"] == 0.25
    assert line_of(rebuilt.out, "ref_duplicate_share").split()[1] == "0.2500"
    assert line_of(aggregate.out, "ref_duplicate_share").split()[1] == "—"
    table = report.out[report.out.index("Dup. share"):]
    assert cells(table)[:2] == ["—", "0.2500"]
    own = summary(old)
    entry = own["metrics"]["ref_duplicate_share"]
    assert (entry["mean"], entry["n"], entry["n_null"]) == (None, 0, own["n_counted"])
    assert own["means"]["ref_duplicate_share"] is None


# ---------------------------------------------------------------------------- ResearchArena

def test_researcharena_rows_without_a_measure_are_counted_as_null():
    """The summary of ranking rows scored before a measure existed: the measure has n = 0
    (the organisation summary reads its rows as the ranking one without trec_eval's sums)."""
    from scholarbench.benchmarks.researcharena.scoring import summarise
    key = "R@10"
    rows = [{"id": "q1", "status": "scored", key: 0.5}, {"id": "q2", "status": "scored",
                                                          key: 1.0}]
    out = summarise(rows, {"mode": "discovery", "agent": "a"}, [key, "new_measure"])
    assert out["metrics"]["new_measure"] == {"mean": None, "n": 0, "n_null": 2}
    assert out["metrics"][key]["mean"] == 0.75
