"""What the `run`, `score` and `eval` commands read from their arguments: the agent's
parameters, the Ray options, a run directory's name for an agent."""
from __future__ import annotations

import argparse
import json
from typing import Any, Sequence

from scholarbench.errors import ScholarbenchError


def agent_params(pairs: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ScholarbenchError(f"--agent-arg takes KEY=VALUE, got {pair!r}")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def run_params(args: argparse.Namespace) -> dict[str, Any]:
    """The agent's parameters: every --agent-arg, and `tools=true` for `--tools`."""
    params = agent_params(args.agent_arg)
    if getattr(args, "tools", False):
        if args.agent != "endpoint":
            raise ScholarbenchError("--tools gives the endpoint agent the literature tools; "
                                    "other agents declare needs.tools (docs/tools.md)")
        params["tools"] = True
    return params


def ray_options(args: argparse.Namespace):
    """`RayOptions` from `--ray…`, or None for a local run."""
    if getattr(args, "ray", None) is None:
        return None
    import importlib.util
    if importlib.util.find_spec("ray") is None:      # before any run starts
        raise ScholarbenchError("--ray needs Ray: pip install 'scholarbench[ray]'")
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.core.distributed import RayOptions
    return RayOptions(address=args.ray, cpus=args.ray_cpus, gpus=args.ray_gpus,
                      shard_size=args.ray_shard_size, retries=args.ray_retries).check()


def slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec).strip("-") or "agent"
