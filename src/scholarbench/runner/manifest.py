"""The run manifest: what produced a run, so it can be resumed, re-scored and compared."""
from __future__ import annotations

import json
import platform
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError

PACKAGES = ("scholarbench", "numpy", "scipy", "scikit-learn", "torch", "sentence-transformers",
            "rapidfuzz", "duckdb", "bm25s", "pyarrow")
# Keys that must agree for a run directory to be resumed.
IDENTITY_KEYS = ("benchmark", "mode", "agent", "agent_config", "data", "limit", "embedder",
                 "agent_model")


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def new_manifest(**fields: Any) -> dict[str, Any]:
    return {"format": "scholarbench-run/1", "created": datetime.now(timezone.utc).isoformat(),
            "command": sys.argv[1:], "versions": package_versions(), **fields}


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    tmp = run_dir / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(run_dir / "manifest.json")


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "manifest.json"
    if not path.exists():
        raise ScholarbenchError(f"{run_dir} is not a run directory (no manifest.json)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ScholarbenchError(f"{path}: not valid JSON ({exc.msg})") from exc


def resolve_llm(llm: Any, agent: Any) -> Any:
    """The run's LLMRoles if the agent uses a model: `llm` may be the roles or a factory."""
    if not getattr(agent, "uses_llm", False):
        return None
    if llm is None:
        raise ScholarbenchError(f"agent {getattr(agent, 'name', agent)!r} uses a chat model but "
                                "the run was given none")
    return llm() if callable(llm) else llm


def check_resumable(old: dict[str, Any], new: dict[str, Any], run_dir: Path) -> None:
    """Refuse to mix samples from different configurations in one run directory."""
    for key in IDENTITY_KEYS:
        if old.get(key) != new.get(key):
            raise ScholarbenchError(
                f"{run_dir} holds a run with a different {key!r} ({old.get(key)!r} vs "
                f"{new.get(key)!r}); use another --out or delete it")
