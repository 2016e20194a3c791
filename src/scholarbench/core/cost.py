"""A run's cost from its manifest's usage (docs/cost.md): summary.json's `cost`.

The manifest counts every chat model's calls, tokens and cost per stage and role
(`usage.<stage>.<role>`, summed over every invocation on the run directory: a re-score with a
judge adds its calls). From it alone — so `aggregate` rebuilds it — the summary's `cost` gives
per stage and role the calls, tokens and dollars; the agent's (stage `generate`), the judges'
(every other stage) and the run's totals; and the mean per sample. A role whose model has no
price (`--price`, `[prices]`) has `cost_usd` None: the totals then cover only the priced
roles and `priced` is false, so a partial sum is never shown as the whole. Runs that made no
model call have no `cost`.
"""
from __future__ import annotations

from typing import Any

AGENT_STAGE = "generate"
COUNTS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens")


def _usd(total: float | None, add: float | None) -> float | None:
    if add is None:
        return total
    return round((total or 0.0) + float(add), 6)


def run_cost(manifest: dict[str, Any], n_samples: int) -> dict[str, Any] | None:
    """summary.json's `cost` (module docstring); None when no model was called."""
    usage = manifest.get("usage")
    if not isinstance(usage, dict):
        return None
    stages: dict[str, dict[str, Any]] = {}
    agent = judges = None
    priced, calls, tokens = True, 0, 0
    for stage, roles in sorted(usage.items()):
        if not isinstance(roles, dict):
            continue
        for role, used in sorted(roles.items()):
            if not isinstance(used, dict) or not (used.get("calls") or used.get("cache_hits")):
                continue
            entry = {k: int(used.get(k) or 0) for k in COUNTS}
            entry["cost_usd"] = used.get("cost_usd")
            stages.setdefault(stage, {})[role] = entry
            calls += entry["calls"]
            tokens += entry["prompt_tokens"] + entry["completion_tokens"]
            if entry["calls"] and entry["cost_usd"] is None:
                priced = False
            if stage == AGENT_STAGE:
                agent = _usd(agent, entry["cost_usd"])
            else:
                judges = _usd(judges, entry["cost_usd"])
    if not stages:
        return None
    total = _usd(agent, judges) if judges is not None else agent
    return {"usd": total, "priced": priced, "agent_usd": agent, "judges_usd": judges,
            "per_sample_usd": (round(total / n_samples, 6) if total is not None and n_samples
                               else None),
            "calls": calls, "tokens": tokens, "stages": stages}


def cost_cell(cost: dict[str, Any] | None) -> str:
    """The eval table's cost cell: dollars (with `+?` when a role is unpriced), else tokens
    and calls, else "—" (no model call)."""
    if not isinstance(cost, dict):
        return "—"
    if cost.get("usd") is not None:
        return f"${cost['usd']:.4f}" + ("" if cost.get("priced") else "+?")
    return f"{_short(int(cost.get('tokens') or 0))} tok"


def cost_line(cost: dict[str, Any]) -> str:
    """One line: the run's cost, the agent's and the judges', per sample; calls and tokens."""
    def usd(x: Any) -> str:
        return "—" if x is None else f"${x:.4f}"
    head = (f"{cost_cell(cost)} (agent {usd(cost.get('agent_usd'))}, judges "
            f"{usd(cost.get('judges_usd'))}; {usd(cost.get('per_sample_usd'))} per sample)"
            if cost.get("usd") is not None else "no price given (--price MODEL=IN/OUT)")
    unpriced = sorted(f"{stage}.{role}" for stage, roles in (cost.get("stages") or {}).items()
                      for role, used in roles.items()
                      if used.get("calls") and used.get("cost_usd") is None)
    tail = f"; unpriced: {', '.join(unpriced)}" if unpriced and cost.get("usd") is not None \
        else ""
    return (f"{head}; {cost.get('calls', 0)} calls, {_short(int(cost.get('tokens') or 0))} "
            f"tokens{tail}")


def _short(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1_000_000 else f"{n / 1e3:.1f}k" if n >= 1000 else str(n)


__all__ = ["cost_cell", "cost_line", "run_cost"]
