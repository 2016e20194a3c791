"""What a run's manifest says about its chat models: which model played which role, and usage.

The agent model's identity (model id and sampling parameters) is part of what must agree for a
run directory to be resumed; the judge is recorded by the scoring stage, which may be redone with
another judge. Usage is added up over every invocation that touched the run directory.
"""
from __future__ import annotations

from typing import Any

USAGE_FIELDS = ("calls", "cache_hits", "retries", "failures", "prompt_tokens",
                "completion_tokens", "estimated_tokens")


def model_identity(client: Any) -> dict[str, Any] | None:
    if client is None:
        return None
    config = client.config
    return {"model_id": client.model_id, "temperature": config.temperature,
            "max_tokens": config.max_tokens, "seed": config.seed}


def record_models(manifest: dict[str, Any], roles: Any, role: str) -> None:
    client = getattr(roles, role, None) if roles is not None else None
    if client is not None:
        manifest.setdefault("models", {})[role] = {**client.config.public(),
                                                   "model_id": client.model_id}


def add_usage(manifest: dict[str, Any], roles: Any, role: str) -> None:
    client = getattr(roles, role, None) if roles is not None else None
    if client is None:
        return
    now = client.usage.as_dict()
    total = manifest.setdefault("llm_usage", {}).setdefault(role, {})
    for key in USAGE_FIELDS:
        total[key] = total.get(key, 0) + now[key]
    if now["cost_usd"] is not None:
        total["cost_usd"] = round((total.get("cost_usd") or 0.0) + now["cost_usd"], 6)
    elif "cost_usd" not in total:
        total["cost_usd"] = None
