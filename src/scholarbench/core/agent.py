"""One agent contract, and the ways a user's agent comes in.

An agent has a `name`, declares what it `needs` (the agent role's chat model, the corpus, the
embedder, tools), says which tasks it `fits`, reports its `config()` (everything that changes its
output; recorded in the manifest and compared on resume) and answers one task at a time:

    solve(task: Task, ctx: AgentContext) -> answer

The answer is the task family's schema (`core.families`) as a model or a JSON-able dict.
Built-in agents of one benchmark may return that benchmark's own typed output instead; their
benchmark reads it (see each `benchmarks/<name>/agents.py`).

Ways in (`--agent SPEC`):
- a registered name (`cluster`, `title-bm25`, an entry point of group `scholarbench.agents`);
- `package.module:attr` — a class following this contract (constructed with `--agent-arg`s), or a
  plain callable `f(task: dict) -> dict` taking `Task.as_json()` and returning the answer JSON
  (with `f.tools = True` it also gets the sample's MCP tools server, docs/tools.md);
- `endpoint` — an OpenAI-compatible endpoint is the whole agent (`core.endpoint`);
- `replay` with `--agent-arg path=FILE` — one answer per line, `{"id": …, **answer}`.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.transcript import note


@dataclass(frozen=True)
class Needs:
    """What the engine must build into an agent's context."""
    llm: bool = False          # the agent role's chat model
    corpus: bool = False       # the offline corpus (search, lookups)
    embedder: bool = False     # MiniLM
    tools: bool = False        # the literature tools (MCP)


class Task(BaseModel):
    """What an agent sees of one sample; never the gold. `fields` are the benchmark's own
    (topic, paper list, cut-off date, constraints, …); `native` is the benchmark's typed task
    object for its built-in agents and is never serialised."""
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    id: str
    benchmark: str
    subtask: str | None = None
    family: str
    prompt: str
    fields: dict[str, Any] = Field(default_factory=dict)
    native: Any = Field(default=None, exclude=True)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "benchmark": self.benchmark, "subtask": self.subtask,
                "family": self.family, "prompt": self.prompt, **self.fields}


@dataclass
class AgentContext:
    """Built by the engine from what the agent needs. Benchmark-specific handles (SciNet's
    graph environment, an oracle context) go in `extra`."""
    benchmark: str
    subtask: str | None = None
    llm: Any = None                   # the agent role's ChatClient
    corpus: Any = None                # an open corpus.store.Corpus
    corpus_dir: Path | None = None
    embedder: Any = None
    tools: Any = None
    seed: int = 0                     # the epoch's seed (`core.epochs`; 0 without epochs)
    epoch: int | None = None          # the epoch, in a run with `--epochs K` > 1
    params: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def note(self, kind: str, **data: Any) -> None:
        """A step of the agent's own (a search it ran, a choice it made) into the sample's
        transcript beside its chat calls (`llm.transcript`; shown in the report's
        drill-down). Values that are not plain are kept as their text."""
        note(kind, **data)


@runtime_checkable
class Agent(Protocol):
    name: str
    needs: Needs

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool: ...

    def config(self) -> dict[str, Any]: ...

    def solve(self, task: Task, ctx: AgentContext) -> Any: ...


class AgentError(ScholarbenchError):
    """The agent or its endpoint failed on a sample: that sample's status is `error`."""


class FunctionAgent:
    """A plain callable `f(task: dict) -> dict` as an agent that fits every family. A function
    with the attribute `tools = True` gets the sample's literature tools as `task["tools"]`:
    `{"mcp_url": …, "mcp_stdio": {"command", "args"}, "rules": …}` with synchronous methods
    (`task["tools"].search("…", k=5)`; `tools.handle.ToolsHandle`, docs/tools.md)."""

    def __init__(self, func: Callable[[dict[str, Any]], Any], spec: str,
                 params: dict[str, Any] | None = None) -> None:
        self.func, self.name, self.params = func, spec, dict(params or {})
        self.needs = Needs(tools=bool(getattr(func, "tools", False)))
        self.max_samples = getattr(func, "max_samples", None)   # 1: not thread-safe

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        families = getattr(self.func, "families", None)
        return families is None or family in families

    def config(self) -> dict[str, Any]:
        return {"callable": self.name, **self.params}

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        data = task.as_json()
        if self.params:
            data["params"] = dict(self.params)
        if ctx.epoch is not None:           # `--epochs K` (core.epochs)
            data.update(epoch=ctx.epoch, seed=ctx.seed)
        if self.needs.tools and ctx.tools is not None:
            data["tools"] = ctx.tools.describe()
        return self.func(data)


def import_object(spec: str) -> Any:
    """`package.module:attr` (attr may be dotted) → the object; ScholarbenchError otherwise."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ScholarbenchError(f"--agent {spec!r}: expected package.module:attr")
    _cwd_on_path()
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and exc.name == module_name.split(".")[0]:
            import os
            hint = (f"; run from the folder that holds it (not {os.getcwd()}) or add that "
                    "folder to PYTHONPATH")
        raise ScholarbenchError(f"--agent {spec!r}: cannot import {module_name} "
                                f"({exc}){hint}") from None
    except Exception as exc:     # the user's module fails to compile or to run at import
        where = f", line {exc.lineno}" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise ScholarbenchError(f"--agent {spec!r}: importing {module_name} raised "
                                f"{type(exc).__name__}{where}: {exc}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ScholarbenchError(f"--agent {spec!r}: {module_name} has no {attr!r}") from None
    return obj


def _cwd_on_path() -> None:
    """The current directory first on sys.path, as `python -m` puts it: an agent module in the
    folder the command runs from imports without setting PYTHONPATH."""
    import os
    import sys
    cwd = os.getcwd()
    if not any(p in ("", ".", cwd) for p in sys.path):
        sys.path.insert(0, cwd)


def agent_from_object(obj: Any, name: str, params: dict[str, Any]) -> Agent:
    """A class following the contract (constructed with params), an instance of one, or a
    plain callable (wrapped in `FunctionAgent`)."""
    if inspect.isclass(obj):
        try:
            instance = obj(**params)
        except TypeError as exc:
            raise ScholarbenchError(f"agent {name!r}: cannot construct {obj.__name__} with "
                                    f"{params or 'no arguments'} ({exc})") from None
        if not hasattr(instance, "name"):
            instance.name = name
        return _checked(instance, name)
    if hasattr(obj, "solve"):
        return _checked(obj, name)
    if callable(obj):
        return FunctionAgent(obj, name, params)
    raise ScholarbenchError(f"agent {name!r} is neither a class, an agent object nor a callable")


def _checked(agent: Any, name: str) -> Agent:
    missing = [a for a in ("solve", "config") if not callable(getattr(agent, a, None))]
    if missing:
        raise ScholarbenchError(f"agent {name!r} does not follow the agent contract: no "
                                f"{', '.join(missing)}() (see docs/agents.md)")
    if not hasattr(agent, "needs"):
        agent.needs = Needs()
    if not callable(getattr(agent, "fits", None)):
        agent.fits = lambda benchmark, subtask, family: True
    return agent
