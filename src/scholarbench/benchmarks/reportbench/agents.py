"""ReportBench's built-in agents behind the engine's one agent contract.

The report writers (`e2e-writer`, `agentic-writer`, `agents/writers/`) are shared with
DeepSynth-Eval and keep their own protocol, `write(WritingRequest, WriterContext) ->
WrittenReport`; they are looked up in the registry by name (any registered class with a
`write` method is a writer) and wrapped here in `WriterAgent`, so the engine sees one contract.
The request is the sample's (`samples.ReportTask.request`): the evaluation prompt, the topic,
the cut-off and the hidden survey's ids to exclude. `--agent replay` is `replay.ReplayReports`,
which follows both protocols itself.
"""
from __future__ import annotations

import inspect
from typing import Any

from scholarbench.agents.writers.base import WriterContext
from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.errors import ScholarbenchError
from scholarbench.core.registry import REGISTRY


class WriterSetupError(ScholarbenchError, ValueError):
    """A writer cannot be built with the given --agent-arg parameters."""


def is_writer(obj: Any) -> bool:
    """A registered class (or object) following the writer protocol."""
    return callable(getattr(obj, "write", None)) and callable(getattr(obj, "config", None))


class WriterAgent:
    """A report writer as an engine agent: `solve` returns the writer's `WrittenReport`, which
    `ReportBench.record` turns into the generate.jsonl line."""

    def __init__(self, factory: Any, name: str, params: dict[str, Any] | None = None) -> None:
        self.name, self.params = name, dict(params or {})
        if inspect.isclass(factory):
            try:
                self.writer = factory(**self.params)
            except (TypeError, ValueError) as exc:
                raise WriterSetupError(f"writer {name!r}: {exc}") from None
        else:
            self.writer = factory
        self.needs = Needs(llm=bool(getattr(self.writer, "uses_llm", False)), corpus=True)

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return family == "report"

    def config(self) -> dict[str, Any]:
        return self.writer.config()

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        writer_ctx = WriterContext(llm=ctx.llm, corpus_dir=ctx.corpus_dir, corpus=ctx.corpus,
                                   params=dict(self.params))
        return self.writer.write(task.native.request(), writer_ctx)


def writer_names() -> list[str]:
    return [name for name, obj in REGISTRY.items("agent") if is_writer(obj)]
