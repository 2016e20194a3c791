"""Where data and caches live: --data, then $SCHOLARBENCH_DATA, then the per-user data dir."""
from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DATA_HELP = "data directory (default: $SCHOLARBENCH_DATA, then the per-user data dir)"


def data_dir(explicit: str | Path | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("SCHOLARBENCH_DATA")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("scholarbench"))


def cache_dir() -> Path:
    env = os.environ.get("SCHOLARBENCH_CACHE")
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("scholarbench"))
