"""One registry for benchmarks, agents, measures, report sections, data sets and exports.

It sits below every other package (it imports only the standard library), so a shared floor
(`data`, `report`, `agents`) reaches a benchmark's own code through a lookup by name, never by
importing `scholarbench.benchmarks.<name>`: a benchmark registers its data-set importer (kind
"dataset": `importer(source, target) -> files`) and its retrieved-paper export (kind "export")
in its package `__init__`.

An entry is an object, or a `"module:attr"` string registered with `lazy(kind, name, target)`:
the module is imported on the first lookup of that name, so registering imports nothing heavy
and the benchmark's modules can import what they need at the top of the file.

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
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Callable, TypeVar
import scholarbench.benchmarks as pkg

T = TypeVar("T")

KINDS = ("benchmark", "agent", "measure", "section", "dataset", "export")
# Kinds the benchmark packages' light `__init__`s register (no submodule import needed).
PACKAGE_KINDS = ("benchmark", "dataset", "export")
ALIASES = {"metric": "measure"}
ENTRY_POINT_GROUPS = {"scholarbench.benchmarks": "benchmark", "scholarbench.agents": "agent"}
# Submodules of a benchmark package that register agents, measures and report sections.
REGISTERING_SUBMODULES = ("agents", "measures", "report")

# Modules that register shared entries (agents used by several benchmarks, pure measures).
_SHARED_MODULES: tuple[str, ...] = (
    "scholarbench.agents.writers.e2e",
    "scholarbench.agents.writers.agentic",
)


@dataclass(frozen=True)
class Lazy:
    """A `"module:attr"` entry, imported on its first lookup."""
    target: str

    def load(self) -> Any:
        module, _, attr = self.target.partition(":")
        obj: Any = importlib.import_module(module)
        for part in filter(None, attr.split(".")):
            obj = getattr(obj, part)
        return obj


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
            # a lazy entry is kept by its module registering the object it names
            if name in table and table[name] is not obj and not isinstance(table[name], Lazy):
                raise ValueError(f"{kind} {name!r} registered twice")
            kept = self._meta.get((kind, name), {}) if isinstance(table.get(name), Lazy) else {}
            table[name] = obj
            self._meta[(kind, name)] = {**kept, **meta}
            return obj
        return decorate

    def add(self, kind: str, name: str, obj: Any, **meta: Any) -> Any:
        return self.register(kind, name, **meta)(obj)

    def lazy(self, kind: str, name: str, target: str, **meta: Any) -> None:
        """Register `target` ("package.module:attr") under `name`, imported on first lookup."""
        if ":" not in target:
            raise ValueError(f"a lazy {kind} entry is 'module:attr', got {target!r}")
        kind = ALIASES.get(kind, kind)
        existing = self._entries[kind].get(name)
        if existing is None:
            self._entries[kind][name] = Lazy(target)
            self._meta[(kind, name)] = meta
        elif isinstance(existing, Lazy) and existing.target != target:
            raise ValueError(f"{kind} {name!r} registered twice ({existing.target}, {target})")
        # else: the same promise again, or its module already registered the object

    def _resolve(self, kind: str, name: str) -> Any:
        entry = self._entries[kind][name]
        if not isinstance(entry, Lazy):
            return entry
        obj = entry.load()             # the import may register `obj` itself (decorators)
        current = self._entries[kind][name]
        if not isinstance(current, Lazy) and current is not obj:
            raise ValueError(f"{kind} {name!r} registered twice ({entry.target} and another)")
        self._entries[kind][name] = obj
        return obj

    # -- loading ---------------------------------------------------------------------------
    def load(self, kind: str | None = None) -> None:
        """Fill the registry. Benchmarks, data sets and exports (what the command line needs to
        build its parsers) import only the benchmark packages' light `__init__`s; any other kind also
        imports each package's registering submodules (`agents`, `measures`, `report`), the
        shared modules and the agent entry points."""
        if not self._benchmarks_loaded:
            self._benchmarks_loaded = True
            self._packages = [info.name for info in
                              pkgutil.iter_modules(pkg.__path__, pkg.__name__ + ".")]
            for name in self._packages:
                importlib.import_module(name)
            self._load_entry_points("scholarbench.benchmarks")
        if kind in PACKAGE_KINDS or self._loaded or self._loading:
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
        if name not in self._entries[kind]:
            known = ", ".join(sorted(self._entries[kind])) or "none"
            raise KeyError(f"unknown {kind} {name!r}; known: {known}")
        return self._resolve(kind, name)

    def find(self, kind: str, name: str) -> Any | None:
        kind = ALIASES.get(kind, kind)
        self.load(kind)
        return self._resolve(kind, name) if name in self._entries[kind] else None

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
        return [(name, self._resolve(kind, name)) for name in sorted(self._entries[kind])]


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
