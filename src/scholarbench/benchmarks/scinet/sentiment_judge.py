"""SciNet's LLM citation-sentiment judge: the paper's appendix-C prompt
(`prompts/citation_sentiment.v1.txt`, verbatim) made into `prompts/citation_sentiment_judge.v1.txt`
with the same three changes as the other SciNet judge prompts (`judge.py`): placeholders as
`{fields}`, the data in `<title>` / `<context>` tags after one sentence saying tagged text is
quoted data, and every value put on one line with tag lookalikes defused (`judge.quote`).

The reply must be one of the three category names and nothing else (case, surrounding
whitespace, quotes, `**` and one final full stop are tolerated); anything else gets one repair
turn (`ask_json`'s, with a label hint) and is then *unscored*, with the reason.
"""
from __future__ import annotations

import hashlib
from collections import Counter
import re
from dataclasses import dataclass
from typing import Any

from scholarbench.benchmarks.scinet.judge import load_prompt, quote
from scholarbench.benchmarks.scinet.sentiment import LABELS
from scholarbench.llm.structured import ask_json

PROMPT = "citation_sentiment_judge.v1"
# The SciBERT-preprocessed SciCite / ACL-ARC sentences carry no cited title (PROVENANCE.md).
UNKNOWN_TITLE = "not given: the work cited by the citation marker in the context"
REPAIR_HINT = "Reply again with only one word: Positive, Negative or Neutral."
# `judge.quote` defuses SciNet's other tags; this prompt adds `<context>`.
_CONTEXT_LOOKALIKE = re.compile(r"<(?=\s*/?\s*context\b)", re.IGNORECASE)


def quote_value(text: object, max_chars: int) -> str:
    return _CONTEXT_LOOKALIKE.sub("&lt;", quote(text, max_chars))


def parse_label(text: str) -> str:
    """'Positive' | 'Negative' | 'Neutral' from a bare reply; ValueError otherwise."""
    body = text.strip().strip("*\"'` ").strip()
    body = body[:-1] if body.endswith(".") else body
    for label in LABELS:
        if body.lower() == label.lower():
            return label
    shown = " ".join(text.split())[:60]
    raise ValueError(f"expected one of {', '.join(LABELS)}, got {shown!r}")


@dataclass(frozen=True)
class SentimentJudgement:
    key: str
    label: str | None
    unscored: str | None
    attempts: int
    model: str
    prompt: str


class SentimentJudge:
    """Classifies citation contexts with the judge role's client (its cache, retries and usage)."""

    def __init__(self, client: Any, *, max_tokens: int = 16, max_chars: int = 2000) -> None:
        self.client, self.max_tokens, self.max_chars = client, max_tokens, max_chars
        self.prompt = load_prompt(PROMPT)
        self.model = str(getattr(client, "model_id", type(client).__name__))

    def text(self, context: str, title: str | None = None) -> str:
        return self.prompt.fill(title=quote_value(title or UNKNOWN_TITLE, self.max_chars),
                                context=quote_value(context, self.max_chars))

    def classify(self, context: str, title: str | None = None) -> SentimentJudgement:
        text = self.text(context, title)
        key = hashlib.sha256(f"{self.model}\n{self.prompt.identity()}\n{text}"
                             .encode("utf-8")).hexdigest()[:24]
        out = ask_json(self.client, [{"role": "user", "content": text}], validate=parse_label,
                       parse=lambda reply: reply, constrain=False, repair_hint=REPAIR_HINT,
                       max_tokens=self.max_tokens)
        return SentimentJudgement(key, out.value if out.ok else None, out.unscored,
                                  out.attempts, self.model, self.prompt.identity())


class JudgeLabels:
    """Citation contexts labelled by the sentiment judge instead of the cue rule, for the
    pncites ground truth (`BuildSettings(sentiment="judge")`, `run scinet --sentiment judge`):
    SciNet labelled its contexts with GPT-5 and this prompt. A context whose reply stays
    unusable gets no label (None) and is counted in `unscored`; it is left out of the gold, as
    a context that does not exist."""

    def __init__(self, judge: SentimentJudge) -> None:
        self.judge = judge
        self.labelled = 0
        self.unscored: list[str] = []

    @property
    def rule(self) -> str:
        """What made the labels, as recorded in each task's `info.sentiment_rule`."""
        return f"judge:{self.judge.prompt.identity()}@{self.judge.model}"

    def __call__(self, context: str, title: str | None = None) -> str | None:
        out = self.judge.classify(context, title)
        if out.label is None:
            self.unscored.append(out.unscored or "unscored")
        else:
            self.labelled += 1
        return out.label

    def summary(self) -> dict[str, Any]:
        """The manifest's record: the rule, contexts labelled, unscored and why."""
        return {"rule": self.rule, "labelled": self.labelled, "unscored": len(self.unscored),
                "unscored_reasons": dict(Counter(self.unscored))}

