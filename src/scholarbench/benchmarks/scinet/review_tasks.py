"""SciNet's downstream literature-review tasks (paper §6): one survey per path-wise query.

The paper "selected a set of 40 representative queries from our path-wise dataset", each with a
start and an end paper, and had each method write "a survey report describing the
technological evolution from the start paper to the end paper" (appendix C's prompt,
`prompts/review_survey.v1.txt`, verbatim). Our review tasks are made the same way from path
tasks (`from_path_tasks`): the built path tasks of the graph (default), the path tasks of a
SciNet task file, or upstream's `queries_task3_path_*.json` query files.

A review task file is JSON lines, one `ReviewTask` per line (unknown fields rejected); a
malformed line is one `DataError` naming the file, line and field.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from scholarbench.benchmarks.scinet.queries import load_queries
from scholarbench.benchmarks.scinet.records import read_tasks, read_unique
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.errors import DataError
from scholarbench.files import require_regular

N_REVIEW = 40          # the paper's 40 queries
NO_ABSTRACT = "(no abstract available)"


class ReviewPaper(BaseModel):
    """An endpoint of the evolution the review describes."""
    model_config = ConfigDict(extra="forbid")
    id: str | None = None           # its graph id (null: named by title only)
    title: str = Field(min_length=1)
    abstract: str | None = None     # null: none known (every arxiv-2023 paper)


class ReviewTask(BaseModel):
    """One review task: write the survey of the evolution from `start` to `end` in `field`."""
    model_config = ConfigDict(extra="forbid")
    task_id: str = Field(min_length=1)
    query: str = Field(min_length=1)        # the path-wise query it comes from (SciNet's wording)
    field: str = Field(min_length=1)        # the domain ("Domain:" of the paper's prompt)
    start: ReviewPaper
    end: ReviewPaper
    reference_path: list[str] | None = None  # the path task's gold path (graph ids), if any;
                                             # never shown to agents, not used in scoring
    source: str = "built"                   # where the query came from (path task id / file)
    info: dict[str, Any] = Field(default_factory=dict)

    @field_validator("task_id", "query", "field")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    def line(self) -> str:
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False) + "\n"


def _paper(ref: str | None, env: Any) -> ReviewPaper:
    if ref and env is not None and env.has(ref):
        abstract = (getattr(env, "abstracts", None) or {}).get(ref) or None
        return ReviewPaper(id=ref, title=env.title(ref), abstract=abstract)
    gid = env.resolve(ref) if (ref and env is not None) else None
    if gid is not None:
        return ReviewPaper(id=gid, title=env.title(gid),
                           abstract=(getattr(env, "abstracts", None) or {}).get(gid) or None)
    return ReviewPaper(id=None, title=str(ref or "?"))


def from_path_tasks(tasks: Iterable[Any], env: Any, n: int | None = N_REVIEW
                    ) -> list[ReviewTask]:
    """The review tasks of the first `n` path tasks (`SciNetTask`s of family path), in order."""
    out = []
    for t in tasks:
        if t.family != "path":
            continue
        gold = (t.gold or {}).get("path") if isinstance(t.gold, dict) else None
        out.append(ReviewTask(task_id=f"review/{t.task_id}", query=t.query,
                              field=t.field or "", start=_paper(t.classic, env),
                              end=_paper(t.recent, env),
                              reference_path=list(gold) if isinstance(gold, list) else None,
                              source=t.task_id,
                              info={k: v for k, v in (t.info or {}).items() if k != "env"}))
        if n is not None and len(out) >= n:
            break
    return out


def _where(exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "(line)"
    return field, first["msg"]


def _check_review(obj: Any, path: Path, line: int) -> ReviewTask:
    try:
        return ReviewTask.model_validate(obj)
    except ValidationError as exc:
        field, msg = _where(exc)
        raise DataError(msg, file=str(path), line=line, field=field) from None


def read_review_tasks(path: str | Path) -> list[ReviewTask]:
    """Every task of a review task file; `DataError` (file, line, field) on the first bad one."""
    return read_unique(path, _check_review)


def is_review_file(path: str | Path) -> bool:
    """A review task file (its first object has no SciNet `family`) rather than a SciNet task
    file or an upstream query file."""
    path = Path(path)
    if path.is_dir() or path.suffix == ".json":
        return False
    for _, obj in iter_jsonl(path):
        return "family" not in obj
    return True


def load_review_tasks(path: str | Path, env: Any, n: int | None = N_REVIEW
                      ) -> list[ReviewTask]:
    """`--tasks` of the review sub-task: a review task file as it is; a SciNet task file or
    upstream Task3 query files (a file or a folder): the first `n` of their path queries."""
    if is_review_file(path):
        return read_review_tasks(path)
    p = Path(path)
    if p.is_dir() or p.suffix == ".json":
        return from_path_tasks(load_queries(p, "path"), env, n)
    return from_path_tasks(read_tasks(p), env, n)


def review_ids(path: str | Path, n: int | None = N_REVIEW) -> list[str]:
    """The task ids `load_review_tasks(path, …)` gives, without opening the graph."""
    if is_review_file(path):
        return [t.task_id for t in read_review_tasks(path)]
    p = Path(path)
    if p.is_dir() or p.suffix == ".json":
        tasks = load_queries(p, "path")
    else:
            tasks = [t for t in read_tasks(p) if t.family == "path"]
    return [f"review/{t.task_id}" for t in tasks[:n]]


def tasks_sha256(tasks: Sequence[ReviewTask]) -> str:
    digest = hashlib.sha256()
    for task in tasks:
        digest.update(task.line().encode("utf-8"))
    return digest.hexdigest()


def write_review_tasks(tasks: Iterable[ReviewTask], path: str | Path) -> None:
    path = Path(path)
    require_regular(path, output=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(task.line())
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


ANSWER_FORMAT = ("Answer with the survey report in Markdown. (An agent program returns the JSON "
                 'object {"review": "<the report in Markdown>", "papers": ["<graph id or exact '
                 'title of each paper the report draws on>", ...]}.)')


def task_prompt(task: ReviewTask) -> str:
    """What the agent is asked: the paper's survey prompt (appendix C) filled
    (`survey_request`), then the answer format."""
    return f"{survey_request(task)}\n\n{ANSWER_FORMAT}"


def survey_request(task: ReviewTask) -> str:
    """The paper's survey prompt (appendix C) without its first line (the system message),
    filled (`prompts/review_task.v1.txt`)."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.judge import load_prompt
    return load_prompt("review_task.v1").fill(
        domain=task.field, start_title=task.start.title,
        start_abstract=task.start.abstract or NO_ABSTRACT, end_title=task.end.title,
        end_abstract=task.end.abstract or NO_ABSTRACT)


def task_fields(task: ReviewTask) -> dict[str, Any]:
    """The task's parts as JSON for user agents (never `reference_path`)."""
    return {"kind": "review", "query": task.query, "field": task.field,
            "from": task.start.model_dump(), "to": task.end.model_dump()}
