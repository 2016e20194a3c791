"""SciNet's review sub-task (`--task review`, engine family `report`): samples, answers and the
built-in review writer.

What an agent sees (`make_review_sample`): `prompt` = the paper's survey prompt (appendix C,
`prompts/review_task.v1.txt`: domain, start and end paper with abstracts) and the answer format;
`fields` = `kind` ("review"), `query` (the path-wise query), `field`, `from` / `to` = {`id`,
`title`, `abstract`}. Never the reference path.

Answers (`record_fields`): `{"review": "<Markdown>", "papers": [REF, …]}` (SciNet's review
answer; `papers` optional: the papers the review draws on, resolved offline like every SciNet
answer) or the engine's report family `{"report": "<Markdown>", "cited": [REF, …]}` (what the
endpoint agent returns); a report whose whole text is the JSON review answer is read as it.
Anything else — no review, a blank one, unknown keys, `papers` not a list of REFs — is
`malformed`.

Built-in agents on this sub-task (`ReviewWriter`): any SciNet retrieval agent (`bm25`,
`embedding`, `relation-aware`, `deep-research`) retrieves papers for the task's path query
from the graph (its path answer: the two endpoints and the papers between them), then the agent
model writes the review from the paper's prompt with the retrieved papers listed
(`prompts/review_write.v1.txt`; system message: the prompt's first line). A failed model call
raises (the task is `error`); an empty reply is a malformed answer.
"""
from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from scholarbench.benchmarks.scinet.records import SciNetTask
from scholarbench.benchmarks.scinet.review_tasks import (ReviewTask, survey_request,
                                                         task_fields, task_prompt)
from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.benchmark import Sample
from scholarbench.core.families import Malformed, Ref, answer_info

WRITE_PROMPT = "review_write.v1"
SYSTEM = "You are a helpful academic assistant that generates surveys using retrieved literature."


class ReviewAnswer(BaseModel):
    """SciNet's review answer."""
    model_config = ConfigDict(extra="forbid")
    review: str = Field(min_length=1)
    papers: list[Ref] = Field(default_factory=list)

    @field_validator("review")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the review is blank")
        return value


def make_review_sample(task: ReviewTask) -> Sample:
    blind = task.model_copy(update={"reference_path": None})
    return Sample(task.task_id, Task(id=task.task_id, benchmark="scinet", subtask="review",
                                     family="report", prompt=task_prompt(task),
                                     fields=task_fields(task), native=blind), gold=task)


def _as_review(answer: Any) -> dict[str, Any]:
    """The answer in SciNet's review form (the report family mapped onto it)."""
    if isinstance(answer, BaseModel):
        answer = answer.model_dump()
    if not isinstance(answer, dict):
        raise Malformed(f"a review answer must be a JSON object, got {type(answer).__name__}")
    body = {k: v for k, v in answer.items() if k != "info"}
    if "report" in body and "review" not in body:
        report = body.get("report")
        if isinstance(report, str) and report.strip().startswith("{"):
            try:
                inner = json.loads(report)
            except ValueError:
                inner = None
            if isinstance(inner, dict) and "review" in inner:
                return inner
        extra = sorted(set(body) - {"report", "cited"})
        if extra:
            raise Malformed(f"review answer: unknown field(s) {extra}")
        return {"review": report, "papers": body.get("cited") or []}
    return body


def record_fields(answer: Any, env: Any) -> dict[str, Any]:
    """generate.jsonl fields of a review answer; `Malformed` if it is not one."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.answers import resolve_refs
    try:
        parsed = ReviewAnswer.model_validate(_as_review(answer))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(answer)"
        raise Malformed(f"review answer, field {where}: {first['msg']}") from None
    papers, unresolved = resolve_refs(list(parsed.papers), env)
    info = {**answer_info(answer), "refs": len(papers), "unresolved": unresolved,
            "review_chars": len(parsed.review)}
    return {"review": parsed.review, "papers": papers, "info": info}


def paper_lines(ids: list[str], env: Any) -> str:
    lines = []
    for n, pid in enumerate(ids, start=1):
        year = env.year(pid) if env.has(pid) else None
        title = env.title(pid) if env.has(pid) else pid
        lines.append(f"{n}. {title}" + (f" ({year})" if year else "") + f" [{pid}]")
    return "\n".join(lines) or "(none found)"


class ReviewWriter:
    """A SciNet retrieval agent (SciNet's own protocol) + the agent model writing the review."""

    def __init__(self, native: Any, name: str, max_tokens: int = 2048) -> None:
        self.native, self.name, self.max_tokens = native, name, int(max_tokens)
        self.needs = Needs(llm=True, embedder=bool(getattr(native, "needs_embedder", False)))

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return benchmark == "scinet"

    def config(self) -> dict[str, Any]:
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.judge import load_prompt
        return {"retriever": self.native.config(), "writer": {
            "prompt": load_prompt(WRITE_PROMPT).identity(),
            "task_prompt": load_prompt("review_task.v1").identity(),
            "max_tokens": self.max_tokens}}

    def retrieve(self, task: ReviewTask, ctx: AgentContext) -> tuple[list[str], dict[str, Any]]:
        """The retrieval agent's answer to the task's path query (no ground truth)."""
        # deferred: pulls in duckdb, pyarrow
        from scholarbench.benchmarks.scinet.agents import SciNetContext
        path = SciNetTask(task.source, "path", "path", task.query, field=task.field,
                          classic=task.start.id or task.start.title,
                          recent=task.end.id or task.end.title, gold=None)
        sctx = SciNetContext(env=ctx.extra["env"], embedder=ctx.embedder, llm=ctx.llm,
                             params=dict(ctx.params))
        with_info = getattr(self.native, "answer_with_info", None)
        if with_info is not None:
            papers, info = with_info(path, sctx)
        else:
            papers, info = self.native.answer(path, sctx), {}
        return list(papers), dict(info or {})

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.judge import load_prompt
        if ctx.llm is None or ctx.extra.get("env") is None or task.native is None:
            raise RuntimeError(f"{self.name} writes SciNet reviews: it needs SciNet's graph "
                               "and the agent model")
        env = ctx.extra["env"]
        papers, info = self.retrieve(task.native, ctx)
        user = load_prompt(WRITE_PROMPT).fill(task=survey_request(task.native),
                                              papers=paper_lines(papers, env))
        reply = ctx.llm.complete([{"role": "system", "content": SYSTEM},
                                  {"role": "user", "content": user}],
                                 max_tokens=self.max_tokens)
        return {"review": reply.text or "", "papers": papers,
                "info": {**info, "retrieved": len(papers)}}
