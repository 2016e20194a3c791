"""`--agent replay --agent-arg path=FILE`: answers from a file, one JSON line per sample.

Each line is `{"id": SAMPLE_ID, **answer}` in the task family's schema (`core.families`) — or a
benchmark's upstream form, read by that benchmark's own replay agent. One file may hold the
answers of the whole suite: a line may carry `benchmark` and `subtask` (`ReplayTags`), and an id
is unique only within its (benchmark, sub-task). A run (benchmark B, sub-task S) reads the lines
tagged for it (`benchmark` B or absent, `subtask` S or absent) — so an untagged line applies to
whichever run the file is given to — with the tags removed (`ReplayFile.select`). Of two lines
with the same id in one run the first is kept and the other named in a warning.

A line that is not one JSON object, or whose tags are not strings, is named in a warning and
ignored; a file with no JSON object at all (a CSV, an empty file) or one JSON array is refused
before anything runs. A sample with no line is `missing` (scored as an empty answer and
counted); a line that does not fit the schema is `malformed`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.families import Malformed
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.data.jsonl import iter_jsonl_lines
from scholarbench.files import sha256_file

TAGS = ("benchmark", "subtask")


class Missing(Malformed):
    """No answer for this sample (scored as an empty answer, counted as missing)."""


class ReplayTags(BaseModel):
    """The keys a replay line may carry besides its id and answer (the answer's own keys are
    checked by the reader of its form: the family schema forbids unknown ones)."""
    model_config = ConfigDict(extra="allow")
    benchmark: StrictStr | None = None
    subtask: StrictStr | None = None


@dataclass(frozen=True)
class Line:
    lineno: int
    body: dict[str, Any]            # the line without its tags
    benchmark: str | None
    subtask: str | None

    def applies(self, benchmark: str | None, subtask: str | None) -> bool:
        return ((benchmark is None or self.benchmark in (None, benchmark))
                and (subtask is None or self.subtask in (None, subtask)))


@dataclass
class Selection:
    """The lines of one run, first of each id, and warnings that say what was done."""
    lines: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)  # id, kept, ignored


@dataclass
class ReplayFile:
    path: Path
    lines: list[Line]
    bad: list[tuple[int, str]]      # (line number, why it is not a usable line)

    def tagged(self) -> Counter:
        """How many lines carry each (benchmark, subtask) tag (None where absent)."""
        return Counter((ln.benchmark, ln.subtask) for ln in self.lines)

    def applies(self, benchmark: str, subtask: str) -> bool:
        return any(ln.applies(benchmark, subtask) for ln in self.lines)

    def select(self, benchmark: str | None, subtask: str | None,
               id_keys: Sequence[str] = ("id",)) -> Selection:
        """The lines for run (benchmark, subtask) — None: every line — tags removed, the
        first line of each id kept (an int id is read as its string)."""
        out = Selection(problems=[f"{self.path}, line {n}: {why}; line ignored"
                                  for n, why in self.bad])
        where = f"{benchmark or '*'}/{subtask or '*'}"
        first: dict[str, int] = {}
        for ln in self.lines:
            if not ln.applies(benchmark, subtask):
                continue
            key_name = next((k for k in id_keys if k in ln.body), None)
            value = ln.body.get(key_name) if key_name else None
            body = ln.body
            if isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
                body = {**body, key_name: value}
            if isinstance(value, str):
                if value in first:
                    out.problems.append(f"{self.path}: duplicate id {value!r} in {where}: "
                                        f"first kept (line {first[value]}), line {ln.lineno} "
                                        "ignored")
                    out.duplicates.append((value, first[value], ln.lineno))
                    continue
                first[value] = ln.lineno
            out.lines.append((ln.lineno, body))   # a line without an id: its reader says so
        if not out.lines:
            out.problems.append(f"{self.path}: no line for {where} (the lines are tagged for "
                                "other runs): every sample is missing")
        return out


_CACHE: dict[tuple[str, int, int], ReplayFile] = {}


def read_replay_file(path: str | Path) -> ReplayFile:
    """The file's lines (read once per version of the file); DataError for a file that is not
    JSON lines of objects at all."""
    path = Path(path)
    if not path.is_file():
        raise ScholarbenchError(f"replay: {path} is not a file")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key in _CACHE:
        return _CACHE[key]
    if _first_char(path) == "[":
        raise DataError("not an answers file: one JSON array; expected JSON lines, one object "
                        "per line (jq -c '.[]' converts it)", file=str(path))
    lines, bad = [], []
    for lineno, obj, problem in iter_jsonl_lines(path):
        if problem is None:
            try:
                tags = ReplayTags.model_validate({k: obj[k] for k in TAGS if k in obj})
            except ValidationError as exc:
                err = exc.errors()[0]
                problem = f"field {err['loc'][0]!r}: {err['msg']}"
            else:
                body = {k: v for k, v in obj.items() if k not in TAGS}
                lines.append(Line(lineno, body, tags.benchmark, tags.subtask))
                continue
        bad.append((lineno, problem))
    if not lines:
        if not bad:
            raise DataError("no answers in the file (it is empty)", file=str(path))
        n, why = bad[0]
        raise DataError(f"not an answers file: expected JSON lines, one object per line "
                        f"(line {n}: {why})", file=str(path))
    _CACHE[key] = found = ReplayFile(path, lines, bad)
    return found


def _first_char(path: Path) -> str:
    """The file's first non-blank character ('' for a blank file)."""
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                return raw.lstrip()[:1].decode("latin-1")
    return ""


def select_lines(path: str | Path, benchmark: str | None, subtask: str | None,
                 id_keys: Sequence[str] = ("id",)) -> Selection:
    """`read_replay_file(path).select(…)`: what every benchmark's replay agent reads."""
    return read_replay_file(path).select(benchmark, subtask, id_keys)


class ReplayAgent:
    name = "replay"
    needs = Needs()

    def __init__(self, path: str | Path | None = None, id_key: str = "id", *,
                 benchmark: str | None = None, subtask: str | None = None) -> None:
        if not path:
            raise ScholarbenchError("replay needs --agent-arg path=FILE")
        self.path = Path(path)
        selected = select_lines(self.path, benchmark, subtask, (id_key,))
        self.answers: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = selected.problems
        for lineno, obj in selected.lines:
            if not isinstance(obj.get(id_key), str):
                self.problems.append(f"{self.path}, line {lineno}: no string or integer "
                                     f"{id_key!r}; line ignored")
                continue
            self.answers[obj[id_key]] = obj
        self.id_key = id_key

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return True

    def config(self) -> dict[str, Any]:
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path)}

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        if task.id not in self.answers:
            raise Missing(f"no line for sample {task.id!r} in {self.path}")
        return {k: v for k, v in self.answers[task.id].items() if k != self.id_key}
