"""Judge-scored means without the samples flagged `suspected_injection`.

A flag changes no score; a reader still wants to know what an injection could have bought.
So every measure an LLM judge scores (`Benchmark.judge_scored`) is aggregated a second time by
the benchmark's own `aggregate` over the rows without the flag, and summary.json carries

    "without_flagged": {"n_flagged": 1, "n_samples": 2,
                        "metrics": {"judge_avg": {"mean": 3.1, "n": 2, "n_null": 0}, …}}

beside the headline `metrics` (same shape; `n_samples` = the rows left). `flagged_note` is the
one line the terminal summary, the eval table, and the HTML and Markdown reports print.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence


def judge_keys(scored: Sequence[str], metrics: dict[str, Any]) -> list[str]:
    """The keys of `metrics` an LLM judge scores: named in `scored`, or with a parameterised
    name whose base is (`dse_overall(upstream=1)` → `dse_overall`)."""
    names = set(scored)
    return [k for k in metrics if k in names or k.split("(", 1)[0] in names]


def without_flagged(bench: Any, metrics_of: Callable[[Sequence[dict[str, Any]]], dict[str, Any]],
                    rows: Sequence[dict[str, Any]], summary: dict[str, Any]
                    ) -> dict[str, Any] | None:
    """The `without_flagged` block of a summary; None when the run has no judge-scored
    measure. With no flagged row the means are the headline's (not aggregated again).
    `metrics_of`: the summary's `metrics` of some rows (`core.summary_metrics.aggregate`)."""
    keys = judge_keys(getattr(bench, "judge_scored", ()), summary.get("metrics") or {})
    if not keys:
        return None
    kept = [r for r in rows if not r.get("suspected_injection")]
    metrics = summary["metrics"] if len(kept) == len(rows) else \
        metrics_of(kept)
    empty = {"mean": None, "n": 0, "n_null": 0}
    return {"n_flagged": len(rows) - len(kept), "n_samples": len(kept),
            "metrics": {k: dict(metrics.get(k) or empty) for k in keys}}


def flagged_note(summary: dict[str, Any], digits: int = 4) -> str | None:
    """'without the 1 flagged sample: judge_avg 3.1000 (n=2), …'; None when nothing was
    flagged or the run has no judge-scored measure."""
    block = summary.get("without_flagged")
    n = block.get("n_flagged") if isinstance(block, dict) else None
    metrics = block.get("metrics") if isinstance(block, dict) else None
    if not isinstance(n, int) or n < 1 or not isinstance(metrics, dict):
        return None             # nothing flagged, or a hand-edited summary: no note
    return (f"without the {n} flagged sample{'' if n == 1 else 's'}: "
            + means_text(metrics, list(metrics), digits))


def means_text(metrics: dict[str, Any], keys: Sequence[str], digits: int = 4) -> str:
    """'judge_avg 3.1000 (n=2), …' for the `keys` of a summary's `metrics` block (the notes
    on means without flagged samples: injection and leakage)."""
    parts = []
    for key in keys:
        m = metrics.get(key)
        if isinstance(m, dict):
            mean = m.get("mean")
            value = f"{mean:.{digits}f}" if isinstance(mean, (int, float)) and \
                not isinstance(mean, bool) else "—"
            parts.append(f"{key} {value} (n={m.get('n', 0)})")
    return ", ".join(parts)


def report_notes(runs: Sequence[Any]) -> list[str]:
    """One note per report run (`.name`, `.raw_summary`) with flagged samples: how many, and
    its judge-scored means without them — under the leaderboards of every format."""
    notes = []
    for run in runs:
        s = run.raw_summary
        if n := s.get("n_suspected_injection"):
            note = flagged_note(s)
            notes.append(f"{run.name}: {n} sample{'' if n == 1 else 's'} flagged as suspected "
                         "injection (text aimed at the judge; docs/injection.md)"
                         + (f"; {note}" if note else ""))
    return notes


__all__ = ["flagged_note", "judge_keys", "report_notes", "without_flagged"]
