"""`run reportbench --agent replay --agent-arg path=FILE`: reports written elsewhere, one JSON
line each, in either form:

- upstream's: ``{"arxiv_id": "2312.04861", "report": "<markdown>"}`` (the id may carry a version
  or an ``arXiv:`` prefix; nothing else is allowed on such a line);
- the report family's schema (`core.families`): ``{"id": "2312.04861", "report": "<markdown>",
  "cited": [REF, …]}`` (`cited` and `info` optional; unknown keys are malformed).

The file is read once; a malformed line (bad JSON, not an object, unknown keys, no or bad id, a
report that is not a string, a `cited` that is not a list of strings) is counted with its line
number and reason, never fatal; a second line for the same survey is counted as a duplicate
and the first one kept. A task without a line gets a `WrittenReport` with an error ("no report
for … in FILE"): the run records it as missing and scores it 0.

`ReplayReports` follows both the writer protocol (`write`) and the engine's agent contract
(`solve`): the benchmark uses it for `--agent replay`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.agents.writers.base import WriterContext, WritingRequest, WrittenReport
from scholarbench.core.agent import Needs
from scholarbench.core.families import Malformed, parse_answer
from scholarbench.core.replay import read_replay_file, select_lines
from scholarbench.data.sources.keys import id_key
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.files import sha256_file

LINE_KEYS = frozenset({"arxiv_id", "report"})


class ReplaySetupError(ScholarbenchError, ValueError):
    """The replay agent cannot start (no file given)."""


def survey_id(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    key = id_key("arxiv", value)
    return key.split(":", 1)[1] if key else None


class ReplayReports:
    name = "replay"
    uses_llm = False
    needs = Needs()

    def __init__(self, path: str | Path | None = None, *, benchmark: str | None = None,
                 subtask: str | None = None) -> None:
        if path is None:
            raise ReplaySetupError("replay needs the reports file: --agent-arg "
                                   "path=REPORTS.jsonl (lines {\"arxiv_id\", \"report\"} or "
                                   "{\"id\", \"report\", \"cited\"})")
        self.path = Path(path)
        if not self.path.is_file():
            raise DataError("no such reports file", file=str(self.path))
        self.reports: dict[str, str | dict[str, Any]] = {}
        self.malformed: list[dict[str, Any]] = []
        self.duplicates: list[dict[str, Any]] = []
        first_line: dict[str, int] = {}
        # this run's lines of a suite's file (`core.replay`): tags removed, first of each id
        selected = select_lines(self.path, benchmark, subtask, ("arxiv_id", "id"))
        self.problems = selected.problems
        self.malformed = [{"line": n, "reason": why}
                          for n, why in read_replay_file(self.path).bad]
        self.duplicates = [{"line": n, "arxiv_id": survey_id(key) or key, "first_line": kept}
                           for key, kept, n in selected.duplicates]
        for lineno, obj in selected.lines:
            why = self._problem(obj)
            if why:
                self.malformed.append({"line": lineno, "reason": why})
                self.problems.append(f"{self.path}, line {lineno}: {why}; line ignored")
                continue
            sid = survey_id(obj.get("arxiv_id", obj.get("id")))
            if sid in self.reports:
                self.duplicates.append({"line": lineno, "arxiv_id": sid,
                                        "first_line": first_line[sid]})
                self.problems.append(f"{self.path}: duplicate id {sid!r} in {benchmark}/"
                                     f"{subtask}: first kept (line {first_line[sid]}), line "
                                     f"{lineno} ignored")
                continue
            self.reports[sid] = (obj["report"] if "arxiv_id" in obj  # type: ignore[index]
                                 else {k: v for k, v in obj.items() if k != "id"})
            first_line[sid] = lineno  # type: ignore[index]

    @staticmethod
    def _problem(obj: object) -> str | None:
        if not isinstance(obj, dict):
            return f"expected a JSON object, got {type(obj).__name__}"
        if "arxiv_id" not in obj and "id" in obj:         # the family schema
            if survey_id(obj.get("id")) is None:
                return f"'id' is not an arXiv id: {obj.get('id')!r}"
            try:
                parse_answer("report", {k: v for k, v in obj.items() if k != "id"})
            except Malformed as exc:
                return str(exc)
            return None
        extra = sorted(set(obj) - LINE_KEYS)
        if extra:
            return f"unknown key(s) {extra} (allowed: arxiv_id, report)"
        if survey_id(obj.get("arxiv_id")) is None:
            return f"'arxiv_id' is missing or not an arXiv id: {obj.get('arxiv_id')!r}"
        if not isinstance(obj.get("report"), str):
            return "'report' must be a string (Markdown)"
        return None

    def config(self) -> dict[str, Any]:
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path),
                "n_reports": len(self.reports), "malformed_lines": len(self.malformed),
                "duplicate_lines": len(self.duplicates)}

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return family == "report"

    def _answer(self, task_id: str) -> str | dict[str, Any] | None:
        return self.reports.get(survey_id(task_id) or task_id)

    def write(self, request: WritingRequest, ctx: WriterContext) -> WrittenReport:
        found = self._answer(request.task_id)
        if found is None:
            return WrittenReport("", error=f"no report for {request.task_id} in {self.path}")
        return WrittenReport(found if isinstance(found, str) else str(found.get("report")))

    def solve(self, task: Any, ctx: Any) -> WrittenReport | dict[str, Any]:
        """The line's report (a `WrittenReport`), its family answer as given, or a
        `WrittenReport` saying there is none."""
        found = self._answer(task.id)
        if found is None:
            return WrittenReport("", error=f"no report for {task.id} in {self.path}")
        return WrittenReport(found) if isinstance(found, str) else dict(found)
