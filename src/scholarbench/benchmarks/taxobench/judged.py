"""What TaxoBench asks the engine's judge stage (`core.judge_stage`; docs/taxobench.md).

One `JudgedItem`, `judge`: per sample whose answer parsed as a taxonomy, one request — the
paper's judge prompt (`judge.build_messages`: upstream's wording, the expert and the model tree
as quoted data) — and the reply validated into the four 1-5 scores and their reasoning
(`judge.validate_reply`). The engine asks every judge of the panel K times, keeps each verdict
in `judge.judge.jsonl` under the judge's fingerprint, the prompt version and the request's
hash, records the judges in the manifest's `judged.judge` and their usage in `usage.judge.*`;
`score_sample` reads the verdicts (`ctx.verdicts["judge"]`, `panel.judge_columns`).
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.taxobench.judge import (DEFAULT_PROMPT, LOCAL_REASONING_CHARS,
                                                     build_messages, reply_schema,
                                                     validate_reply)
from scholarbench.benchmarks.taxobench.predictions import judgeable, prediction
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest
from scholarbench.llm.structured import JsonOutcome, ask_json

ITEM = "judge"          # judge.judge.jsonl, the manifest's judged.judge, usage.judge.<role>


def requests(sample: Any, record: dict[str, Any] | None) -> tuple[JudgeRequest, ...]:
    """One request when the sample's answer is a taxonomy; none for a missing or malformed
    one (never sent)."""
    taxonomy = judgeable(prediction(record, sample.id))
    if taxonomy is None:
        return ()
    return (JudgeRequest("answer", tuple(build_messages(sample.gold, taxonomy))),)


def ask(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
    """The default reply protocol (`llm.structured.ask_json`: schema, strict parse, one repair
    turn) with the schema fitted to the judge asked: the packaged local model's caps each
    reasoning (`judge.LOCAL_REASONING_CHARS`; it otherwise loops inside the first one)."""
    local = bool(getattr(getattr(client, "config", None), "is_local", False))
    return ask_json(client, list(request.messages), validate=validate_reply,
                    schema=reply_schema(LOCAL_REASONING_CHARS if local else None), name=ITEM,
                    seed=seed)


def judged_item() -> JudgedItem:
    """The item the engine's judge stage asks of every judge (`ask` fits the schema to each)."""
    return JudgedItem(ITEM, DEFAULT_PROMPT, requests, validate_reply, ask=ask)


__all__ = ["ITEM", "ask", "judged_item", "requests"]
