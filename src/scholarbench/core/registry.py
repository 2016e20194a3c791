"""One registry for benchmarks, agents, measures and report sections.

Entries are registered by the modules that define them (`register(kind, name)`); the registry
fills itself on first lookup by importing every package under `scholarbench.benchmarks` (each
package's `__init__` registers its benchmark; its `agents`, `measures` and `report` submodules,
imported only when those kinds are looked up, register the rest), the shared agent modules, and
the entry points of installed distributions:

    [project.entry-points."scholarbench.benchmarks"]
    mybench = "mypkg.mybench"            # a module that registers itself, or a Benchmark class
    [project.entry-points."scholarbench.agents"]
    my-agent = "mypkg.agent:solve"       # a class or a plain callable f(task: dict) -> dict

So a new benchmark is one folder (or one installed package) plus an entry point: nothing shared
is edited. Lookups of unknown names raise `KeyError` listing the known ones.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from importlib import metadata
from typing import Any, Callable, TypeVar

T = TypeVar("T")

KINDS = ("benchmark", "agent", "measure", "section")
ALIASES = {"metric": "measure"}
ENTRY_POINT_GROUPS = {"scholarbench.benchmarks": "benchmark", "scholarbench.agents": "agent"}
# Submodules of a benchmark package that register agents, measures and report sections.
REGISTERING_SUBMODULES = ("agents", "measures", "report")

# Modules that register shared entries (agents used by several benchmarks, pure measures).
_SHARED_MODULES: tuple[str, ...] = (
    "scholarbench.agents.writers.e2e",
    "scholarbench.agents.writers.agentic",
)


class Registry:
    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
        self._meta: dict[tuple[str, str], dict[str, Any]] = {}
        self._loaded = False
        self._loading = False
        self._benchmarks_loaded = False
        self._packages: list[str] = []
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
    def load(self, kind: str | None = None) -> None:
        """Fill the registry. Benchmarks alone (what the command line needs to build its
        parsers) import only the benchmark packages' light `__init__`s; any other kind also
        imports each package's registering submodules (`agents`, `measures`, `report`), the
        shared modules and the agent entry points."""
        if not self._benchmarks_loaded:
            self._benchmarks_loaded = True
            import scholarbench.benchmarks as pkg
            self._packages = [info.name for info in
                              pkgutil.iter_modules(pkg.__path__, pkg.__name__ + ".")]
            for name in self._packages:
                importlib.import_module(name)
            self._load_entry_points("scholarbench.benchmarks")
        if kind == "benchmark" or self._loaded or self._loading:
            return
        self._loading = True
        try:
            for package in self._packages:
                for sub in REGISTERING_SUBMODULES:
                    if importlib.util.find_spec(f"{package}.{sub}") is not None:
                        importlib.import_module(f"{package}.{sub}")
            for module in _SHARED_MODULES:
                importlib.import_module(module)
            self._load_entry_points("scholarbench.agents")
        finally:
            self._loading = False
            self._loaded = True

    def _load_entry_points(self, group: str) -> None:
        kind = ENTRY_POINT_GROUPS[group]
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
        self.load(kind)
        try:
            return self._entries[kind][name]
        except KeyError:
            known = ", ".join(sorted(self._entries[kind])) or "none"
            raise KeyError(f"unknown {kind} {name!r}; known: {known}") from None

    def find(self, kind: str, name: str) -> Any | None:
        kind = ALIASES.get(kind, kind)
        self.load(kind)
        return self._entries[kind].get(name)

    def meta(self, kind: str, name: str) -> dict[str, Any]:
        self.load(ALIASES.get(kind, kind))
        return self._meta.get((ALIASES.get(kind, kind), name), {})

    def names(self, kind: str) -> list[str]:
        kind = ALIASES.get(kind, kind)
        self.load(kind)
        return sorted(self._entries[kind])

    def items(self, kind: str) -> list[tuple[str, Any]]:
        kind = ALIASES.get(kind, kind)
        self.load(kind)
        return sorted(self._entries[kind].items())


REGISTRY = Registry()


def register_benchmark(name: str):
    return REGISTRY.register("benchmark", name)


def register_agent(name: str, **meta: Any):
    """`meta`: `benchmarks=("taxobench",)` ties a built-in agent to the benchmarks it serves."""
    return REGISTRY.register("agent", name, **meta)


def register_measure(name: str):
    return REGISTRY.register("measure", name)


def add_measures(measures: Any) -> None:
    """Register `core.measure.Measure`s under their qualified names (`benchmark/key`), so two
    benchmarks may both have an `f1`."""
    for measure in measures:
        REGISTRY.add("measure", measure.qualified, measure)


register_metric = register_measure


def register_section(name: str):
    return REGISTRY.register("section", name)
