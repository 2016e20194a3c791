"""The report's epochs part (`run … --epochs K`; `core.epochs`, docs/scores.md "Epochs"): for
each run of K > 1 epochs, every measure's mean with its 95% interval (the cluster bootstrap by
sample), its value on each epoch's rows alone, the SD of those epoch means and the mean
within-sample SD — how much the agent varied with its seed beside how much the samples did.

Everything comes from summary.json (`epochs.spread`, `metrics`), so the report says what
`aggregate --check` checks; a run of one epoch has no table.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.core.epochs import EPOCHS_KEY
from scholarbench.report.sections.base import ReportRun
from scholarbench.report.tables import Row, Table, TableGroup

TITLE = "Epochs"
NOTE = ("Mean and 95% interval over the samples, each sample the mean of its epochs (the "
        "bootstrap resamples samples with all their epochs); epoch e: the measure on that "
        "epoch's rows alone (seed e − 1); SD of the epoch means: how much a whole run moves "
        "with the agent's seed; within-sample SD: the mean over samples with two or more "
        "defined epochs of the SD of that sample's values.")


def _num(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) or isinstance(value, bool) \
        else f"{value:.4f}"


def _interval(entry: dict[str, Any]) -> str:
    ci = entry.get("ci95")
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(
            isinstance(x, (int, float)) for x in ci):
        return f"[{ci[0]:.4f}, {ci[1]:.4f}]"
    return "—"


def epochs_table(run: ReportRun) -> Table | None:
    """One run's table (None for a run of one epoch)."""
    block = run.raw_summary.get(EPOCHS_KEY)
    if not isinstance(block, dict) or not isinstance(block.get("spread"), dict):
        return None
    k = int(block.get("k") or 0)
    metrics = run.raw_summary.get("metrics") or {}
    header = ("measure", "mean", "95% CI", *(f"epoch {e}" for e in range(1, k + 1)),
              "SD of epoch means", "within-sample SD")
    rows = []
    for key, spread in block["spread"].items():
        if not isinstance(spread, dict):
            continue
        entry = metrics.get(key) if isinstance(metrics.get(key), dict) else {}
        by_epoch = list(spread.get("by_epoch") or [])[:k]
        by_epoch += [None] * (k - len(by_epoch))
        rows.append(Row("ours", (key, _num(entry.get("mean")), _interval(entry),
                                 *(_num(v) for v in by_epoch), _num(spread.get("sd_epochs")),
                                 _num(spread.get("sd_within"))),
                        source=str(run.run_dir)))
    seeds = ", ".join(str(s) for s in block.get("seeds") or ())
    title = (f"{TITLE} — {run.name} in {run.run_dir.name} ({run.benchmark} {run.mode}): "
             f"{k} epochs of {block.get('n_samples')} samples, seeds {seeds or '—'}")
    return Table(title, header, tuple(rows), (NOTE,))


def epoch_groups(runs: Sequence[ReportRun]) -> list[TableGroup]:
    """One group of every run with K > 1 epochs (none: none)."""
    tables = tuple(t for t in (epochs_table(r) for r in runs) if t is not None)
    return [TableGroup(TITLE, tables, benchmark="", mode="")] if tables else []


__all__ = ["TITLE", "epoch_groups", "epochs_table"]
