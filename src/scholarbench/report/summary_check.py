"""What `report` reads from a summary.json is checked before any section uses it, as
`aggregate` checks score rows: a tampered or hand-edited summary is one line naming the file
and the field, never a crash inside a section (the Judges section read
`judge_panel: {"judge_avg": "x"}` as a mapping and failed).

Only fields that are present are checked (a run of an older format lacks some): the status
counts, `n_samples`, `complete`, each `metrics` entry's `mean`/`n`/`n_null`/`n_unscored` (an
entry may be null: a measure the run has no value for, as one it lacks), the
judge blocks `judge_panel` ({measure: {judge: {mean, n, n_null, repeats, spread, spread_n,
alpha_repeats}}}) and `judge_agreement` ({measure: {level, n_judges, alpha}}), and the
suspected-sample counts.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from scholarbench.errors import DataError

_COUNTS = ("n", "n_null", "n_unscored", "repeats", "spread_n", "n_judges")
_NUMBERS = ("mean", "spread", "alpha_repeats", "alpha")


def _fail(path: Path, field: str, expected: str, value: Any) -> DataError:
    shown = repr(value)
    return DataError(f"expected {expected}, got {shown[:80]}", file=str(path), field=field)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and math.isfinite(value))


def _object(value: Any, path: Path, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, field, "an object", value)
    return value


def _entry(entry: Any, path: Path, field: str) -> None:
    entry = _object(entry, path, field)
    for key in _COUNTS:
        if key in entry and not _count(entry[key]):
            raise _fail(path, f"{field}.{key}", "a non-negative integer", entry[key])
    for key in _NUMBERS:
        if key in entry and not _number_or_null(entry[key]):
            raise _fail(path, f"{field}.{key}", "a finite number or null", entry[key])
    if "level" in entry and not isinstance(entry["level"], str):
        raise _fail(path, f"{field}.level", "a string", entry["level"])


def check_summary(summary: dict[str, Any], path: Path) -> dict[str, Any]:
    """`summary` unchanged when its present fields have the types the writers give them;
    DataError naming `path` and the first bad field otherwise."""
    for key in ("n_samples", "n_suspected_injection", "n_suspected_leak"):
        if key in summary and not _count(summary[key]):
            raise _fail(path, key, "a non-negative integer", summary[key])
    if "complete" in summary and not isinstance(summary["complete"], bool):
        raise _fail(path, "complete", "true or false", summary["complete"])
    if "status" in summary:
        for word, n in _object(summary["status"], path, "status").items():
            if not _count(n):
                raise _fail(path, f"status.{word}", "a non-negative integer", n)
    if "metrics" in summary:
        for key, entry in _object(summary["metrics"], path, "metrics").items():
            if entry is not None:          # null: a measure without a value (section loaders)
                _entry(entry, path, f"metrics.{key}")
    if summary.get("judge_panel") is not None:
        for measure, judges in _object(summary["judge_panel"], path, "judge_panel").items():
            for label, entry in _object(judges, path, f"judge_panel.{measure}").items():
                _entry(entry, path, f"judge_panel.{measure}.{label}")
    if summary.get("judge_agreement") is not None:
        agreement = _object(summary["judge_agreement"], path, "judge_agreement")
        for measure, entry in agreement.items():
            _entry(entry, path, f"judge_agreement.{measure}")
    return summary


__all__ = ["check_summary"]
