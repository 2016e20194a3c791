"""TaxoBench's built-in agents, and the adapter that gives them the one agent contract.

Built-ins follow TaxoBench's typed protocol (`agents.base.TaxoAgent`: `generate(TaxoTask,
AgentContext) -> TaxoPrediction`, `modes`, `uses_llm`); `NativeAgent` wraps one so the engine
sees `core.agent.Agent`. Registered here (for TaxoBench only): `cluster` (the shared
`scholarbench.agents.cluster`), `bm25-title`, `llm-taxonomy`, `deep-research`, `replay`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.registry import REGISTRY
from scholarbench.agents.cluster import ClusterAgent


class NativeAgent:
    """A TaxoBench agent under the core contract."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name
        self.needs = Needs(llm=bool(getattr(inner, "uses_llm", False)), embedder=True,
                           corpus=bool(getattr(inner, "needs_corpus", False)),
                           tools=bool(getattr(inner, "uses_tools", False)))

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return benchmark == "taxobench" and subtask in self.inner.modes

    def config(self) -> dict[str, Any]:
        return self.inner.config()

    @property
    def problems(self) -> list[str]:
        """Unreadable lines of an input file (the replay agent's), warned about by the engine."""
        return list(getattr(self.inner, "problems", ()))

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        taxo = ctx.extra["taxo"]
        if ctx.tools is not None:           # this sample's session (engine.generate)
            taxo = replace(taxo, tools=ctx.tools)
        return self.inner.generate(task.native, taxo)


def register_taxo_agent(name: str):
    """Register a TaxoBench agent class (its `modes` say which sub-tasks it fits)."""
    def decorate(cls: Any) -> Any:
        return REGISTRY.add("agent", name, cls, benchmarks=("taxobench",),
                            fits=lambda subtask, family, cls=cls: subtask in cls.modes)
    return decorate


def _register_builtins() -> None:
    register_taxo_agent("cluster")(ClusterAgent)
    # deferred: would close a cycle (these modules import `register_taxo_agent` from here)
    from scholarbench.benchmarks.taxobench.agents import (bm25_title, deep_research,  # noqa: F401
                                                          llm_taxonomy, replay)


_register_builtins()
