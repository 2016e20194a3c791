"""JSON-lines reading that names the file and line of anything malformed."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from scholarbench.errors import DataError


def open_text(path: Path):
    """A text handle on a plain or gzipped (.gz) file; DataError naming the file if unreadable."""
    import gzip
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rt", encoding="utf-8", newline="")
        return path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from exc


def iter_jsonl_lines(path: str | Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """(line number, object, None) for each good non-blank line of a .jsonl or .jsonl.gz file,
    (line number, None, problem) for a line that is not a JSON object — for readers that count
    bad lines (agent outputs) instead of stopping. An unreadable file raises DataError."""
    path = Path(path)
    with open_text(path) as handle:
        try:
            for lineno, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except json.JSONDecodeError as exc:
                    yield lineno, None, f"not valid JSON ({exc.msg} at column {exc.colno})"
                    continue
                if not isinstance(obj, dict):
                    yield lineno, None, f"expected a JSON object, got {type(obj).__name__}"
                    continue
                yield lineno, obj, None
        except (OSError, EOFError, UnicodeDecodeError) as exc:
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
    """Records of an append-only run file; a torn last line (killed writer) is ignored."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            out.append(json.loads(raw))
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                continue  # the writer was killed mid-line; the sample is redone on resume
            raise DataError("not valid JSON in a run file", file=str(path), line=i + 1)
    return out
