"""`replay` for ReportBench runs: reports written elsewhere, one JSON line each.

Lines are ``{"arxiv_id": "2312.04861", "report": "<markdown>"}`` (the id may carry a version or
an ``arXiv:`` prefix; nothing else is allowed on a line). The file is read once; a malformed
line (bad JSON, not an object, unknown keys, no or bad id, a report that is not a string) is
counted with its line number and reason, never fatal; a second line for the same survey is
counted as a duplicate and the first one kept. A task without a line gets a `WrittenReport`
with an error ("no report for … in FILE"): the run records it as missing and scores it 0.

This is not the registry's ``replay`` (TaxoBench predictions): `run reportbench --agent replay`
uses this class directly.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.agents.writers.base import WriterContext, WritingRequest, WrittenReport
from scholarbench.data.jsonl import iter_jsonl_lines
from scholarbench.data.sources.keys import id_key
from scholarbench.errors import DataError

LINE_KEYS = frozenset({"arxiv_id", "report"})


def survey_id(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    key = id_key("arxiv", value)
    return key.split(":", 1)[1] if key else None


class ReplayReports:
    name = "replay"
    uses_llm = False

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            raise ValueError("replay needs the reports file: --agent-arg path=REPORTS.jsonl "
                             "(lines {\"arxiv_id\", \"report\"})")
        self.path = Path(path)
        if not self.path.is_file():
            raise DataError("no such reports file", file=str(self.path))
        self.reports: dict[str, str] = {}
        self.malformed: list[dict[str, Any]] = []
        self.duplicates: list[dict[str, Any]] = []
        first_line: dict[str, int] = {}
        for lineno, obj, problem in iter_jsonl_lines(self.path):
            why = problem or self._problem(obj)
            if why:
                self.malformed.append({"line": lineno, "reason": why})
                continue
            sid = survey_id(obj["arxiv_id"])
            if sid in self.reports:
                self.duplicates.append({"line": lineno, "arxiv_id": sid,
                                        "first_line": first_line[sid]})
                continue
            self.reports[sid] = obj["report"]  # type: ignore[index]
            first_line[sid] = lineno  # type: ignore[index]

    @staticmethod
    def _problem(obj: object) -> str | None:
        if not isinstance(obj, dict):
            return f"expected a JSON object, got {type(obj).__name__}"
        extra = sorted(set(obj) - LINE_KEYS)
        if extra:
            return f"unknown key(s) {extra} (allowed: arxiv_id, report)"
        if survey_id(obj.get("arxiv_id")) is None:
            return f"'arxiv_id' is missing or not an arXiv id: {obj.get('arxiv_id')!r}"
        if not isinstance(obj.get("report"), str):
            return "'report' must be a string (Markdown)"
        return None

    def config(self) -> dict[str, Any]:
        from scholarbench.files import sha256_file
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path),
                "n_reports": len(self.reports), "malformed_lines": len(self.malformed),
                "duplicate_lines": len(self.duplicates)}

    def write(self, request: WritingRequest, ctx: WriterContext) -> WrittenReport:
        report = self.reports.get(survey_id(request.task_id) or request.task_id)
        if report is None:
            return WrittenReport("", error=f"no report for {request.task_id} in {self.path}")
        return WrittenReport(report)
