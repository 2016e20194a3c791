"""Reading scores.jsonl: every row checked before anything is computed from it.

A run's summary is rebuilt from these rows alone (`core.aggregate`), so a row that is not what
the engine writes would otherwise move a mean (a duplicated id counted twice), poison it (NaN,
Infinity, 1.7e308 in a 0–1 measure, `true` read as 1) or crash later. Each row must:

- be one JSON object (`data.jsonl.parse_json_line`; NaN and ±Infinity are not JSON and are
  refused like any bad token);
- fit `core.records.ScoreRecord` (status word, reason, counts, and the typed extra fields
  `suspected_leak`, `suspected_injection`, `leaked_items`) — strict types, no bool for a count;
- carry its id under the benchmark's `id_key` as a string or an integer, once per file;
- hold each measure the benchmark declares as null or a finite number (never a bool, string,
  list or object); a measure stored as a fraction or a percentage (`unit` "fraction" or
  "percent") lies in [-1, 1] (ARI and DeepSynth-Eval's ±1 checklist scores go below 0).

The first bad row is one `DataError` naming the file, line and field.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, get_args

from pydantic import ValidationError

from scholarbench.core.columns import ScoreRows
from scholarbench.core.records import ScoreRecord
from scholarbench.data.jsonl import parse_json_line
from scholarbench.errors import DataError
from scholarbench.files import read_regular_bytes

BOUNDED_UNITS = ("fraction", "percent")
FRACTION_RANGE = (-1.0, 1.0)


def _shown(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=True)[:80]
    except (TypeError, ValueError):
        return repr(value)[:80]


class _Constant(Exception):
    pass


def _raise_constant(name: str) -> None:
    raise _Constant(name)


def _non_json_constant(raw: bytes) -> str | None:
    """NaN, Infinity or -Infinity when the (valid) line holds one: Python's json reads them,
    JSON has no such values, and a mean over them is meaningless."""
    if b"NaN" not in raw and b"Infinity" not in raw:
        return None
    try:
        json.loads(raw, parse_constant=_raise_constant)
    except _Constant as exc:
        return str(exc)
    return None


def check_measure_value(value: Any, unit: str = "") -> str | None:
    """Why `value` cannot be a measure's value (None when it can: null or a finite number,
    within [-1, 1] for a fraction or a percentage)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number or null, got {_shown(value)}"
    if not math.isfinite(float(value)):
        return f"expected a finite number, got {value!r}"
    low, high = FRACTION_RANGE
    if unit in BOUNDED_UNITS and not low <= value <= high:
        return f"expected a {unit} measure in [{low:g}, {high:g}], got {value!r}"
    return None


def check_score_row(row: dict[str, Any], id_key: str, units: dict[str, str]
                    ) -> tuple[str, str] | None:
    """(field, problem) of the first thing wrong with one score row, or None."""
    ident = row.get(id_key)
    if ident is None:
        return id_key, "missing"
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        return id_key, f"expected a string or an integer id, got {_shown(ident)}"
    try:
        ScoreRecord.model_validate(row)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(record)"
        return field, f"{err['msg']}, got {_shown(err.get('input'))}"
    for key, unit in units.items():
        if (problem := check_measure_value(row.get(key), unit)) is not None:
            return key, problem
    return None


def measure_units(bench: Any, subtask: str | None) -> dict[str, str]:
    """measure key -> unit of every measure `bench` declares for `subtask`."""
    return {m.key: m.unit for m in bench.measures(subtask)}


def validate_rows(numbered: Iterable[tuple[int, dict[str, Any]]], path: Path, id_key: str,
                  units: dict[str, str]) -> ScoreRows:
    """The rows, each checked (`check_score_row`) and their ids unique; DataError naming the
    file, line and field of the first bad one. A row that plainly passes (`_plainly_valid`:
    the common shapes, tested without building a model) is not checked again; any other row is
    checked by `check_score_row`, which says what is wrong."""
    bounds = [(key, unit, *(FRACTION_RANGE if unit in BOUNDED_UNITS else (-_LARGEST, _LARGEST)))
              for key, unit in units.items()]
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, row in numbered:
        if not _plainly_valid(row, id_key, bounds) and \
                (bad := check_score_row(row, id_key, units)) is not None:
            raise DataError(bad[1], file=str(path), line=number, field=bad[0])
        key = str(row[id_key])
        if key in seen:
            raise DataError(f"duplicate id {key!r} (first on line {seen[key]}); one row per "
                            "sample", file=str(path), line=number, field=id_key)
        seen[key] = number
        rows.append(row)
    return ScoreRows(rows)


