"""JSON-lines reading that names the file and line of anything malformed.

Each line is decoded on its own, so bytes that are not UTF-8 are reported with their line and
column; JSON nested deeper than the decoder's limit (`MAX_DEPTH`, Python's recursion limit — a
10,000-deep chain tree) is a problem of that line, not a crash; a line that is not a JSON object
is one too. `parse_json_line` is that one rule, for every reader of user files.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterator

from scholarbench.errors import DataError, exceeds_int_digits
from scholarbench.files import read_regular_bytes, require_regular


def open_text(path: Path):
    """A text handle on a plain or gzipped (.gz) file; DataError naming the file if unreadable."""
    import gzip
    require_regular(path)
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rt", encoding="utf-8", newline="")
        return path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from exc


MAX_DEPTH = sys.getrecursionlimit()     # about 1,000 levels of nested arrays/objects


def too_many_digits(exc: ValueError) -> str:
    """The problem line for json's ValueError on an integer of too many digits (re-raised when
    it is some other ValueError)."""
    if not exceeds_int_digits(exc):
        raise exc
    return (f"a number of more than {sys.get_int_max_str_digits()} digits (Python's limit); "
            "shorten it")


def parse_json(raw: bytes | str) -> tuple[object, str | None, int | None]:
    """(value, None, None) for a JSON text; (None, problem, line or None) for bad bytes, bad
    JSON, nesting past `MAX_DEPTH` or a number past Python's int-digit limit."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = exc.object.count(b"\n", 0, exc.start) + 1
            return None, (f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at byte "
                          f"{exc.start + 1})"), line
    try:
        return json.loads(raw), None, None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})", exc.lineno
    except RecursionError:
        return None, f"JSON nested deeper than {MAX_DEPTH} levels", None
    except ValueError as exc:       # a number past Python's int-digit limit (4,300 digits)
        return None, too_many_digits(exc), None


def parse_json_line(raw: bytes | str) -> tuple[dict | None, str | None]:
    """(object, None) for a line holding one JSON object; (None, problem) otherwise — bad
    bytes, bad JSON, nesting past `MAX_DEPTH`, too many digits, or another JSON type."""
    obj, problem, _ = parse_json(raw)
    if problem is not None:
        return None, problem
    if not isinstance(obj, dict):
        return None, f"expected a JSON object, got {type(obj).__name__}"
    return obj, None


def _byte_lines(path: Path):
    import gzip
    require_regular(path)
    try:
        return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from exc


def iter_jsonl_lines(path: str | Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """(line number, object, None) for each good non-blank line of a .jsonl or .jsonl.gz file,
    (line number, None, problem) for a line that is not one JSON object (`parse_json_line`) —
    for readers that count bad lines (agent outputs) instead of stopping. An unreadable file
    raises DataError."""
    path = Path(path)
    with _byte_lines(path) as handle:
        try:
            for lineno, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                obj, problem = parse_json_line(raw)
                yield lineno, obj, problem
        except (OSError, EOFError) as exc:
            raise DataError(f"cannot read: {exc}", file=str(path)) from exc


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line of a .jsonl or .jsonl.gz file; raise
    DataError naming the file and line on bad JSON or a non-object line."""
    for lineno, obj, problem in iter_jsonl_lines(path):
        if problem is not None:
            raise DataError(problem, file=str(path), line=lineno)
        yield lineno, obj


def append_jsonl(path: str | Path, obj: dict) -> None:
    """Append one record and flush it to disk, so a killed process loses at most this line."""
    import os
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(obj, ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_jsonl_tolerant(path: str | Path) -> list[dict]:
    """Records of an append-only run file; a torn last line (killed writer) is ignored; any
    other bad line (bad bytes, bad JSON, too deep, not an object) is a DataError naming it."""
    path = Path(path)
    if not path.exists():
        return []
    data = read_regular_bytes(path)       # a regular file within the input size limit
    lines = data.splitlines()
    out = []
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        obj, problem = parse_json_line(raw)
        if problem is not None:
            if i == len(lines) - 1 and not data.endswith(b"\n"):
                continue  # no newline after it: a killed writer; the sample is redone on resume
            raise DataError(f"{problem} in a run file", file=str(path), line=i + 1)
        out.append(obj)
    return out
