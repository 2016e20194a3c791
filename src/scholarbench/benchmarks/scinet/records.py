"""SciNet task records and their JSONL form."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from dataclasses import field as _field
from pathlib import Path
from typing import Any, Iterable

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.errors import DataError
from scholarbench.files import require_regular

FAMILIES = {"ego": ("novel", "disruptive"), "pair": ("pncites", "cooccur"), "path": ("path",)}
FIELDS = ("task_id", "family", "kind", "query", "field", "category", "source", "classic",
          "recent", "gold", "info")


@dataclass
class SciNetTask:
    task_id: str
    family: str                 # ego | pair | path
    kind: str                   # novel | disruptive | pncites | cooccur | path
    query: str                  # SciNet's wording
    field: str | None = None    # ego/path: the field named in the query
    category: str | None = None  # built tasks: the graph category behind `field`
    source: str | None = None   # pair: the query paper (graph id, or openalex:W... upstream)
    classic: str | None = None  # path: start paper (built tasks: graph id; upstream: title)
    recent: str | None = None   # path: end paper
    gold: dict[str, Any] | None = None   # None: no ground truth (upstream queries)
    info: dict[str, Any] = _field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _check(obj: dict, path: Path, line: int) -> SciNetTask:
    extra = sorted(set(obj) - set(FIELDS))
    if extra:
        raise DataError(f"unknown field(s) {extra}", file=str(path), line=line, field=extra[0])
    for name in ("task_id", "family", "kind", "query"):
        if not isinstance(obj.get(name), str) or not obj[name]:
            raise DataError("need a non-empty string", file=str(path), line=line, field=name)
    if obj["family"] not in FAMILIES:
        raise DataError(f"family must be one of {sorted(FAMILIES)}", file=str(path), line=line,
                        field="family")
    if obj["kind"] not in FAMILIES[obj["family"]]:
        raise DataError(f"kind of a {obj['family']} task must be one of "
                        f"{FAMILIES[obj['family']]}", file=str(path), line=line, field="kind")
    for name in ("field", "category", "source", "classic", "recent"):
        if obj.get(name) is not None and not isinstance(obj[name], str):
            raise DataError("need a string or null", file=str(path), line=line, field=name)
    gold = obj.get("gold")
    if gold is not None and not isinstance(gold, dict):
        raise DataError("need an object or null", file=str(path), line=line, field="gold")
    if obj["family"] == "pair" and not obj.get("source"):
        raise DataError("a pair task needs its query paper", file=str(path), line=line,
                        field="source")
    if obj["family"] == "path" and not (obj.get("classic") and obj.get("recent")):
        raise DataError("a path task needs classic and recent", file=str(path), line=line,
                        field="classic" if not obj.get("classic") else "recent")
    if gold is not None:
        need = {"ego": ("ranked",), "pair": ("citers", "cocited"), "path": ("path",)}
        for key in need[obj["family"]]:
            if not isinstance(gold.get(key), list):
                raise DataError("need a list", file=str(path), line=line, field=f"gold.{key}")
    info = obj.get("info", {})
    if not isinstance(info, dict):
        raise DataError("need an object", file=str(path), line=line, field="info")
    return SciNetTask(**{k: obj.get(k) for k in FIELDS if k not in ("info",)}, info=info)


def read_unique(path: str | Path, check: Any) -> list[Any]:
    """Every line of a task file as `check(obj, path, line)` makes it (a record with a
    `task_id`); `DataError` (file, line, field) on a bad line or a repeated task_id."""
    path = Path(path)
    tasks, seen = [], set()
    for line, obj in iter_jsonl(path):
        task = check(obj, path, line)
        if task.task_id in seen:
            raise DataError(f"task_id {task.task_id!r} repeated", file=str(path), line=line,
                            field="task_id")
        seen.add(task.task_id)
        tasks.append(task)
    return tasks


def read_tasks(path: str | Path) -> list[SciNetTask]:
    return read_unique(path, _check)


def task_line(task: SciNetTask) -> str:
    return json.dumps(task.as_json(), ensure_ascii=False) + "\n"


def tasks_sha256(tasks: Iterable[SciNetTask]) -> str:
    """The sha256 of the task file `write_tasks` writes (a run's data identity)."""
    digest = hashlib.sha256()
    for task in tasks:
        digest.update(task_line(task).encode("utf-8"))
    return digest.hexdigest()


def write_tasks(tasks: Iterable[SciNetTask], path: str | Path) -> None:
    path = Path(path)
    require_regular(path, output=True)     # never rename over a device or a FIFO
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(task_line(task))
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)
