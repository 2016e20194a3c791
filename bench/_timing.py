"""Timing helpers shared by the bench scripts (run as `python bench/NAME.py`)."""
from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path


def ms(values: list[float]) -> str:
    """'p50 / p95' of seconds, in milliseconds."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) * 1e3:.2f} / {p95 * 1e3:.2f}"


def timed(fn, args_list) -> list[float]:
    """Seconds of fn(*args) for each args tuple."""
    times = []
    for args in args_list:
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return times


def peak_mib() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024  # bytes vs KiB


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