_LARGEST = sys.float_info.max
_WORDS = frozenset(get_args(ScoreRecord.model_fields["status"].annotation))


def _plainly_valid(row: dict[str, Any], id_key: str,
                   bounds: Sequence[tuple[str, str, float, float]]) -> bool:
    """Whether `row` certainly passes `check_score_row`: an id of type str or int; the
    `ScoreRecord` fields of their plain JSON types (a status word, a string reason, counts
    ≥ 0, flags as lists of strings and a dict of int counts); every measure null or an int or
    float in its range — and no string the record checks (nor a key) that is not plain UTF-8
    (a lone surrogate from a `\\ud800` escape: pydantic refuses it). False: not certain;
    `check_score_row` decides (the rows of a bad file, and of odd good ones)."""
    ident = row.get(id_key)
    if ident.__class__ is not str and ident.__class__ is not int:
        return False
    status = row.get("status", "scored")
    if status.__class__ is not str or status not in _WORDS:
        return False
    try:
        if not _plain_text("".join(row)):
            return False
    except TypeError:           # a key that is no string (not from JSON)
        return False
    for name in _TYPED.intersection(row):        # the record's typed fields the row holds
        value = row[name]
        if value is not None and not _PLAIN[name](value):
            return False
    for key, _unit, low, high in bounds:
        value = row.get(key)
        if value is not None and not ((value.__class__ is float or value.__class__ is int)
                                      and low <= value <= high):
            return False
    return True


def _plain_count(value: Any) -> bool:
    return value.__class__ is int and value >= 0


_PLAIN: dict[str, Callable[[Any], bool]] = {      # a non-null value of each typed field
    "reason": lambda v: v.__class__ is str and _plain_text(v),
    "unresolved": _plain_count,
    "n_refs": _plain_count,
    "suspected_injection": lambda v: v.__class__ is list and all(
        f.__class__ is str and _plain_text(f) for f in v),
    "suspected_leak": lambda v: v.__class__ is dict and all(
        k.__class__ is str and _plain_text(k) and n.__class__ is int for k, n in v.items()),
    "leaked_items": lambda v: v.__class__ is list,
}
_TYPED = frozenset(_PLAIN)


def _plain_text(text: str) -> bool:
    """ASCII, or text that encodes as UTF-8 (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_DECODE = json.JSONDecoder().raw_decode      # what json.loads calls, without its wrappers


def _plain_object(raw: bytes) -> tuple[dict[str, Any] | None, None]:
    """The object of a line that is exactly one JSON object (no surrounding whitespace), as
    `parse_json_line` reads it; (None, None) for any other line (`parse_json_line` then says
    what it holds)."""
    try:
        text = raw.decode("utf-8")
        obj, end = _DECODE(text)
    except (ValueError, RecursionError):     # bad bytes or JSON, too deep, too many digits
        return None, None
    return (obj, None) if end == len(text) and obj.__class__ is dict else (None, None)


def read_score_rows(path: Path, id_key: str, units: dict[str, str]) -> ScoreRows:
    """The checked rows of a scores.jsonl (a regular file within the input size limit)."""
    data = read_regular_bytes(path)
    numbered = []
    constants = b"NaN" in data or b"Infinity" in data       # else no line need be screened
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw or raw.isspace():
            continue
        obj, problem = _plain_object(raw)
        if obj is None:
            obj, problem = parse_json_line(raw)       # says what is wrong with the line
        if problem is None and constants and (constant := _non_json_constant(raw)) is not None:
            problem = f"{constant} is not JSON (a measure is a finite number or null)"
        if problem is not None:
            raise DataError(problem, file=str(path), line=number)
        numbered.append((number, obj))
    return validate_rows(numbered, path, id_key, units)


__all__ = ["BOUNDED_UNITS", "FRACTION_RANGE", "check_measure_value", "check_score_row",
           "measure_units", "read_score_rows", "validate_rows"]
