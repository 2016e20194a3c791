"""`scholarbench judge-check RUN_DIR …`: how far injected text moves a judge.

For each sample of a finished run whose answer the benchmark's LLM judge reads (status ok),
the judge scores the answer as it is and then with each probe (`probes.PROBES`) added where
the judge reads the agent's text (`Benchmark.judge_with_probe`). Per probe and over all:

- `mean_shift`: the mean of (probed − clean) in the judge measure's own units;
- `share_moved` / `share_up`: the share of samples whose score changed / rose;
- `n` pairs compared, `n_unscored` pairs left out because a judge reply was unusable.

Pairs go to `injection.jsonl` in the run directory (each with its judge; checking a judge
again replaces only its own pairs); the figures to the manifest's
`injection_check.<judge model id>` (one entry per judge checked), shown in the HTML report.
The judge's usage is accounted under `usage.judge-check.judge`. The clean scores come from
the reply cache when the run was judged by the same model.

The run itself (`check_run`) is the engine's: `core.judge_check`; here are the figures and texts.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.injection.probes import Probe

PAIRS = "injection.jsonl"


def summarise(rows: Sequence[dict[str, Any]], probes: Sequence[Probe]) -> dict[str, Any]:
    def stats(subset: Sequence[dict[str, Any]]) -> dict[str, Any]:
        shifts = [r["shift"] for r in subset if r["shift"] is not None]
        n = len(shifts)
        return {"n": n, "n_unscored": len(subset) - n,
                "mean_shift": sum(shifts) / n if n else None,
                "share_moved": sum(1 for x in shifts if abs(x) > 1e-9) / n if n else None,
                "share_up": sum(1 for x in shifts if x > 1e-9) / n if n else None}
    return {"overall": stats(rows),
            "probes": {p.name: {"style": p.style, **stats([r for r in rows
                                                             if r["probe"] == p.name])}
                       for p in probes}}


def format_check(run_dir: Path, result: dict[str, Any]) -> str:
    def fmt(s: dict[str, Any]) -> str:
        if s["mean_shift"] is None:
            return f"{'—':>8} {'—':>7} {'—':>6}  n={s['n']} unscored={s['n_unscored']}"
        return (f"{s['mean_shift']:>+8.3f} {100 * s['share_moved']:>6.0f}% "
                f"{100 * s['share_up']:>5.0f}%  n={s['n']}"
                + (f" unscored={s['n_unscored']}" if s["n_unscored"] else ""))
    lines = [f"{run_dir}: judge {result['judge']}, {result['measure']} over "
             f"{result['n_samples']} sample(s); the probe goes into {result['reads']}",
             f"  {'probe':<18} {'style':<22} {'shift':>8} {'moved':>7} {'up':>6}"]
    for name, s in result["probes"].items():
        lines.append(f"  {name:<18} {s['style']:<22} {fmt(s)}")
    lines.append(f"  {'all probes':<18} {'':<22} {fmt(result['overall'])}")
    return "\n".join(lines)


def injection_summary_text(entry: dict[str, Any]) -> str:
    """One line for the HTML report's metadata."""
    o = entry.get("overall") or {}
    if o.get("mean_shift") is None:
        head = "no pair scored"
    else:
        head = (f"{entry.get('measure')} shift {o['mean_shift']:+.3f}, "
                f"{100 * o['share_moved']:.0f}% of {o['n']} pairs moved")
    parts = [f"{name} {s['mean_shift']:+.2f} ({100 * s['share_moved']:.0f}%)"
             for name, s in (entry.get("probes") or {}).items()
             if isinstance(s, dict) and s.get("mean_shift") is not None]
    return f"{head} over {entry.get('n_samples')} sample(s)" + (
        "; " + ", ".join(parts) if parts else "")
