"""One cited pair's check and one non-cited vote, as requests and replies (`statements` steps
2–3 and the vote), shared by the engine's judged items (`statement_items`) and `StatementJudge`
asking on its own (`score reportbench` on files), so both send the same requests and read the
same verdicts.

A check's verdict (JSON): ``{"match", "not_found", "reason", "passage"}`` — with
``passage="llm"`` two calls (the A.2.3 passage, then the A.2.4 consistency judge on it; a
NOT_FOUND passage is a mismatch without the second call), with ``"bm25"`` one. A vote's:
``{"decision", "reason"}`` (A.2.5). A call that fails after its retries is an outcome whose
reason starts ``call failed`` (the engine's `error`); an unusable reply after the repair turn
is unscored.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.sources import (Unreachable, render_evidence,
                                                         render_passages, select_passages)
from scholarbench.benchmarks.reportbench.statement_records import CitedUnit, Vote
from scholarbench.benchmarks.reportbench.statement_replies import (DECISION_SCHEMA,
                                                                   MATCH_SCHEMA, parse_decision,
                                                                   parse_match)
from scholarbench.llm.client import LLMCallError
from scholarbench.llm.structured import JsonOutcome, ask_json

NOT_IN_REPORT = "citation not in report"
NOT_FOUND = re.compile(r"[\"'`*\s]*NOT[_ ]FOUND[\"'`*.\s]*", re.IGNORECASE)


def locate(unit: CitedUnit, ref: Any, lookup: Any, config: Any) -> str | None:
    """The source text a pair's judge is shown (its passages, also noted in `unit.source`),
    or None with `unit` marked unreachable (no reference, no source text)."""
    if ref is None:
        unit.status, unit.unreachable = "unreachable", NOT_IN_REPORT
        unit.reason = f"the citation {unit.citation!r} names no reference of the report"
        return None
    source = lookup.lookup(ref)
    if isinstance(source, Unreachable):
        unit.status, unit.unreachable = "unreachable", source.reason
        unit.reason = source.detail or source.reason
        return None
    shown = select_passages(unit.statement, source.passages, config.passages_k,
                            config.source_chars)
    unit.source = {"origin": source.origin, "paper_id": source.paper_id,
                   "title": source.title, "url": source.url,
                   "passages": [p.where for p in shown]}
    return render_passages(shown)


def check_messages(prompts: Any, config: Any, statement: str, source_text: str
                   ) -> tuple[dict[str, str], ...]:
    """The check's first request: the passage prompt, or (``passage="bm25"``) the consistency
    judge on the top passages as they are."""
    if config.passage == "llm":
        return tuple(prompts.messages("passage", statement=statement, source_text=source_text))
    return tuple(prompts.messages("consistency", statement=statement,
                                  source_sentence=source_text))


def ask_check(client: Any, prompts: Any, config: Any, statement: str,
              messages: Sequence[dict[str, str]], seed: int | None) -> JsonOutcome:
    """One pair checked by `client` (module docstring); `messages`: `check_messages`."""
    passage, calls = None, 0
    if config.passage == "llm":
        try:
            text = client.complete(list(messages), max_tokens=config.passage_max_tokens,
                                   seed=seed).text.strip()
        except LLMCallError as exc:
            return JsonOutcome(unscored=f"call failed: the passage prompt: {exc}", attempts=1)
        calls = 1
        if not text:
            return JsonOutcome(unscored="empty reply to the passage prompt", attempts=1)
        if NOT_FOUND.fullmatch(text):
            return JsonOutcome({"match": False, "not_found": True, "passage": None,
                                "reason": "NOT_FOUND: no supporting content in the source"},
                               attempts=1)
        passage = text
        messages = prompts.messages("consistency", statement=statement,
                                    source_sentence=passage)
    outcome = ask_json(client, list(messages), validate=parse_match, schema=MATCH_SCHEMA,
                       name="consistency", constrain=prompts.quoted,
                       max_tokens=config.judge_max_tokens, seed=seed)
    if not outcome.ok:
        return JsonOutcome(unscored=outcome.unscored, attempts=calls + outcome.attempts)
    match, reason = outcome.value
    return JsonOutcome({"match": bool(match), "not_found": False, "reason": reason,
                        "passage": passage}, attempts=calls + outcome.attempts)


def apply_check(unit: CitedUnit, verdict: dict[str, Any] | None, why: str | None,
                source_text: str | None, attempts: int = 0) -> CitedUnit:
    """`unit` with a check's verdict (None: unscored, `why` the reason); `source_text`: what
    the consistency judge saw with ``passage="bm25"`` (the picked passage otherwise)."""
    unit.attempts += attempts
    if verdict is None:
        unit.status, unit.reason = "unscored", why or "not asked"
        return unit
    unit.status, unit.match = "checked", bool(verdict["match"])
    unit.not_found, unit.reason = bool(verdict.get("not_found")), verdict.get("reason")
    if not unit.not_found:
        unit.passage = verdict.get("passage") or source_text
    return unit


def evidence_for(statement: str, evidence: Any, prompts: Any, config: Any) -> tuple[str, list]:
    """(the rendered evidence a vote is shown, the evidence found) for one statement."""
    found = evidence.search(statement, config.evidence_k) \
        if config.evidence_k > 0 and prompts.shows_evidence() else []
    return render_evidence(found, config.evidence_chars), list(found)


def vote_messages(prompts: Any, evidence_name: str, statement: str, rendered: str
                  ) -> tuple[dict[str, str], ...]:
    return tuple(prompts.messages("fact_check", statement=statement,
                                  evidence_source=evidence_name, evidence=rendered))


def ask_vote(client: Any, prompts: Any, config: Any, messages: Sequence[dict[str, str]],
             seed: int | None) -> JsonOutcome:
    """One vote (A.2.5) at the vote temperature with `seed`."""
    outcome = ask_json(client, list(messages), validate=parse_decision,
                       schema=DECISION_SCHEMA, name="fact_check", constrain=prompts.quoted,
                       temperature=config.vote_temperature, seed=seed,
                       max_tokens=config.judge_max_tokens)
    if not outcome.ok:
        return outcome
    decision, reason = outcome.value
    return JsonOutcome({"decision": decision, "reason": reason}, attempts=outcome.attempts)


def vote_of(judge: str, sample: int, verdict: dict[str, Any] | None, why: str | None,
            attempts: int = 0) -> Vote:
    if verdict is None:
        return Vote(judge, sample, None, unscored=why or "not asked", attempts=attempts)
    return Vote(judge, sample, verdict["decision"], verdict.get("reason"), attempts=attempts)


__all__ = ["NOT_IN_REPORT", "apply_check", "ask_check", "ask_vote", "check_messages",
           "evidence_for", "locate", "vote_messages", "vote_of"]
