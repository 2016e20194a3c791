"""One registry for benchmarks, agents, measures and report sections.

Entries are registered by the modules that define them (`register(kind, name)`); the registry
fills itself on first lookup by importing every package under `scholarbench.benchmarks` (each
benchmark's `__init__` registers its benchmark, agents, measures and report section), the shared
agent modules, and the entry points of installed distributions:

    [project.entry-points."scholarbench.benchmarks"]
    mybench = "mypkg.mybench"            # a module that registers itself, or a Benchmark class
    [project.entry-points."scholarbench.agents"]
    my-agent = "mypkg.agent:solve"       # a class or a plain callable f(task: dict) -> dict

So a new benchmark is one folder (or one installed package) plus an entry point: nothing shared
is edited. Lookups of unknown names raise `KeyError` listing the known ones.
"""
from __future__ import annotations

import importlib
import pkgutil
from importlib import metadata
from typing import Any, Callable, TypeVar

T = TypeVar("T")

KINDS = ("benchmark", "agent", "measure", "section")
ALIASES = {"metric": "measure"}
ENTRY_POINT_GROUPS = {"scholarbench.benchmarks": "benchmark", "scholarbench.agents": "agent"}

# Modules that register shared entries (agents used by several benchmarks, pure measures).
_SHARED_MODULES: tuple[str, ...] = (
    "scholarbench.agents.writers.e2e",
    "scholarbench.agents.writers.agentic",
)
# Modules of benchmarks not yet moved into `scholarbench.benchmarks`; each move deletes its lines.
_LEGACY_MODULES: tuple[str, ...] = (
    "scholarbench.agents.replay",
    "scholarbench.agents.cluster",
    "scholarbench.agents.bm25_title",
    "scholarbench.agents.llm_taxonomy",
    "scholarbench.agents.deep_research_taxo",
    "scholarbench.metrics.taxobench",
    "scholarbench.agents.researcharena.title_bm25",
    "scholarbench.agents.researcharena.citation_expand",
    "scholarbench.agents.researcharena.dense",
    "scholarbench.agents.researcharena.cluster",
    "scholarbench.agents.researcharena.replay",
    "scholarbench.agents.researcharena.zero_shot",
    "scholarbench.agents.researcharena.decomposer",
    "scholarbench.agents.researcharena.self_rag",
    "scholarbench.agents.researcharena.storm",
    "scholarbench.agents.researcharena.few_shot",
    "scholarbench.agents.researcharena.deep_research_agent",
    "scholarbench.metrics.organisation",
    "scholarbench.runner.researcharena",
    "scholarbench.runner.reportbench",
    "scholarbench.scinet.metrics",
    "scholarbench.scinet.agents",
    "scholarbench.runner.scinet",
)


class Registry:
    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
        self._meta: dict[tuple[str, str], dict[str, Any]] = {}
        self._loaded = False
        self._loading = False
        self.load_problems: list[str] = []

    def register(self, kind: str, name: str, **meta: Any) -> Callable[[T], T]:
        kind = ALIASES.get(kind, kind)

        def decorate(obj: T) -> T:
            table = self._entries[kind]
            if name in table and table[name] is not obj:
                raise ValueError(f"{kind} {name!r} registered twice")
            table[name] = obj
            self._meta[(kind, name)] = meta
            return obj
        return decorate

    def add(self, kind: str, name: str, obj: Any, **meta: Any) -> Any:
        return self.register(kind, name, **meta)(obj)

    # -- loading ---------------------------------------------------------------------------
    def load(self) -> None:
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            import scholarbench.benchmarks as pkg
            for info in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + "."):
                importlib.import_module(info.name)
            for module in _SHARED_MODULES + _LEGACY_MODULES:
                importlib.import_module(module)
            self._load_entry_points()
        finally:
            self._loading = False
            self._loaded = True

    _load_builtins = load     # the former name, still used by a few tests' fixtures

    def _load_entry_points(self) -> None:
        for group, kind in ENTRY_POINT_GROUPS.items():
            for ep in metadata.entry_points(group=group):
                try:
                    obj = ep.load()
                except Exception as exc:  # one broken plug-in must not hide the others
                    self.load_problems.append(f"entry point {ep.name} = {ep.value}: "
                                              f"{type(exc).__name__}: {exc}")
                    continue
                if kind == "benchmark" and isinstance(obj, type) and ep.name not in \
                        self._entries["benchmark"]:
                    self.add("benchmark", ep.name, obj)
                elif kind == "agent" and ep.name not in self._entries["agent"]:
                    self.add("agent", ep.name, obj, external=True)

    # -- lookups ---------------------------------------------------------------------------
    def get(self, kind: str, name: str) -> Any:
        kind = ALIASES.get(kind, kind)
        self.load()
        try:
            return self._entries[kind][name]
        except KeyError:
            known = ", ".join(sorted(self._entries[kind])) or "none"
            raise KeyError(f"unknown {kind} {name!r}; known: {known}") from None

    def find(self, kind: str, name: str) -> Any | None:
        kind = ALIASES.get(kind, kind)
        self.load()
        return self._entries[kind].get(name)

    def meta(self, kind: str, name: str) -> dict[str, Any]:
        self.load()
        return self._meta.get((ALIASES.get(kind, kind), name), {})

    def names(self, kind: str) -> list[str]:
        kind = ALIASES.get(kind, kind)
        self.load()
        return sorted(self._entries[kind])

    def items(self, kind: str) -> list[tuple[str, Any]]:
        kind = ALIASES.get(kind, kind)
        self.load()
        return sorted(self._entries[kind].items())


REGISTRY = Registry()


def register_benchmark(name: str):
    return REGISTRY.register("benchmark", name)


def register_agent(name: str, **meta: Any):
    """`meta`: `benchmarks=("taxobench",)` ties a built-in agent to the benchmarks it serves."""
    return REGISTRY.register("agent", name, **meta)


def register_measure(name: str):
    return REGISTRY.register("measure", name)


register_metric = register_measure


def register_section(name: str):
    return REGISTRY.register("section", name)
