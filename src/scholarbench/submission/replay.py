"""Judges that replay a submission's judge records and ask nothing.

The engine's judge stage keys every verdict by the judge's fingerprint (model, base URL without
secrets, temperature, seed), the item, its prompt version, the repeat and the request's
messages (`core.judge_stage.verdict_key`). A `RecordedJudge` carries the identity a run's
manifest records (`judged.<item>.judges`), so a re-score through the engine's own scoring path
finds every verdict on file under the same key; a request whose record is absent (a record
removed, an answer changed after judging) reaches `complete`, which fails at once without a
network call: the stage writes an `error` verdict whose reason is `NO_RECORD`, and the sample
has no verdict — a missing verdict, never a new one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scholarbench.core.judge_stage import judged_entry, recorded_judges
from scholarbench.core.models import Models
from scholarbench.llm.client import LLMCallError
from scholarbench.llm.usage import Usage

NO_RECORD = "no judge record on file for this request (verify replays records, asks nothing)"


@dataclass(frozen=True)
class RecordedConfig:
    """The identity fields `core.judging.JudgeIdentity.of` reads from a client's config."""
    model: str
    base_url: str | None
    temperature: float | None
    seed: int | None
    is_local: bool = False
    concurrency: int = 1

    def public(self) -> dict[str, Any]:
        return {"model": self.model, "base_url": self.base_url,
                "temperature": self.temperature, "seed": self.seed}


class RecordedJudge:
    """A chat client with a recorded judge's identity whose every call fails (module doc)."""
    json_mode = "schema"

    def __init__(self, judge: dict[str, Any]) -> None:
        self.config = RecordedConfig(str(judge.get("model")), judge.get("base_url"),
                                     judge.get("temperature"), judge.get("seed"))
        self.model_id = f"{self.config.base_url or 'openai'}|{self.config.model}"
        self.usage = Usage()

    def complete(self, messages: Any, **params: Any) -> Any:
        self.usage.add_failure()
        raise LLMCallError(NO_RECORD)


def replay_models(manifest: dict[str, Any], items: list[str]) -> tuple[Models, list[str]]:
    """Models whose judges are the recorded ones of the first of `items` the manifest names,
    asked as many times as it records; and the labels of those judges ([] and plain `Models()`
    when no item was judged by the engine's stage)."""
    for item in items:
        entry = judged_entry(manifest, item)
        if entry is None:
            continue
        judges = [RecordedJudge(j) for j in recorded_judges(entry)]
        if judges:
            return (Models.given(judges=judges, judge_samples=int(entry.get("repeats") or 1)),
                    [str(j.get("label")) for j in recorded_judges(entry)])
    return Models(), []


__all__ = ["NO_RECORD", "RecordedConfig", "RecordedJudge", "replay_models"]
