"""DeepSynth-Eval's built-in agents behind the one agent contract (`core.agent`).

- ``e2e-writer`` and ``agentic-writer``: the report writers shared with ReportBench
  (`agents/writers/`, registered there, looked up here by name) keep their own protocol,
  ``write(WritingRequest, WriterContext) -> WrittenReport``; `WriterAgent` is the adapter. The
  writer gets ``WritingRequest(prompt = the unified prompt, topic = the general prompt's
  subject, cutoff = the day the survey may first have appeared, exclude_ids = the survey,
  oracle = the task's oracle context or None)``; without an oracle (``--oracle none``, or no
  reference list for the task) a writer searches the corpus under that cut-off and exclusion.
  A write that fails (``WrittenReport.error``: a model call failed after the client's retries,
  an empty reply) is the sample's ``error`` — never a result; a resumed run retries it.
- ``replay``: reports from a file (``--agent-arg path=FILE``, or ``--replay FILE``), or without
  a file from the task file's own ``survey_result``. A line is the family schema
  ``{"id": TASK_ID, "report": "…", "cited": [REF, …]}`` (checked strictly), or the older forms
  ``{"task_id": …, "report": "…"}`` and upstream's generation results ``{"task_id": …,
  "survey_result": "…", …}`` (other keys of those ignored). A task with no line is ``missing``;
  a report that is not a string is ``malformed``; a task id twice, a line without an id or a
  line that is not JSON is a DataError naming the file and line; lines for unknown tasks are
  counted (``replay_unknown_ids``) and ignored.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from scholarbench.agents.writers.base import WriterContext, WritingRequest, WrittenReport
from scholarbench.benchmarks.deepsynth.loader import unified_prompt
from scholarbench.benchmarks.deepsynth.oracle import survey_cutoff, survey_paper_id
from scholarbench.core.agent import AgentContext, AgentError, Needs, Task
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.core.registry import REGISTRY
from scholarbench.core.replay import Missing, select_lines
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.files import sha256_file

WRITERS = ("e2e-writer", "agentic-writer")


@dataclass
class NativeTask:
    """What the built-in agents get as `Task.native`: the task record and, once the run has
    built the oracle context, the writers' request."""
    task: Any                              # records.Task
    request: Any = None                    # agents.writers.base.WritingRequest


_TOPIC = re.compile(r"survey(?:\s+paper)?\s+(?:on|about|of)\s+(.+?)(?:,?\s+based\s+on\s+the\s+"
                    r"provided\s+papers)?\s*\.?\s*$", re.IGNORECASE | re.DOTALL)


def topic_of(task: Any) -> str:
    """The subject of the general prompt ("… a comprehensive survey paper on X based on the
    provided papers." → X); the whole general prompt when it does not read so."""
    general = " ".join(task.general_prompt.split())
    match = _TOPIC.search(general)
    return match.group(1).strip() if match else general


def writing_request(task: Any, context: Any, corpus: Any) -> Any:
    exclude = [i for i in (survey_paper_id(task, corpus),
                           f"arxiv:{task.survey_id}" if task.survey_id else None) if i]
    return WritingRequest(task_id=str(task.task_id), prompt=unified_prompt(task),
                          topic=topic_of(task), cutoff=survey_cutoff(task, corpus),
                          exclude_ids=tuple(dict.fromkeys(exclude)),
                          oracle=context.references() if context else None)


