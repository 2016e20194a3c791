"""The prediction lines `scholarbench score reportbench --pred FILE` reads, in three forms:

- ``upstream``: `{"arxiv_id": …, "report": "<markdown>"}` or `{"arxiv_id": …, "references":
  [{"title": …}, …]}` (items may also carry `authors`, `url`, `doi`, `arxiv_id`,
  `is_academic_paper`; nothing else);
- ``answer``: the report family's schema, `{"id": …, "report": "<markdown>", "cited": [REF]}`
  (`cited`, `info` optional; unknown keys are malformed) — what `--agent replay` also reads;
- ``run``: a line of a ReportBench run's generate.jsonl (it has `id` and `seconds`, and
  `status` unless ok; its fields
  are the run's: `report` (null when the survey has none), `error`, `cited`, `cited_scored`,
  `info`, `seconds`, `prompt_sha256`, `missing`). A resumed run appends a survey's retry
  after its errored line, so for these lines the LAST one of a survey counts (earlier ones are
  counted as `superseded`), as in the run itself.

The id may carry a version or an `arXiv:` prefix. For the other forms the first valid line of a
survey counts and later ones are duplicates.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.data.jsonl import iter_jsonl_lines
from scholarbench.data.sources.keys import id_key
from scholarbench.core.families import Malformed, parse_answer
from scholarbench.references.extract import item_error

LINE_KEYS = frozenset({"arxiv_id", "report", "references"})
RUN_KEYS = frozenset({"id", "status", "report", "error", "cited", "cited_scored", "info",
                      "seconds", "prompt_sha256", "missing"})


def survey_id(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    key = id_key("arxiv", value)
    return key.split(":", 1)[1] if key else None


def _check_upstream(obj: dict[str, Any], survey: str) -> str | None:
    extra = sorted(set(obj) - LINE_KEYS)
    if extra:
        return f"unknown key(s) {extra} (allowed: {sorted(LINE_KEYS)})"
    has_report, has_refs = "report" in obj, "references" in obj
    if has_report == has_refs:
        return "needs exactly one of 'report' and 'references'"
    if has_report and not isinstance(obj["report"], str):
        return "'report' must be a string (Markdown)"
    if has_refs:
        if not isinstance(obj["references"], list):
            return "'references' must be a list of {\"title\": …} objects"
        for i, item in enumerate(obj["references"]):
            why = item_error(item)
            if why:
                return f"references[{i}]: {why}"
    return None


def _check_run(obj: dict[str, Any]) -> str | None:
    extra = sorted(set(obj) - RUN_KEYS)
    if extra:
        return f"unknown key(s) {extra} in a run record (allowed: {sorted(RUN_KEYS)})"
    if obj.get("report") is not None and not isinstance(obj["report"], str):
        return "'report' must be a string (Markdown) or null"
    cited = obj.get("cited", [])
    if not isinstance(cited, list) or not all(isinstance(c, str) for c in cited):
        return "'cited' must be a list of strings"
    return None


def _check_answer(obj: dict[str, Any]) -> str | None:
    try:
        parse_answer("report", {k: v for k, v in obj.items() if k != "id"})
    except Malformed as exc:
        return str(exc)
    return None


def check_line(obj: object) -> tuple[str | None, str | None, str | None]:
    """(arxiv_id or None, reason the line is malformed or None, form or None)."""
    if not isinstance(obj, dict):
        return None, f"expected a JSON object, got {type(obj).__name__}", None
    if "arxiv_id" in obj:
        survey = survey_id(obj.get("arxiv_id"))
        if survey is None:
            return None, f"'arxiv_id' is not an arXiv id: {obj.get('arxiv_id')!r}", None
        return survey, _check_upstream(obj, survey), "upstream"
    if "id" not in obj:
        return None, "no 'arxiv_id' (or 'id')", None
    survey = survey_id(obj.get("id"))
    if survey is None:
        return None, f"'id' is not an arXiv id: {obj.get('id')!r}", None
    if "status" in obj or "seconds" in obj:      # the engine writes `status` only when not ok
        return survey, _check_run(obj), "run"
    return survey, _check_answer(obj), "answer"


def read_predictions(path: Path) -> tuple[list[tuple[int, str, dict, str]], list[dict]]:
    """(valid lines as (line, arxiv_id, obj, form), malformed as {line, arxiv_id, reason})."""
    valid, bad = [], []
    for lineno, obj, problem in iter_jsonl_lines(path):
        if problem is not None:
            bad.append({"line": lineno, "arxiv_id": None, "reason": problem})
            continue
        survey, why, form = check_line(obj)
        if why:
            bad.append({"line": lineno, "arxiv_id": survey, "reason": why})
        else:
            valid.append((lineno, survey, obj, form))
    return valid, bad


def as_record(obj: dict[str, Any], form: str) -> dict[str, Any]:
    """The line as a run record (`report`, `cited`, `cited_scored`, `error`)."""
    if form == "run":
        return dict(obj)
    if form == "answer":
        return {"report": obj["report"], "cited": list(obj.get("cited") or []),
                "cited_scored": True}
    return {"report": obj.get("report")}
