"""Benchmarks and agents by name: the registered benchmark classes and the agent a spec names
(`endpoint`, `replay`, `package.module:attr`, a benchmark's own, an entry point)."""
from __future__ import annotations

from typing import Any

from scholarbench.core.agent import Agent, agent_from_object, import_object
from scholarbench.core.benchmark import Benchmark
from scholarbench.core.registry import REGISTRY
from scholarbench.errors import ScholarbenchError

GENERIC_AGENTS = ("endpoint", "replay", "package.module:attr")


def benchmark_class(name: str) -> type[Benchmark]:
    obj = REGISTRY.find("benchmark", name)
    if not (isinstance(obj, type) and issubclass(obj, Benchmark)):
        known = ", ".join(engine_benchmarks()) or "none"
        raise ScholarbenchError(f"unknown benchmark {name!r}; known: {known}")
    return obj


def engine_benchmarks() -> list[str]:
    return [n for n, obj in REGISTRY.items("benchmark")
            if isinstance(obj, type) and issubclass(obj, Benchmark)]


def resolve_agent(bench: Benchmark, spec: str, params: dict[str, Any], subtask: str) -> Agent:
    family = bench.subtasks[subtask]
    if spec == "endpoint":
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.core.endpoint import EndpointAgent
        agent: Agent | None = EndpointAgent(**params)
    elif ":" in spec:
        agent = agent_from_object(import_object(spec), spec, params)
    else:
        agent = bench.agent(spec, params, subtask)
        if agent is None and spec == "replay":
            # deferred: loaded only by the path that needs it (a light CLI start)
            from scholarbench.core.replay import ReplayAgent
            try:
                agent = ReplayAgent(**{**params, "benchmark": bench.name, "subtask": subtask})
            except TypeError as exc:
                raise ScholarbenchError(f"replay takes --agent-arg path=FILE ({exc})") from None
        if agent is None:
            obj = REGISTRY.find("agent", spec)
            if obj is not None and REGISTRY.meta("agent", spec).get("external"):
                agent = agent_from_object(obj, spec, params)
        if agent is None:
            raise ScholarbenchError(f"unknown agent {spec!r} for {bench.name}; "
                                    + _fitting(bench, subtask))
    if not agent.fits(bench.name, subtask, family):
        raise ScholarbenchError(f"agent {spec!r} does not support {subtask} (a {bench.name} "
                                f"sub-task with {family} answers); " + _fitting(bench, subtask))
    return agent


def _fitting(bench: Benchmark, subtask: str) -> str:
    names = bench.agent_names(subtask)
    return (f"agents that fit {bench.name} {subtask}: {', '.join(names) or 'none built in'}; "
            f"or your own: {', '.join(GENERIC_AGENTS)} (docs/agents.md)")
