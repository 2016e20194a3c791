"""What a run's manifest says about its chat models: which model played which role, and usage.

The agent model's identity (model id and sampling parameters) is part of what must agree for a
run directory to be resumed; the judge is recorded by the scoring stage, which may be redone with
another judge. Usage is added up over every invocation that touched the run directory.
"""
from __future__ import annotations

from typing import Any

USAGE_FIELDS = ("calls", "requests", "cache_hits", "retries", "failures", "prompt_tokens",
                "completion_tokens", "estimated_tokens")


def model_identity(client: Any) -> dict[str, Any] | None:
    if client is None:
        return None
    config = client.config
    return {"model_id": client.model_id, "temperature": config.temperature,
            "max_tokens": config.max_tokens, "seed": config.seed}
