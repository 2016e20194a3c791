"""What a run's manifest says about its chat models: which model played which role, and usage.

The agent model's identity (model id and sampling parameters) is part of what must agree for a
run directory to be resumed; the judge is recorded by the scoring stage, which may be redone with
another judge. Usage is added up over every invocation that touched the run directory.
"""
from __future__ import annotations

from typing import Any

from scholarbench.core.rundir import RunDir

USAGE_FIELDS = ("calls", "requests", "cache_hits", "retries", "failures", "prompt_tokens",
                "completion_tokens", "estimated_tokens", "warnings")


def model_identity(client: Any) -> dict[str, Any] | None:
    if client is None:
        return None
    config = client.config
    return {"model_id": client.model_id, "temperature": config.temperature,
            "max_tokens": config.max_tokens, "seed": config.seed}


def usage_snapshot(client: Any) -> dict[str, Any] | None:
    """What `client` has used so far (`Usage.as_dict()`), the `before` of `add_stage_usage`;
    None for no client (or one that counts nothing)."""
    usage = getattr(client, "usage", None)
    return usage.as_dict() if usage is not None else None


def add_stage_usage(run: RunDir, stage: str, role: str, client: Any,
                    before: dict[str, Any] | None) -> None:
    """Add what `client` used since `before` to the manifest's `usage.<stage>.<role>` and the
    running `llm_usage.<role>` totals."""
    if client is None:
        return
    add_usage_delta(run, stage, role, usage_delta(client.usage.as_dict(), before))


def usage_delta(now: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """What a client used between two `Usage.as_dict()` readings."""
    delta: dict[str, Any] = {k: now[k] - (before or {}).get(k, 0) for k in USAGE_FIELDS}
    cost = now.get("cost_usd")
    delta["cost_usd"] = None if cost is None else round(cost - ((before or {}).get("cost_usd")
                                                                or 0.0), 6)
    return delta


def add_usage_delta(run: RunDir, stage: str, role: str, delta: dict[str, Any] | None) -> None:
    """Add `delta` (a `usage_delta`) to the manifest's `usage.<stage>.<role>` and the running
    `llm_usage.<role>` totals."""
    if not delta:
        return
    manifest = run.read_manifest()
    for bucket in (manifest.setdefault("usage", {}).setdefault(stage, {}).setdefault(role, {}),
                   manifest.setdefault("llm_usage", {}).setdefault(role, {})):
        add_into(bucket, delta)
    run.write_manifest(manifest)


def add_into(bucket: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Add a `usage_delta` to a running total in place (a cost stays None until one is known);
    returns the total."""
    for key in USAGE_FIELDS:
        bucket[key] = bucket.get(key, 0) + delta.get(key, 0)
    if delta.get("cost_usd") is not None:
        bucket["cost_usd"] = round((bucket.get("cost_usd") or 0.0) + delta["cost_usd"], 6)
    else:
        bucket.setdefault("cost_usd", None)
    return bucket


def judge_usage(manifest: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Every judge's usage per stage from the manifest's `usage.<stage>.<role>`: judge role
    (`judge`, then a panel's `judge_2`, `judge_3`, …) → stage → its counts."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for stage, roles in (manifest.get("usage") or {}).items():
        for role, counts in (roles or {}).items():
            if role == "judge" or role.startswith("judge_"):
                out.setdefault(role, {})[stage] = counts
    return dict(sorted(out.items(), key=lambda kv: (kv[0] != "judge", len(kv[0]), kv[0])))


def _judge_model(manifest: dict[str, Any], role: str) -> str | None:
    """The model name of a judge role: `models.judge`, a panel's `models.judges[i]` (by its
    `usage_role` where recorded), ReportBench's `models.vote_judges`, or the engine's judge
    stage's `judged.<item>.judges` (by `role`)."""
    models = manifest.get("models") or {}
    entry = models.get("judge") if role == "judge" else None
    n = int(role.rpartition("_")[2]) if role.rpartition("_")[2].isdigit() else 0
    panel = models.get("judges") or []
    if role != "judge":
        entry = next((j for j in panel if j.get("usage_role") == role), None)
    if entry is None and 0 < n <= len(panel):
        entry = panel[n - 1]
    votes = models.get("vote_judges") or []
    if entry is None and 0 < n - 1 <= len(votes):
        entry = votes[n - 2]
    if entry is None:                # the engine's judge stage: `judged.<item>.judges`
        entry = next((j for item in (manifest.get("judged") or {}).values()
                      if isinstance(item, dict) for j in item.get("judges") or []
                      if isinstance(j, dict) and j.get("role") == role), None)
    return (entry or {}).get("model")


def judge_usage_lines(manifest: dict[str, Any], before: dict[str, Any] | None = None
                      ) -> list[str]:
    """One terminal line per judge: its calls and tokens per stage. `before`: the manifest's
    `usage` when this invocation began — the line then counts this invocation's calls and
    names the directory's totals (every invocation, as the manifest adds them up) beside
    them where they differ; None: the totals alone."""
    lines = []
    earlier = judge_usage({"usage": before or {}})
    for role, stages in judge_usage(manifest).items():
        model = _judge_model(manifest, role)
        now = {stage: c for stage, c in stages.items()} if before is None else {
            stage: {k: (c.get(k) or 0) - ((earlier.get(role) or {}).get(stage, {}).get(k) or 0)
                    for k in ("calls", "prompt_tokens", "completion_tokens", "cache_hits")}
            for stage, c in stages.items()}
        parts = [f"{stage} {c.get('calls', 0)} calls, {c.get('prompt_tokens', 0)}+"
                 f"{c.get('completion_tokens', 0)} tokens"
                 + (f", {c['cache_hits']} cached" if c.get("cache_hits") else "")
                 for stage, c in now.items()]
        who = role + (f" ({model})" if model else "")
        line = f"{who}: {'; '.join(parts)}"
        totals = [f"{stage} {c.get('calls', 0)}" for stage, c in stages.items()
                  if before is not None and c.get("calls", 0) != now[stage].get("calls", 0)]
        if totals:
            line += (f" (this invocation; calls over every invocation on this directory: "
                     f"{', '.join(totals)})")
        lines.append(line)
    return lines
