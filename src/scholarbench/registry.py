"""One registry for agents, metrics and benchmarks, filled lazily on first lookup.

Entries are registered by the modules that define them (decorators below); `_load_builtins`
imports those modules the first time the registry is asked, so `import scholarbench` stays cheap.
"""
from __future__ import annotations

import importlib
from typing import Callable, TypeVar

T = TypeVar("T")

_BUILTIN_MODULES = (
    "scholarbench.agents.replay",
    "scholarbench.agents.cluster",
    "scholarbench.agents.bm25_title",
    "scholarbench.agents.llm_taxonomy",
    "scholarbench.agents.deep_research_taxo",
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
    "scholarbench.metrics.taxobench",
    "scholarbench.metrics.organisation",
    "scholarbench.runner.researcharena",
    "scholarbench.deepsynth.scores",
    "scholarbench.runner.reportbench",
    "scholarbench.agents.writers.e2e",
    "scholarbench.agents.writers.agentic",
    "scholarbench.scinet.metrics",
    "scholarbench.scinet.agents",
    "scholarbench.runner.scinet",
)


class Registry:
    def __init__(self) -> None:
        self._entries: dict[str, dict[str, object]] = {"agent": {}, "metric": {}, "benchmark": {}}
        self._loaded = False

    def register(self, kind: str, name: str) -> Callable[[T], T]:
        def decorate(obj: T) -> T:
            table = self._entries[kind]
            if name in table and table[name] is not obj:
                raise ValueError(f"{kind} {name!r} registered twice")
            table[name] = obj
            return obj
        return decorate

    def _load_builtins(self) -> None:
        if not self._loaded:
            self._loaded = True
            for module in _BUILTIN_MODULES:
                importlib.import_module(module)

    def get(self, kind: str, name: str) -> object:
        self._load_builtins()
        try:
            return self._entries[kind][name]
        except KeyError:
            known = ", ".join(sorted(self._entries[kind])) or "none"
            raise KeyError(f"unknown {kind} {name!r}; known: {known}") from None

    def names(self, kind: str) -> list[str]:
        self._load_builtins()
        return sorted(self._entries[kind])


REGISTRY = Registry()


def register_agent(name: str):
    return REGISTRY.register("agent", name)


def register_metric(name: str):
    return REGISTRY.register("metric", name)


def register_benchmark(name: str):
    return REGISTRY.register("benchmark", name)
