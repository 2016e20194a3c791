"""The agent interface for ResearchArena tasks.

An agent sees an `ArenaQuery`, never the task's gold: the topic (the survey title), the
leakage cut-off, the survey's own corpus id (so it can be excluded), and, for organisation in
the paper's *intermediate* setting (§5: "references R from the original survey paper could be
provided"), the survey's resolved references.

    discovery, selection   -> ArenaOutput(ranking=[(paper_id, score), ...])   best first
    organisation           -> ArenaOutput(mindmap=TaxoNode)                    a mind-map

The list order is the ranking: the scorer scores rank i of n with n - i + 1 (see
`scholarbench.benchmarks.researcharena.scoring`), so ties in an agent's own scores never reorder
it.

Agents are registered with `@arena_agent(name)` as ``researcharena/<name>`` (the TaxoBench agents
keep the plain names; `cluster` exists for both benchmarks) and looked up by
`make_arena_agent(name)`. The engine sees each through one adapter (`agents.adapter`) that
follows the core agent contract; this typed protocol stays inside the benchmark's package.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from scholarbench.benchmarks.researcharena.records import ArenaTask
from scholarbench.core.registry import REGISTRY, register_agent
from scholarbench.corpus.store import Corpus
from scholarbench.embed.base import Embedder
from scholarbench.records import TaxoNode
from scholarbench.tools.rules import AccessRules

TASKS = ("discovery", "selection", "organisation")
BENCHMARK = "researcharena"
PREFIX = BENCHMARK + "/"


@dataclass(frozen=True)
class ArenaQuery:
    """What an agent may know about a task."""
    id: str
    topic: str
    cutoff: date | None                  # search only non-surveys known to precede this day
    survey_id: str | None                # the survey's corpus paper_id (exclude it)
    references: tuple[str, ...] | None   # organisation only (intermediate setting)

    @classmethod
    def of(cls, task: ArenaTask, task_kind: str) -> "ArenaQuery":
        refs = tuple(task.references) if task_kind == "organisation" else None
        return cls(task.id, task.topic, task.cutoff, task.survey_id, refs)


@dataclass
class ArenaContext:
    task: str                            # discovery / selection / organisation
    corpus: Corpus | None = None
    embedder: Embedder | None = None
    params: dict[str, Any] = field(default_factory=dict)
    llm: Any = None          # the agent role's ChatClient, for agents with `uses_llm = True`
    tools: Any = None        # the sample's literature tools, for agents with `uses_tools = True`


@dataclass
class ArenaOutput:
    ranking: list[tuple[str, float]] | None = None
    mindmap: TaxoNode | None = None
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)   # recorded in generate.jsonl


class ArenaAgent(Protocol):
    name: str
    tasks: tuple[str, ...]
    needs_corpus: bool
    needs_embedder: bool

    def config(self) -> dict[str, Any]:
        """Everything that changes the output; recorded in the run manifest."""
        ...

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput: ...


def arena_agent(name: str):
    """Register a built-in agent class as ``researcharena/<name>``, for the sub-tasks in its
    `tasks` (what `scholarbench list agent` and the engine's error messages show)."""
    def decorate(cls: type) -> type:
        return register_agent(PREFIX + name, benchmarks=(BENCHMARK,),
                              fits=lambda subtask, family: subtask in cls.tasks)(cls)
    return decorate


def make_arena_agent(name: str, **params: Any) -> ArenaAgent:
    """`title-bm25` or `researcharena/title-bm25`; KeyError listing the known names."""
    full = name if name.startswith(PREFIX) else PREFIX + name
    try:
        factory = REGISTRY.get("agent", full)
    except KeyError:
        known = ", ".join(n[len(PREFIX):] for n in REGISTRY.names("agent") if n.startswith(PREFIX))
        raise KeyError(f"unknown ResearchArena agent {name!r}; known: {known}") from None
    return factory(**params)  # type: ignore[operator]


RULE = ("ResearchArena: only non-surveys published before the survey, never the survey itself "
        "(nor a record with its title)")


def access_rules(query: ArenaQuery) -> Any:
    """The leakage rule as the literature tools enforce it (`tools.rules`): `search_filters`,
    plus every corpus record carrying the survey's title (the topic is that title)."""
    hidden = tuple(x for x in (query.survey_id, query.topic) if x)
    return AccessRules(before=query.cutoff, exclude_surveys=True, exclude_ids=hidden, why=RULE)


def search_filters(query: ArenaQuery) -> dict[str, Any]:
    """Keyword arguments of `Corpus.search_*` that enforce the leakage rule for `query`."""
    return {"before": query.cutoff, "exclude_surveys": True,
            "exclude_ids": [query.survey_id] if query.survey_id else []}


class CorpusAgentMixin:
    """Opens nothing itself: the benchmark passes the opened corpus in the context."""
    name: str

    def need_corpus(self, ctx: ArenaContext) -> Corpus:
        if ctx.corpus is None:
            raise ValueError(f"{self.name} needs a corpus (run with --corpus, or let the CLI "
                             "build the default one)")
        return ctx.corpus
