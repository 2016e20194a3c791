"""Lazy re-exports: a package's public names imported from their module on first use, so that
importing the package (the command line lists benchmarks by importing them) stays light."""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping


def lazy_getattr(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level `__getattr__` for `package`: `where[name]` names the submodule that defines
    `name` (or a module by its full name), imported on first use (the value is then kept in the package); any other name is an
    AttributeError."""
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        absolute = module.startswith("scholarbench.")        # a module of another package
        value = getattr(importlib.import_module(module if absolute else f"{package}.{module}"),
                        name)
        setattr(sys.modules[package], name, value)
        return value
    return __getattr__
