"""The one adapter between ResearchArena's built-in agents and the engine's agent contract.

A built-in agent keeps its typed protocol (`base.ArenaAgent`: `generate(ArenaQuery,
ArenaContext) -> ArenaOutput`); the engine sees `ArenaAgentAdapter`, which has the contract's
`name`, `needs`, `fits`, `config` and `solve(Task, AgentContext)`. `solve` hands the agent the
task's `native` `ArenaQuery` and the benchmark's `ArenaContext` (in `ctx.extra["arena"]`) and
returns what the agent returned — an `ArenaOutput`, or a family answer dict (`replay`) — for
the benchmark's `record` to turn into the generate.jsonl line.

Failed model calls. The engine makes a sample `error` (never a result, retried on resume) when
an agent model call failed after every retry, even if the agent fell back on something else —
e.g. ZERO-SHOT searching with the topic when the model is unreachable. `on_model_failure`
(an agent argument, default ``"error"``) keeps that rule; ``"fallback"`` instead scores the
agent's stated fallback as its answer (the old behaviour, for runs that want the LLM agents'
documented degradations measured): the sample's failed calls are then marked recovered on the
client (so the engine does not flag them; `failures` in the usage still counts them) and the
fallback stays recorded in `info["fallback"]`. The choice is part of the agent's config, so a
run directory never mixes the two.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.usage import current_scope

ON_MODEL_FAILURE = ("error", "fallback")


class ArenaAgentAdapter:
    """A built-in `ArenaAgent` behind the core agent contract."""

    def __init__(self, inner: Any, name: str, on_model_failure: str = "error") -> None:
        if on_model_failure not in ON_MODEL_FAILURE:
            raise ScholarbenchError(f"agent {name!r}: on_model_failure must be one of "
                                    f"{', '.join(ON_MODEL_FAILURE)}, got {on_model_failure!r}")
        self.inner = inner
        self.name = name
        self.on_model_failure = on_model_failure
        self.needs = Needs(llm=bool(getattr(inner, "uses_llm", False)),
                           corpus=bool(getattr(inner, "needs_corpus", False)),
                           embedder=bool(getattr(inner, "needs_embedder", False)),
                           tools=bool(getattr(inner, "uses_tools", False)))

    @property
    def problems(self) -> list[str]:
        """Lines of an input file (the replay agent's) the engine warns about."""
        return list(getattr(self.inner, "problems", ()))

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(getattr(self.inner, "tasks", ()))

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return benchmark == "researcharena" and subtask in self.tasks

    def config(self) -> dict[str, Any]:
        config = dict(self.inner.config())
        if self.on_model_failure != "error":
            config["on_model_failure"] = self.on_model_failure
        return config

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        arena = ctx.extra["arena"]
        if ctx.tools is not None:           # this sample's session (engine.generate)
            arena = replace(arena, tools=ctx.tools)
        usage = getattr(ctx.llm, "usage", None)
        # this sample's own count when the engine runs samples at once (llm.usage)
        counter = current_scope() or usage
        failed_before = counter.unrecovered_failures() if counter is not None else 0
        output = self.inner.generate(task.native, arena)
        if self.on_model_failure == "fallback" and usage is not None and counter is not None:
            for _ in range(counter.unrecovered_failures() - failed_before):
                usage.add_recovered()      # the fallback is the answer (module docstring)
        return output