@dataclass
class WriterAgent:
    """A report writer as an agent of this benchmark."""
    writer: Any
    oracle_config: dict[str, Any] | None = None     # set by the benchmark before the run
    needs: Needs = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.writer.name
        self.needs = Needs(llm=bool(getattr(self.writer, "uses_llm", False)), corpus=True)

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return benchmark == "deepsynth" and family == "report"

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {"writer": self.writer.config()}
        if self.oracle_config is not None:
            out["oracle"] = self.oracle_config
        return out

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        native = task.native
        if not isinstance(native, NativeTask) or native.request is None:
            raise AgentError("the writer's request was not prepared (run it through the engine)")
        written = self.writer.write(native.request, WriterContext(
            llm=ctx.llm, corpus_dir=ctx.corpus_dir, corpus=ctx.corpus))
        if not isinstance(written, WrittenReport):
            raise TypeError(f"write() returned {type(written).__name__}, not WrittenReport")
        if written.error:
            raise AgentError(f"{self.name}: {written.error}")
        return {"report": written.markdown, "cited": list(written.cited),
                "info": dict(written.info or {})}


def writer_agent(name: str, params: dict[str, Any]) -> WriterAgent | None:
    """The registered writer `name` wrapped, or None when no writer has that name."""
    factory = REGISTRY.find("agent", name)
    if factory is None or not callable(getattr(factory, "write", None)):
        return None
    try:
        writer = factory(**params)
    except (TypeError, ValueError) as exc:
        raise ScholarbenchError(f"agent {name!r}: {exc}") from None
    return WriterAgent(writer)


class DeepSynthReplay:
    """`replay` (module docstring)."""
    name = "replay"
    needs = Needs()

    def __init__(self, path: str | Path | None = None, *, benchmark: str | None = None,
                 subtask: str | None = None) -> None:
        self.path = Path(path) if path else None
        self.answers: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = []
        if self.path is not None:
            if not self.path.is_file():
                raise ScholarbenchError(f"replay: {self.path} is not a file")
            # this run's lines of a suite's file: tags removed, first of each id
            selected = select_lines(self.path, benchmark, subtask, ("task_id", "id"))
            self.problems = selected.problems
            self.answers = read_replay(self.path, selected.lines)

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return family == "report"

    def config(self) -> dict[str, Any]:
        if self.path is None:
            return {"replay": "survey_result"}
        return {"replay": {"path": str(self.path.resolve()), "sha256": sha256_file(self.path)}}

    def unknown_ids(self, known: set[str]) -> list[str]:
        return sorted(set(self.answers) - known)

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        if self.path is None:
            report = getattr(getattr(task.native, "task", None), "survey_result", None)
            if report is None:
                raise Missing("the task file has no survey_result for this task")
            return {"report": report}
        if task.id not in self.answers:
            raise Missing(f"no report for task {task.id!r} in {self.path}")
        return dict(self.answers[task.id])


def read_replay(path: Path, lines: Iterable[tuple[int, dict[str, Any]]] | None = None
                ) -> dict[str, dict[str, Any]]:
    """Answers by task id (the line's answer part; a wrong one is left for the schema check);
    `lines`: (line number, object) already read, else the whole file."""
    out: dict[str, dict[str, Any]] = {}
    first: dict[str, int] = {}
    for lineno, obj in (iter_jsonl(path) if lines is None else lines):
        key_name = "task_id" if "task_id" in obj else "id"
        value = obj.get(key_name)
        if value is None or isinstance(value, (bool, dict, list)):
            raise DataError("missing or not a number/string", file=str(path), line=lineno,
                            field="task_id")
        key = str(value)
        if key in first:
            raise DataError(f"task_id {value!r} twice (first on line {first[key]})",
                            file=str(path), line=lineno, field=key_name)
        first[key] = lineno
        if key_name == "id":                       # the family schema, checked as it is
            out[key] = {k: v for k, v in obj.items() if k != "id"}
        elif "report" in obj or "survey_result" not in obj:
            out[key] = {"report": obj.get("report")} | (
                {"cited": obj["cited"]} if "cited" in obj else {})
        else:                                      # upstream generation results
            out[key] = {"report": obj["survey_result"]}
    return out


__all__ = ["DeepSynthReplay", "NativeTask", "WRITERS", "WriterAgent", "read_replay",
           "topic_of", "writer_agent", "writing_request"]
