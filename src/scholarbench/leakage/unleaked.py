"""Every mean also without the samples flagged `suspected_leak`.

A leak flag changes no score; a reader still wants to know what the leak bought. Leaked papers
move every measure (recall, precision, the tree measures, a judge's coverage), so every
measure of the summary is aggregated a second time by the benchmark's own `aggregate` over the
rows without the flag, and summary.json carries, when any row is flagged,

    "n_suspected_leak": 1,
    "without_leaked": {"n_leaked": 1, "n_samples": 2,
                       "metrics": {"recall": {"mean": 0.3, "n": 2, "n_null": 0}, …}}

(`n_samples` = the rows left). `leaked_note` is the line the terminal summary and the eval
table print (the headline measures only).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from scholarbench.injection.unflagged import means_text
from scholarbench.registry import REGISTRY


def count_leaked(rows: Sequence[dict[str, Any]]) -> int:
    return sum(1 for r in rows if r.get("suspected_leak"))


def without_leaked(metrics_of: Callable[[Sequence[dict[str, Any]]], dict[str, Any]],
                   rows: Sequence[dict[str, Any]], summary: dict[str, Any]
                   ) -> dict[str, Any] | None:
    """The `without_leaked` block of a summary; None when no row is flagged. `metrics_of`:
    the summary's `metrics` of some rows (`core.summary_metrics.aggregate` of the run)."""
    kept = [r for r in rows if not r.get("suspected_leak")]
    if len(kept) == len(rows):
        return None
    metrics = metrics_of(kept)
    empty = {"mean": None, "n": 0, "n_null": 0}
    return {"n_leaked": len(rows) - len(kept), "n_samples": len(kept),
            "metrics": {k: dict(metrics.get(k) or empty)
                        for k in (summary.get("metrics") or {})}}


def leaked_note(summary: dict[str, Any], keys: Sequence[str] | None = None,
                digits: int = 4) -> str | None:
    """'without the 1 sample suspected of leakage: recall 0.3000 (n=2), …' over `keys` (all
    of the block's measures when None); None when nothing was flagged."""
    block = summary.get("without_leaked")
    n = block.get("n_leaked") if isinstance(block, dict) else None
    metrics = block.get("metrics") if isinstance(block, dict) else None
    if not isinstance(n, int) or n < 1 or not isinstance(metrics, dict):
        return None             # nothing flagged, or a hand-edited summary: no note
    return (f"without the {n} sample{'' if n == 1 else 's'} suspected of leakage "
            "(docs/leakage.md): "
            + means_text(metrics, keys if keys is not None else list(metrics), digits))


def leak_lines(summary: dict[str, Any], keys: Sequence[str] | None = None) -> list[str]:
    """The terminal summary's lines: how many samples were flagged, and the means over `keys`
    without them; [] when none was."""
    n = summary.get("n_suspected_leak")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return []
    lines = [f"{n} sample(s) hold papers or text only the answer key could give "
             "(`suspected_leak` in scores.jsonl; docs/leakage.md)"]
    if note := leaked_note(summary, keys):
        lines.append(note)
    return lines


def _headline(run: Any) -> tuple[str, ...]:
    """The run's headline measures (its benchmark's, by sub-task); () when unknown."""
    try:
        bench = REGISTRY.find("benchmark", run.benchmark)(run.manifest.get("options") or {})
        return tuple(bench.headline.get(run.mode, ()))
    except Exception:       # a benchmark this install does not know: every measure
        return ()


def report_notes(runs: Sequence[Any]) -> list[str]:
    """One note per report run (`.name`, `.raw_summary`) with samples flagged
    `suspected_leak`: how many, and its means without them (the run's headline measures when
    the summary names them, else every measure) — under the leaderboards of every format."""
    notes = []
    for run in runs:
        s = run.raw_summary
        n = s.get("n_suspected_leak")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            continue
        keys = list(_headline(run)) or None
        note = leaked_note(s, keys)
        notes.append(f"{run.name}: {n} sample{'' if n == 1 else 's'} suspected of leakage "
                     "(papers or text only the answer key could give; docs/leakage.md)"
                     + (f"; {note}" if note else ""))
    return notes


__all__ = ["count_leaked", "leak_lines", "leaked_note", "report_notes", "without_leaked"]
