"""Reading JSON lines (plain or gzipped), JSON and CSV, naming the file and line of bad input."""
from __future__ import annotations

import csv
from pathlib import Path

from scholarbench.data.jsonl import iter_jsonl, open_text, parse_json
from scholarbench.errors import DataError
from scholarbench.files import require_regular


_open = open_text
read_jsonl = iter_jsonl


def read_json(path: Path) -> object:
    """A whole JSON file (plain or .gz); DataError naming the file (and line) of bad bytes, bad
    JSON, nesting past the decoder's depth or a number past Python's int-digit limit."""
    import gzip
    require_regular(path)
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")) as handle:
            raw = handle.read()
    except (OSError, EOFError) as exc:
        raise DataError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                        file=str(path)) from exc
    value, problem, line = parse_json(raw)
    if problem is not None:
        raise DataError(problem, file=str(path), line=line)
    return value


def read_csv(path: Path, columns: list[str]) -> tuple[int, list[list[str]]]:
    """(number of the first data line, rows holding `columns` in that order)."""
    with _open(path) as handle:
        try:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None:
                raise DataError("empty file (no header row)", file=str(path), line=1)
            missing = [c for c in columns if c not in header]
            if missing:
                raise DataError(f"no column(s) {missing}; header is {header}", file=str(path),
                                line=1, field=missing[0])
            index = [header.index(c) for c in columns]
            rows = []
            for lineno, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    raise DataError(f"expected {len(header)} fields, got {len(row)}",
                                    file=str(path), line=lineno)
                rows.append([row[i] for i in index])
            return 2, rows
        except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
            raise DataError(f"cannot read: {exc}", file=str(path)) from exc


def need_str(obj: dict, field: str, *, file: Path, line: int | None, optional: bool = False,
             prefix: str = "") -> str:
    """obj[field] as a stripped string ("" if optional and missing/null), else DataError."""
    value = obj.get(field)
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise DataError(f"need a string, got {type(value).__name__}", file=str(file), line=line,
                        field=prefix + field)
    return value.strip()


def clean_title(title: str) -> str:
    """Line breaks and runs of spaces (LaTeX and arXiv metadata wrap titles) to one space."""
    return " ".join(title.split())
