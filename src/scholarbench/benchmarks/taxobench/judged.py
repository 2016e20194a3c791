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
from scholarbench.llm.config import resolve_role
from scholarbench.metrics.judge_panel import client_of

ITEM = "judge"          # judge.judge.jsonl, the manifest's judged.judge, usage.judge.<role>


def requests(sample: Any, record: dict[str, Any] | None) -> tuple[JudgeRequest, ...]:
    """One request when the sample's answer is a taxonomy; none for a missing or malformed
    one (never sent)."""
    taxonomy = judgeable(prediction(record, sample.id))
    if taxonomy is None:
        return ()
    return (JudgeRequest("answer", tuple(build_messages(sample.gold, taxonomy))),)


def judged_item(local: bool = False) -> JudgedItem:
    """The item; `local`: every judge is the packaged local model, whose reply schema caps
    each reasoning (`judge.LOCAL_REASONING_CHARS`; it otherwise loops inside the first one)."""
    return JudgedItem(ITEM, DEFAULT_PROMPT, requests, validate_reply,
                      schema=reply_schema(LOCAL_REASONING_CHARS if local else None))


def local_judges(models: Any) -> bool:
    """Whether every judge of the run is the packaged local model: from the bound clients, or
    from the judge flags when none is bound yet (nothing is bound here)."""
    if "judge" in models.bound():
        configs = [getattr(client_of(j), "config", None) for j in models.judges()]
    else:
        recipe = getattr(models, "recipe", None) or {}
        if not recipe:
            return False
        configs = [resolve_role("judge", flags, config_file=recipe.get("config_file"))
                   for flags in [recipe.get("judge_flags") or {},
                                 *(recipe.get("panel_flags") or [])]]
    return bool(configs) and all(c is not None and c.is_local for c in configs)


__all__ = ["ITEM", "judged_item", "local_judges", "requests"]
