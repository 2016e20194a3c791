"""Task files a benchmark's `data import` validates and copies, and `run` finds again by name.

`import_task_files(source, target, read, what)`: `source` is a JSON-lines file or a folder of
them (`*.jsonl`, `*.jsonl.gz`, e.g. a build's `DIR/researcharena`); every file is read with
the benchmark's own reader first (`read(path) -> records`, a DataError names the file, line and
field), so nothing is copied when one is bad, and a file without a record is refused. The files
and the folder's licence, provenance and README files are copied into `target`
(`<data>/<benchmark>/`); a file of the same name is replaced. Returns {file name: {what: count,
sha256}}.

`imported_file(data, folder, name)`: the imported file a run names by its file name or stem
(`survey.jsonl` or `survey`), or None.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.files import sha256_file

_SIDE_FILES = ("LICENSE*", "PROVENANCE*", "README*")
_PATTERNS = ("*.jsonl", "*.jsonl.gz")


def jsonl_files(folder: Path) -> list[Path]:
    return sorted(p for pattern in _PATTERNS for p in folder.glob(pattern) if p.is_file())


def import_task_files(source: Path, target: Path, read: Callable[[Path], Sequence[Any]],
                      what: str) -> dict[str, Any]:
    files = [source] if source.is_file() else jsonl_files(source)
    if not files:
        raise ScholarbenchError(f"{source}: no task file (*.jsonl) found")
    counts = {}
    for path in files:
        records = read(path)
        if not records:
            raise DataError(f"no {what} in the file", file=str(path))
        counts[path.name] = {what: len(records), "sha256": sha256_file(path)}
    target.mkdir(parents=True, exist_ok=True)
    side = ([p for pattern in _SIDE_FILES for p in source.glob(pattern) if p.is_file()]
            if source.is_dir() else [])
    for path in files + side:
        if path.resolve() != (target / path.name).resolve():
            shutil.copyfile(path, target / path.name)
    return counts


def imported_file(data: Path, folder: str, name: str) -> Path | None:
    """`<data>/<folder>/<name>` or `<name>.jsonl[.gz]` when imported, else None."""
    base = data / folder
    if not name or "/" in name or "\\" in name or not base.is_dir():
        return None
    for candidate in (name, name + ".jsonl", name + ".jsonl.gz"):
        if (base / candidate).is_file():
            return base / candidate
    return None
