"""Manifest helpers: package versions recorded in every run, and reading / writing a manifest
as plain JSON (the typed record is `core.records.Manifest`; the engine writes through it)."""
from __future__ import annotations

import json
import platform
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from scholarbench.core.records import RUN_FORMAT
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.secrets import redact_argv
from scholarbench.core.rundir import atomic_write_json

PACKAGES = ("scholarbench", "numpy", "scipy", "scikit-learn", "onnxruntime", "tokenizers",
            "rapidfuzz", "duckdb", "bm25s", "pyarrow")


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def new_manifest(**fields: Any) -> dict[str, Any]:
    return {"format": RUN_FORMAT, "created": datetime.now(timezone.utc).isoformat(),
            "command": recorded_argv(), "versions": package_versions(), **fields}


def recorded_argv() -> list[str]:
    """The command line as a manifest records it: secrets masked (`llm.secrets.redact_argv`)."""
    return redact_argv(sys.argv[1:])


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    atomic_write_json(run_dir / "manifest.json", manifest)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "manifest.json"
    if not path.exists():
        raise ScholarbenchError(f"{run_dir} is not a run directory (no manifest.json)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ScholarbenchError(f"{path}: not valid JSON ({exc.msg})") from exc


def plain_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options that are plain JSON values (objects handed in from Python are not
    recorded)."""
    out = {}
    for key, value in options.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        out[key] = value
    return out


def jsonable_options(options: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(options, default=str))
