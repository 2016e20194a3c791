"""A run directory: one writer at a time, atomic rewrites, append-only stage files.

- `RunDir.lock()` holds `<run>/.lock` (filelock) for the whole of `run`, `score` or `eval`; a
  second process gets `RunLocked` at once, naming the directory.
- Every file that is rewritten (manifest, scores, summary) is written to a private temporary
  name in the same directory and renamed over the old one, so a reader (or a kill) never sees
  half a file.
- Every record is serialised before a byte is written (`record_line`): a value JSON cannot
  hold — a set, a cycle, a non-string key, an int past Python's digit limit, a lone UTF-16
  surrogate — is `NotJSON` naming the reason, and nothing is written.
- Stage files (generate.jsonl, …) are appended and fsync'ed one sample at a time. Reading one
  keeps the last good record per sample; a torn or corrupt line anywhere is reported with its
  line number and its sample is redone (the engine re-runs every sample without a good record).
- Every writer here masks the known secrets (`llm.secrets.redact_json` / `redact_known`: API
  keys and the secrets of configured base URLs) in whatever it writes, so a key an endpoint
  echoed into an answer or an error reaches no file of the run directory.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from filelock import FileLock, Timeout

from scholarbench.core.records import check_format
from scholarbench.data.jsonl import parse_json
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.llm.secrets import redact_json, redact_known
from scholarbench.files import read_regular_bytes, require_regular, temp_beside

LOCK = ".lock"


class RunLocked(ScholarbenchError):
    """Another process holds the run directory."""


class NotJSON(ValueError):
    """A record JSON cannot write (the reason is the message)."""


def record_line(record: Any) -> str:
    """`record` as one line of UTF-8 JSON, or `NotJSON`: sets and other objects (TypeError),
    cycles, NaN/±Infinity and ints past the digit limit (ValueError), nesting past the
    recursion limit, and
    lone surrogates (which json writes but UTF-8 cannot encode) are all refused here."""
    try:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)   # NaN is not JSON
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotJSON(f"a string holds a lone surrogate ({text[exc.start:exc.end]!a}), "
                      "which is not UTF-8") from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise NotJSON(plain_text(f"{type(exc).__name__}: {exc}")[:300]) from None
    return text


def plain_text(text: str) -> str:
    """`text` with anything UTF-8 cannot hold escaped (so an error message is always writable)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def atomic_write_text(path: Path, text: str) -> None:
    require_regular(path, output=True)     # never rename over a device or a FIFO
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(redact_known(text))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(redact_json(obj), indent=2, ensure_ascii=False) + "\n")


def atomic_write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    atomic_write_text(path, "".join(json.dumps(redact_json(r), ensure_ascii=False) + "\n"
                                    for r in rows))


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append one record and fsync it; a torn last line left by a killed writer is cut first.
    `NotJSON` (nothing written) for a record JSON cannot hold."""
    record_line(record)               # NotJSON before the record is walked for secrets
    line = record_line(redact_json(record)) + "\n"
    _cut_torn_tail(path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def _cut_torn_tail(path: Path) -> None:
    if not path.exists():
        return
    with path.open("rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        if size == 0:
            return
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        # find the last newline
        block, pos = 1 << 16, size
        while pos > 0:
            start = max(0, pos - block)
            handle.seek(start)
            chunk = handle.read(pos - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                handle.truncate(start + nl + 1)
                return
            pos = start
        handle.truncate(0)


@dataclass
class StageFile:
    """What a stage file holds: the last good record per sample id, in first-seen order, and
    the lines that could not be read (line number, problem)."""
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[tuple[int, str]] = field(default_factory=list)

    def finished(self) -> dict[str, dict[str, Any]]:
        """Records that need no redo: every status but `error`."""
        return {k: r for k, r in self.records.items() if r.get("status", "ok") != "error"}


def read_stage(path: Path, id_key: str = "id") -> StageFile:
    out = StageFile()
    if not path.exists():
        return out
    text = read_regular_bytes(path).decode("utf-8", errors="replace")
    lines = text.split("\n")
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            torn = lineno == len(lines)        # no newline after it: a killed writer
            out.problems.append((lineno, "torn last line (a killed writer)" if torn
                                 else "not valid JSON"))
            continue
        if not isinstance(obj, dict) or id_key not in obj:
            out.problems.append((lineno, f"not a record with {id_key!r}"))
            continue
        key = str(obj[id_key])
        out.records.pop(key, None)             # a later line supersedes (keeps order of last)
        out.records[key] = obj
    return out


def read_json_file(path: Path) -> dict[str, Any]:
    """One JSON object from a run file (manifest.json, summary.json): a regular file within the
    input size limit (`files.read_regular_bytes`); bad bytes, bad JSON, NaN/Infinity, nesting
    too deep or another JSON type are one DataError naming the file (and line)."""
    raw = read_regular_bytes(path)
    obj, problem, line = parse_json(raw)
    if problem is None and (b"NaN" in raw or b"Infinity" in raw):
        try:
            json.loads(raw, parse_constant=_refuse_constant)
        except ValueError as exc:
            problem = str(exc)
    if problem is not None:
        raise DataError(problem, file=str(path), line=line)
    if not isinstance(obj, dict):
        raise DataError(f"expected a JSON object, got {type(obj).__name__}", file=str(path))
    return obj


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


class RunDir:
    """The files of one run. Create with `RunDir(path)`; nothing is written until asked."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def file(self, name: str) -> Path:
        return self.path / name

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    def exists(self) -> bool:
        return self.manifest_path.exists()

    @contextmanager
    def lock(self, wait: bool = False) -> Iterator["RunDir"]:
        """Hold the run directory for this process; `RunLocked` if another process does (or,
        with `wait`, once it has finished)."""
        self.path.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.path / LOCK))
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            raise RunLocked(f"{self.path} is in use by another scholarbench process (run, score "
                            "or eval); wait for it to finish or use another --out") from None
        try:
            yield self
        finally:
            lock.release()

    def read_manifest(self) -> dict[str, Any]:
        if not self.manifest_path.exists():
            raise ScholarbenchError(f"{self.path} is not a run directory (no manifest.json)")
        obj = read_json_file(self.manifest_path)
        check_format(obj, self.manifest_path)
        for key in ("options", "agent_config"):
            if obj.get(key) is not None and not isinstance(obj[key], dict):
                raise DataError(f"expected an object, got {type(obj[key]).__name__}",
                                file=str(self.manifest_path), field=key)
        if not isinstance(obj.get("benchmark"), str):
            raise DataError(f"expected the benchmark's name, got {obj.get('benchmark')!r}"[:120],
                            file=str(self.manifest_path), field="benchmark")
        return obj

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write_json(self.manifest_path, manifest)

    def write_json(self, name: str, obj: Any) -> None:
        atomic_write_json(self.file(name), obj)

    def write_jsonl(self, name: str, rows: Iterable[dict[str, Any]]) -> None:
        atomic_write_jsonl(self.file(name), rows)

    def stage(self, name: str, id_key: str = "id") -> StageFile:
        return read_stage(self.file(name), id_key)

    def append(self, name: str, record: dict[str, Any]) -> None:
        append_line(self.file(name), record)
