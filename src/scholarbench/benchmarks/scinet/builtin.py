"""SciNet's own agents seen through the one agent contract (`core.agent`).

SciNet's built-in agents keep their typed protocol (`agents.py`): `answer(task: SciNetTask,
ctx: SciNetContext) -> [paper ids]` (and optionally `answer_with_info`, returning `(papers,
info)`), with `uses_llm` / `needs_embedder` flags and `config()`. `NativeAgent` wraps one of them
for the engine: it declares what the agent needs, hands it the task without its ground truth and
the graph environment, and returns the family answer `{"papers": […], "info": {…}}`.

Registered here (light: the agents themselves are imported when one is built):
`scinet/embedding`, `scinet/bm25`, `scinet/relation-aware`, `scinet/deep-research` — typed on
the command line with or without the `scinet/` prefix.
"""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.registry import register_agent
from scholarbench.errors import ScholarbenchError

BUILTIN = ("embedding", "bm25", "relation-aware", "deep-research")


def is_native(obj: Any) -> bool:
    """An agent class or object in SciNet's own protocol (not the core contract)."""
    return callable(getattr(obj, "answer", None)) and not callable(getattr(obj, "solve", None))


class NativeAgent:
    """The engine's view of one agent in SciNet's own protocol."""

    def __init__(self, native: Any, name: str) -> None:
        self.native, self.name = native, name
        self.needs = Needs(llm=bool(getattr(native, "uses_llm", False)),
                           embedder=bool(getattr(native, "needs_embedder", False)))

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return benchmark == "scinet"

    def config(self) -> dict[str, Any]:
        return self.native.config()

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.benchmarks.scinet.agents import SciNetContext
        env = ctx.extra.get("env")
        if env is None or task.native is None:
            raise RuntimeError(f"{self.name} is one of SciNet's own agents: it runs on SciNet "
                               "tasks in SciNet's graph only")
        blind = dataclasses.replace(task.native, gold=None)       # never the ground truth
        sctx = SciNetContext(env=env, embedder=ctx.embedder, llm=ctx.llm,
                             params=dict(ctx.params))
        with_info = getattr(self.native, "answer_with_info", None)
        if with_info is not None:
            papers, info = with_info(blind, sctx)
        else:
            papers, info = self.native.answer(blind, sctx), None
        out: dict[str, Any] = {"papers": list(papers)}
        if info is not None:
            out["info"] = info
        return out


class _Builtin(NativeAgent):
    short: ClassVar[str]

    def __init__(self, **params: Any) -> None:
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.benchmarks.scinet.agents import make_scinet_agent
        try:
            native = make_scinet_agent(self.short, **params)
        except (TypeError, ValueError) as exc:
            raise ScholarbenchError(f"agent scinet/{self.short}: {exc}") from None
        super().__init__(native, self.short)


def native_agent(obj: Any, name: str, params: dict[str, Any]) -> NativeAgent:
    """A registered class (built with `params`) or object in SciNet's own protocol, wrapped."""
    if isinstance(obj, type):
        try:
            obj = obj(**params)
        except TypeError as exc:
            raise ScholarbenchError(f"agent {name!r}: cannot construct it with "
                                    f"{params or 'no arguments'} ({exc})") from None
    return NativeAgent(obj, name)


for _short in BUILTIN:
    register_agent(f"scinet/{_short}", benchmarks=("scinet",),
                   fits=lambda subtask, family: True)(
        type(f"SciNet_{_short.replace('-', '_')}", (_Builtin,),
             {"short": _short, "__doc__": f"scinet/{_short} (see agents.py)"}))
