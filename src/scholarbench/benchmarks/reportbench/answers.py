"""An agent's answer as ReportBench's generate.jsonl line.

Two kinds of answer come in:

- a built-in writer's `WrittenReport` (markdown, cited corpus ids, error, info): recorded as the
  run always did — ``{"report": md | null, "error", "cited", "info", "prompt_sha256"}``. The
  writers append their own References section, which is what is scored; their `cited` list is
  kept for inspection only.
- the report family's answer (`core.families.ReportAnswer`: ``{"report": md, "cited": [REF]}``)
  from a user's agent, the endpoint agent or a family-schema replay line: the same fields plus
  ``"cited_scored": true``, because here `cited` is part of the answer — its REFs are scored
  beside the references the report text cites (`refscore.cited_references`, merged with them
  when they name the same work). Each REF is resolved offline now and the counts go to `info`:
  `n_cited_refs`, `n_cited_resolved` (a corpus paper), `n_cited_titled` (a title only),
  `n_cited_unresolved` (an id no corpus knows), `n_cited_hidden_survey` (the hidden survey
  itself: never a valid citation).

A line without a report (empty markdown, a writer that reported a failure, no replay line) is
``"status": "missing", "missing": true`` with `report: null` and its `error`: scored 0 and
counted as missing, as before. An answer that does not fit the schema raises `Malformed`.
"""
from __future__ import annotations

import hashlib
from typing import Any

from scholarbench.core.families import Malformed, answer_info, parse_answer
from scholarbench.agents.writers.base import WrittenReport
from scholarbench.benchmarks.reportbench.refscore import cited_counts


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _missing(record: dict[str, Any], why: str) -> dict[str, Any]:
    record.update(report=None, status="missing", missing=True)
    record["error"] = record.get("error") or why
    return record


def from_written(written: Any, prompt: str) -> dict[str, Any]:
    """The line of a built-in writer's `WrittenReport`."""
    markdown = written.markdown if isinstance(written.markdown, str) else None
    record: dict[str, Any] = {"prompt_sha256": sha256_text(prompt),
                              "report": markdown if markdown and markdown.strip() else None,
                              "error": written.error, "cited": list(written.cited or [])}
    if written.info:
        record["info"] = written.info
    if record["report"] is None:
        _missing(record, "the writer returned an empty report")
    return record


def from_answer(answer: Any, prompt: str, corpus: Any, hidden: Any) -> dict[str, Any]:
    """The line of a family answer (`Malformed` if it does not fit the schema)."""
    parsed = parse_answer("report", answer)
    info = dict(answer_info(answer))
    info.update(cited_counts(parsed.cited, corpus, hidden))
    record: dict[str, Any] = {"prompt_sha256": sha256_text(prompt),
                              "report": parsed.report if parsed.report.strip() else None,
                              "error": None, "cited": list(parsed.cited), "cited_scored": True,
                              "info": info}
    if record["report"] is None and not parsed.cited:
        _missing(record, "the answer's report is empty and it cites nothing")
    return record


def to_record(answer: Any, prompt: str, corpus: Any, hidden: Any) -> dict[str, Any]:
    if isinstance(answer, WrittenReport):
        return from_written(answer, prompt)
    if answer is None:
        raise Malformed("the agent returned nothing (a report answer is "
                        "{\"report\": markdown, \"cited\": [REF]})")
    return from_answer(answer, prompt, corpus, hidden)
