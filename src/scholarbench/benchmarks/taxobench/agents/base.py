"""The agent interface for TaxoBench tasks."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from scholarbench.embed.base import Embedder
from scholarbench.records import TaxoPrediction, TaxoTask
from scholarbench.core.registry import REGISTRY

MODES = ("bottom-up", "deep-research")


@dataclass
class AgentContext:
    """What an agent may use. `corpus_dir` is the corpus store (Deep Research mode)."""
    mode: str
    embedder: Embedder
    corpus_dir: Path | None = None
    seed: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    llm: Any = None          # the agent role's ChatClient, for agents with `uses_llm = True`
    tools: Any = None        # the sample's literature tools, for agents with `uses_tools = True`


class TaxoAgent(Protocol):
    name: str
    modes: tuple[str, ...]

    def config(self) -> dict[str, Any]:
        """Everything that changes the output; recorded in the run manifest."""
        ...

    def generate(self, task: TaxoTask, ctx: AgentContext) -> TaxoPrediction: ...


def make_agent(name: str, **params: Any) -> TaxoAgent:
    factory = REGISTRY.get("agent", name)
    return factory(**params)  # type: ignore[operator]
