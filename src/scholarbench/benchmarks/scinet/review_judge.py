"""The judge of SciNet's review sub-task (paper §6): one call scores a review on the paper's five
dimensions — Relevance, Completeness, Depth, Logical Consistency, Usefulness — each 1–10.

The paper names the dimensions and the scale ("Each generated report was evaluated along five
dimensions: Relevance, Completeness, Depth, Logical Consistency, and Usefulness. Scores were
assigned on a scale of 1–10, and aggregated averages across queries were computed for each
method") but publishes no judge prompt (appendix C has the survey-writing prompt only), so
`prompts/review_judge.v1.txt` is ours: the five dimensions and the 1–10 scale as the paper
words them, one line per dimension built from the paper's own description of what the surveys
were asked to do (the prompt template's "relevance, completeness, depth, logical flow, and
overall usefulness"; "key technical developments, major milestones, and method evolution"),
and the JSON reply format of the paper's other judge prompts.

The review is quoted data: inside `<review>` … `</review>`, its line breaks kept, control
characters made spaces, every lookalike of a quoting tag (`<review>`, `</review >`, `<title>`,
`<request>`, any case) with its `<` written `&lt;`, and cut at `max_chars`; the request and the
two titles one line each (`judge.quote`). So a review cannot close its block or write a line
of the prompt.

Reply: one JSON object `{"relevance", "completeness", "depth", "logical_consistency",
"usefulness": integer 1..10, "reasoning": string}`, nothing else; a missing dimension, one
out of range or not an integer, gets the repair turn naming it (`llm.structured.ask_json`),
then the review is *unscored* (every dimension null, reason counted). The engine's judge stage
asks it (`judged.review_item`) and keeps the verdicts in judge.review.jsonl.
"""
from __future__ import annotations

import re
from typing import Any

from scholarbench.benchmarks.scinet.judge import load_prompt, quote, reason_code

DIMENSIONS = ("relevance", "completeness", "depth", "logical_consistency", "usefulness")
METRIC = {d: f"review_{d}" for d in DIMENSIONS}      # the score rows' columns
REVIEW_METRICS = tuple(METRIC.values())
PROMPT = "review_judge.v1"
SCALE = (1, 10)
MAX_REVIEW_CHARS = 40_000
REVIEW_SCHEMA = {"type": "object", "additionalProperties": False,
                 "required": [*DIMENSIONS, "reasoning"],
                 "properties": {**{d: {"type": "integer", "minimum": SCALE[0],
                                       "maximum": SCALE[1]} for d in DIMENSIONS},
                                "reasoning": {"type": "string"}}}
_TAGS = ("review", "request", "title")
_LOOKALIKE = re.compile(r"<(?=\s*/?\s*(?:" + "|".join(_TAGS) + r")\b)", re.IGNORECASE)


def quote_block(text: str, max_chars: int = MAX_REVIEW_CHARS) -> str:
    """A multi-line text as quoted data: line breaks kept (\\r\\n and \\r as \\n), other
    control characters as spaces, tag lookalikes defused, at most `max_chars` characters."""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", " ", text).strip("\n")
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + " …[cut]"
    return _LOOKALIKE.sub("&lt;", text)


def validate_review_scores(value: Any) -> dict[str, Any]:
    """{"score": {dimension: int 1..10}, "reasoning": str} from the reply; ValueError naming
    the first problem (a missing or extra key, a value that is no integer or out of range)."""
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    extra = sorted(set(value) - {*DIMENSIONS, "reasoning"})
    if extra:
        raise ValueError(f"unexpected key(s) {extra}; only {', '.join(DIMENSIONS)} and "
                         "'reasoning'")
    scores = {}
    for d in DIMENSIONS:
        if d not in value:
            raise ValueError(f"missing the score '{d}'")
        v = value[d]
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"'{d}' must be an integer from {SCALE[0]} to {SCALE[1]}")
        if not SCALE[0] <= v <= SCALE[1]:
            raise ValueError(f"'{d}' {v} is outside {SCALE[0]}..{SCALE[1]}")
        scores[d] = v
    if not isinstance(value.get("reasoning"), str):
        raise ValueError("'reasoning' must be a string")
    return {"score": scores, "reasoning": value["reasoning"]}


def review_text(task: Any, review: str, max_chars: int = 2000,
                max_review_chars: int = MAX_REVIEW_CHARS) -> str:
    """The judge's request about one review (the module doc's quoting)."""
    return load_prompt(PROMPT).fill(
        query=quote(task.query, max_chars), start_title=quote(task.start.title, max_chars),
        end_title=quote(task.end.title, max_chars),
        review=quote_block(review, max_review_chars))


def review_part(verdict: Any, reason: str | None) -> dict[str, Any]:
    """One judge's five dimensions of one review, asked once, with their counts (`verdict`
    None: unscored, `reason` saying why)."""
    ok = isinstance(verdict, dict) and isinstance(verdict.get("score"), dict)
    out: dict[str, Any] = {}
    for d, key in METRIC.items():
        out[key] = verdict["score"][d] if ok else None
        out[f"{key}_judged"] = 1 if ok else 0
        out[f"{key}_unscored"] = 0 if ok else 1
        out[f"{key}_unscored_reasons"] = [] if ok else [reason_code(reason or "")]
    return out
