"""The statement extraction's requests and replies (prompts A.2.1–A.2.2; `statements` step 1),
shared by the engine's judged items (`statement_items`) and the direct path of
`score reportbench` on files (`DirectExtraction`), so both send the same request and keep the
same verdict.

A verdict is the parsed reply in JSON form — cited: ``{"pairs": [[statement, citation], …],
"dropped": n}``; non-cited: ``{"statements": […], "dropped": n}`` (`dropped`: items with an
empty statement or citation). `StatementJudge.judge_report` reads one chunk's statements through
an `Extraction`: `DirectExtraction` asks the judge now, `EngineExtraction` reads the verdicts the
engine's judge stage gave (a chunk with none is `Extracted.problem`, its reason kept).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from scholarbench.benchmarks.reportbench.statement_prompts import PromptSet
from scholarbench.benchmarks.reportbench.statement_replies import (CITED_SCHEMA,
                                                                   NONCITED_SCHEMA, parse_cited,
                                                                   parse_noncited)
from scholarbench.llm.structured import JsonOutcome, ask_json

CITED, NONCITED = "cited_statements", "noncited_statements"     # the items (and reply names)


@dataclass(frozen=True)
class Extracted:
    """One chunk's statements: (statement, citation) pairs or statements; `problem` why there
    are none to judge (the reply stayed unusable, the call failed, it was never asked)."""
    items: list[Any]
    dropped: int = 0
    problem: str | None = None


class Extraction(Protocol):
    def cited(self, c: int, chunk: str) -> Extracted: ...

    def noncited(self, c: int, chunk: str, cited: Sequence[str]) -> Extracted: ...


def subject(c: int) -> str:
    return f"chunk-{c}"


def cited_messages(prompts: PromptSet, chunk: str) -> tuple[dict[str, str], ...]:
    return tuple(prompts.messages("cited", report=chunk))


def noncited_messages(prompts: PromptSet, chunk: str, cited: Sequence[str]
                      ) -> tuple[dict[str, str], ...]:
    return tuple(prompts.messages("noncited", report=chunk, cited_statements=list(cited)))


def ask_extraction(client: Any, kind: str, messages: Sequence[dict[str, str]],
                   prompts: PromptSet, max_tokens: int, seed: int | None = None) -> JsonOutcome:
    """Ask one chunk's extraction (`kind`: `CITED` or `NONCITED`); the value in JSON form."""
    cited = kind == CITED
    outcome = ask_json(client, list(messages), validate=parse_cited if cited else parse_noncited,
                       schema=CITED_SCHEMA if cited else NONCITED_SCHEMA, name=kind,
                       constrain=prompts.quoted, max_tokens=max_tokens, seed=seed)
    if not outcome.ok:
        return outcome
    found, dropped = outcome.value
    value = ({"pairs": [list(p) for p in found], "dropped": dropped} if cited
             else {"statements": list(found), "dropped": dropped})
    return JsonOutcome(value, None, outcome.attempts)


def extracted(kind: str, value: Any, problem: str | None) -> Extracted:
    """A verdict (`ask_extraction`'s value, None when there is none) as the chunk's statements."""
    if value is None:
        return Extracted([], 0, problem or "not asked")
    if kind == CITED:
        return Extracted([(str(s), str(c)) for s, c in value["pairs"]], int(value["dropped"]))
    return Extracted([str(s) for s in value["statements"]], int(value["dropped"]))


class DirectExtraction:
    """The judge asked now, one call (and its repair) per chunk: `score reportbench` on files
    and `StatementJudge` used on its own."""

    def __init__(self, client: Any, prompts: PromptSet, max_tokens: int) -> None:
        self.client, self.prompts, self.max_tokens = client, prompts, max_tokens

    def _ask(self, kind: str, messages: Sequence[dict[str, str]]) -> Extracted:
        outcome = ask_extraction(self.client, kind, messages, self.prompts, self.max_tokens)
        return extracted(kind, outcome.value if outcome.ok else None, outcome.unscored)

    def cited(self, c: int, chunk: str) -> Extracted:
        return self._ask(CITED, cited_messages(self.prompts, chunk))

    def noncited(self, c: int, chunk: str, cited: Sequence[str]) -> Extracted:
        return self._ask(NONCITED, noncited_messages(self.prompts, chunk, cited))


class EngineExtraction:
    """One sample's extraction verdicts from the engine's judge stage (`core.judge_stage.
    Verdicts` of the two items; the first judge's, asked once)."""

    def __init__(self, verdicts: dict[str, Any], sample: str) -> None:
        self.verdicts, self.sample = verdicts, sample

    def _read(self, kind: str, c: int) -> Extracted:
        found = self.verdicts.get(kind)
        values = found.of(self.sample, subject(c)) if found is not None else {}
        reasons = found.why(self.sample, subject(c)) if found is not None else {}
        for label, per_repeat in values.items():
            return extracted(kind, per_repeat[0], (reasons.get(label) or [None])[0])
        return extracted(kind, None, None)

    def cited(self, c: int, chunk: str) -> Extracted:
        return self._read(CITED, c)

    def noncited(self, c: int, chunk: str, cited: Sequence[str]) -> Extracted:
        return self._read(NONCITED, c)


__all__ = ["CITED", "DirectExtraction", "EngineExtraction", "Extracted", "Extraction",
           "NONCITED", "ask_extraction", "cited_messages", "extracted", "noncited_messages",
           "subject"]
