"""The registry lives in `scholarbench.registry` (below every package, so the shared floors can
look a benchmark's entries up without importing it); re-exported here for the engine's callers."""
from scholarbench.registry import (ALIASES, ENTRY_POINT_GROUPS, KINDS, PACKAGE_KINDS, REGISTRY,
                                   REGISTERING_SUBMODULES, Lazy, Registry, add_measures,
                                   register_agent, register_benchmark, register_measure,
                                   register_metric, register_section)

__all__ = ["ALIASES", "ENTRY_POINT_GROUPS", "KINDS", "PACKAGE_KINDS", "REGISTRY",
           "REGISTERING_SUBMODULES", "Lazy", "Registry", "add_measures", "register_agent",
           "register_benchmark", "register_measure", "register_metric", "register_section"]
