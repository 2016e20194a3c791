"""Moved to `scholarbench.core.registry`; this name stays while benchmark modules move."""
from scholarbench.core.registry import (REGISTRY, Registry, register_agent,  # noqa: F401
                                        register_benchmark, register_measure, register_metric)
