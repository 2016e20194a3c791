"""The TaxoBench LLM-as-judge (paper §3.4, appendix B, E.3): four 1-5 scores per instance.

This module is the judge's text: its prompt, the trees it reads, the reply's schema and
validation. A run does not ask the judge from here: TaxoBench declares the request
(`judged.py`) and the engine's judge stage asks every judge (`core.judge_stage`). Only
`judge-check` asks one judge directly, once per probe (`TaxoBenchJudge`, `judge_probe.py`).

One call per instance compares the expert hierarchy with the model's, both rendered as text trees
of category labels (papers excluded, as upstream's `tree_to_text_tree`), and returns all four
scores as one JSON object (JSON schema where the server takes one), validated: the four
dimensions present, each score an integer from 1 to 5. A reply that fails gets one repair turn
(`llm.structured.ask_json`); after that the instance is *unscored* with the reason, counted and
excluded from the means. Metric keys::

    judge_coverage      Semantic Coverage & Recall         (upstream "semantic_coverage")
    judge_organization  Sibling Organization (MECE)        (upstream "sibling_organization")
    judge_logic         Hierarchical Consistency / Logic   (upstream "hierarchical_logic")
    judge_topology      Structural Topology                (upstream "structural_topology")
    judge_avg           mean of the four; null when unscored

Prompts are versioned files (``prompts/NAME.txt``; the name is the version recorded with every
result). The model tree is untrusted: it sits in a ``<model_tree>`` block after a sentence saying
it is data, and every ``<model_tree`` / ``<reference_tree`` lookalike inside either tree (any case,
spaces after ``<`` or around ``/``) has its ``<`` written ``&lt;``, so no label can close a block.
Labels are put on one line (control characters and line breaks become spaces) so a label cannot
forge tree lines either. A rendered tree longer than `max_tree_chars` is cut at a line boundary
with a note of how many categories were left out (a pathological tree cannot blow up the prompt).

A missing or malformed prediction is never sent (its judge scores are null and it is counted as
missing/malformed, like every other metric); `JudgeResult.unscored` is only for judge failures.
"""
from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from scholarbench.llm.structured import ask_json
from scholarbench.records import TaxoNode

DEFAULT_PROMPT = "taxobench_judge_v1"
PROMPT_NAMES = (DEFAULT_PROMPT,)
_FIELDS = {"reference_tree", "model_tree"}
MAX_TREE_CHARS = 60_000

# (reply key, metric key, table label, description) in the paper's order (Table 7)
DIMENSIONS: tuple[tuple[str, str, str, str], ...] = (
    ("semantic_coverage", "judge_coverage", "Cov.",
     "LLM judge, Semantic Coverage & Recall (1-5)"),
    ("sibling_organization", "judge_organization", "Org.",
     "LLM judge, Sibling Organization / MECE (1-5)"),
    ("hierarchical_logic", "judge_logic", "Log.",
     "LLM judge, Hierarchical Consistency (1-5)"),
    ("structural_topology", "judge_topology", "Topo.",
     "LLM judge, Structural Topology (1-5)"),
)
SCORE_KEYS = tuple(d[1] for d in DIMENSIONS)
JUDGE_KEYS = SCORE_KEYS + ("judge_avg",)
# their `core.measure.Measure`s: measures.JUDGE_MEASURES

LOCAL_REASONING_CHARS = 240


def reply_schema(reasoning_max_chars: int | None = None) -> dict[str, Any]:
    """The reply's JSON schema; `reasoning_max_chars` caps each reasoning string (a grammar
    bound for llama.cpp; left out by default because OpenAI's strict mode may refuse it)."""
    reasoning: dict[str, Any] = {"type": "string"}
    if reasoning_max_chars is not None:
        reasoning["maxLength"] = reasoning_max_chars
    return {"type": "object", "additionalProperties": False,
            "required": [d[0] for d in DIMENSIONS],
            "properties": {d[0]: {"type": "object", "additionalProperties": False,
                                  "required": ["score", "reasoning"],
                                  "properties": {"score": {"type": "integer",
                                                           "enum": [1, 2, 3, 4, 5]},
                                                 "reasoning": reasoning}}
                           for d in DIMENSIONS}}


REPLY_SCHEMA = reply_schema()


# ------------------------------------------------------------------------------------ prompts
@dataclass(frozen=True)
class JudgePrompt:
    name: str        # the version, recorded with every result
    system: str
    user: str
    sha256: str      # of the loaded text (comments dropped)


@lru_cache(maxsize=None)
def load_prompt(name: str = DEFAULT_PROMPT) -> JudgePrompt:
    """``prompts/NAME.txt``: leading ``%`` comment lines, then ``[system]`` and ``[user]``."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"unknown TaxoBench judge prompt {name!r}; "
                         f"known: {', '.join(PROMPT_NAMES)}")
    raw = resources.files("scholarbench.benchmarks.taxobench").joinpath(f"prompts/{name}.txt") \
        .read_text(encoding="utf-8")
    lines = raw.splitlines()
    while lines and lines[0].startswith("%"):
        lines.pop(0)
    text = "\n".join(lines)
    match = re.fullmatch(r"\[system\]\n(.*?)\n\[user\]\n(.*?)\n?", text, re.DOTALL)
    if match is None:
        raise ValueError(f"judge prompt {name}: expected a [system] then a [user] section")
    system, user = match.group(1), match.group(2)
    fields = {f for _, f, _, _ in string.Formatter().parse(user) if f is not None}
    if fields != _FIELDS or any(f for _, f, _, _ in string.Formatter().parse(system)
                                if f is not None):
        raise ValueError(f"judge prompt {name}: user placeholders {sorted(fields)}, expected "
                         f"{sorted(_FIELDS)} (and none in the system part)")
    return JudgePrompt(name, system, user, hashlib.sha256(text.encode()).hexdigest())


# ------------------------------------------------------------------------------- tree rendering
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029\s]+")
_TAG_LOOKALIKE = re.compile(r"<(?=\s*/?\s*(?:model_tree|reference_tree))", re.IGNORECASE)


def clean_label(label: str) -> str:
    """One line: runs of whitespace and control characters become one space."""
    return _CONTROL.sub(" ", label).strip() or "(unnamed)"


def render_tree(root: TaxoNode, max_chars: int = MAX_TREE_CHARS) -> str:
    """Category labels as upstream's `tree_to_text_tree` draws them (root indented by four
    spaces, children with "├── " / "└── ", papers left out); iterative, cut at `max_chars`."""
    lines: list[str] = []
    used = 0
    total = root.size()
    stack: list[tuple[TaxoNode, str, bool, bool]] = [(root, "    ", True, True)]
    while stack:
        node, prefix, last, is_root = stack.pop()
        line = prefix + ("" if is_root else ("└── " if last else "├── ")) + clean_label(node.name)
        if used + len(line) + 1 > max_chars:
            lines.append(f"    [... {total - len(lines)} more categories not shown: the tree "
                         f"exceeds {max_chars} characters]")
            break
        lines.append(line)
        used += len(line) + 1
        child_prefix = prefix if is_root else prefix + ("    " if last else "│   ")
        for i in range(len(node.children) - 1, -1, -1):
            stack.append((node.children[i], child_prefix, i == len(node.children) - 1, False))
    return "\n".join(lines)


def quote_tree(text: str) -> str:
    """`text` with every <model_tree / <reference_tree lookalike defused (its "<" → "&lt;")."""
    return _TAG_LOOKALIKE.sub("&lt;", text)


def build_messages(gold: TaxoNode, taxonomy: TaxoNode, prompt: str = DEFAULT_PROMPT,
                   max_tree_chars: int = MAX_TREE_CHARS) -> list[dict[str, str]]:
    p = load_prompt(prompt)
    user = p.user.format(reference_tree=quote_tree(render_tree(gold, max_tree_chars)),
                         model_tree=quote_tree(render_tree(taxonomy, max_tree_chars)))
    return [{"role": "system", "content": p.system}, {"role": "user", "content": user}]


# ------------------------------------------------------------------------------------ replies
def validate_reply(value: Any) -> dict[str, Any]:
    """The four scores (integers 1-5) and reasonings; ValueError naming what is wrong."""
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object with {', '.join(d[0] for d in DIMENSIONS)}, "
                         f"got {type(value).__name__}")
    missing = [d[0] for d in DIMENSIONS if d[0] not in value]
    if missing:
        raise ValueError(f"missing dimension(s) {', '.join(missing)}")
    scores: dict[str, int] = {}
    reasoning: dict[str, str] = {}
    problems = []
    for reply_key, metric_key, _, _ in DIMENSIONS:
        entry = value[reply_key]
        if not isinstance(entry, dict) or "score" not in entry:
            problems.append(f"{reply_key} must be an object with an integer \"score\"")
            continue
        score = entry["score"]
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            problems.append(f"{reply_key}.score is {score!r}, not an integer from 1 to 5")
            continue
        scores[metric_key] = score
        text = entry.get("reasoning")
        reasoning[reply_key] = text if isinstance(text, str) else ""
    if problems:
        raise ValueError("; ".join(problems))
    return {"scores": scores, "reasoning": reasoning}


@dataclass(frozen=True)
class JudgeResult:
    """One instance's judgement. All scores None when unscored or not judged."""
    scores: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(SCORE_KEYS))
    unscored: str | None = None     # why the judge gave no usable scores; None otherwise
    attempts: int = 0               # model calls made (0: not judged)
    reasoning: dict[str, str] = field(default_factory=dict)
    prompt: str = DEFAULT_PROMPT

    @property
    def avg(self) -> float | None:
        values = [self.scores.get(k) for k in SCORE_KEYS]
        if any(v is None for v in values):
            return None
        return sum(values) / len(values)  # type: ignore[arg-type]

    def row(self) -> dict[str, Any]:
        """The metric keys for scores.jsonl, plus `judge_unscored` (reason or null)."""
        return {**{k: self.scores.get(k) for k in SCORE_KEYS}, "judge_avg": self.avg,
                "judge_unscored": self.unscored}


NOT_JUDGED = JudgeResult()


class TaxoBenchJudge:
    """One judge asked once about one tree (`judge-check`'s probes; a run asks through the
    engine's judge stage, `judged.py`)."""

    def __init__(self, client: Any, *, prompt: str = DEFAULT_PROMPT,
                 max_tokens: int | None = None, max_tree_chars: int = MAX_TREE_CHARS,
                 reasoning_max_chars: int | None | str = "auto") -> None:
        """`reasoning_max_chars="auto"`: LOCAL_REASONING_CHARS for the packaged local model
        (which otherwise loops inside the first reasoning string until max_tokens cuts the
        JSON), no cap for any other model."""
        load_prompt(prompt)   # fail early on an unknown or broken prompt
        self.client = client
        self.prompt = prompt
        self.max_tokens = max_tokens
        self.max_tree_chars = max_tree_chars
        if reasoning_max_chars == "auto":
            config = getattr(client, "config", None)
            reasoning_max_chars = (LOCAL_REASONING_CHARS
                                   if config is not None and config.is_local else None)
        self.reasoning_max_chars = reasoning_max_chars
        self.schema = reply_schema(reasoning_max_chars)

    def info(self) -> dict[str, Any]:
        """What this judge is: its prompt and model, as a report names it."""
        return {"prompt": self.prompt, "prompt_sha256": load_prompt(self.prompt).sha256,
                "model_id": getattr(self.client, "model_id", None),
                "max_tokens": self.max_tokens, "max_tree_chars": self.max_tree_chars,
                "reasoning_max_chars": self.reasoning_max_chars, "repairs": 1}

    def judge(self, gold: TaxoNode, taxonomy: TaxoNode) -> JudgeResult:
        messages = build_messages(gold, taxonomy, self.prompt, self.max_tree_chars)
        sampling = {"max_tokens": self.max_tokens} if self.max_tokens is not None else {}
        outcome = ask_json(self.client, messages, validate=validate_reply, schema=self.schema,
                           name="taxonomy_judgement", repairs=1, **sampling)
        if not outcome.ok:
            return JudgeResult(unscored=outcome.unscored, attempts=outcome.attempts,
                               prompt=self.prompt)
        return JudgeResult(scores=dict(outcome.value["scores"]), attempts=outcome.attempts,
                           reasoning=outcome.value["reasoning"], prompt=self.prompt)


def as_judge(judge: Any) -> TaxoBenchJudge | None:
    """A `TaxoBenchJudge` from one, or from a bare chat client (default prompt); None passes."""
    if judge is None or isinstance(judge, TaxoBenchJudge):
        return judge
    return TaxoBenchJudge(judge)


# ------------------------------------------------------------------------------------ summary
def format_judge_summary(summary: dict[str, Any]) -> str:
    """Lines for the terminal: each judge mean with its counts; "" when the run was not judged."""
    metrics = summary.get("metrics", {})
    if "judge_avg" not in metrics:
        return ""
    judge = summary.get("judge") or {}
    lines = [f"  LLM judge ({judge.get('prompt', '?')}, {judge.get('model_id', '?')}):"]
    for key in JUDGE_KEYS:
        m = metrics[key]
        value = "—" if m["mean"] is None else f"{m['mean']:.2f}"
        notes = []
        if m["n_unscored"]:
            notes.append(f"{m['n_unscored']} unscored")
        other = m["n_null"] - m["n_unscored"]
        if other:
            notes.append(f"{other} without a prediction to judge")
        note = f"  (n={m['n']}; {', '.join(notes)}, excluded)" if notes else f"  (n={m['n']})"
        lines.append(f"  {key:<18} {value:>6}{note}")
    return "\n".join(lines)


__all__ = ["DEFAULT_PROMPT", "DIMENSIONS", "JUDGE_KEYS", "JudgePrompt", "LOCAL_REASONING_CHARS",
           "JudgeResult", "NOT_JUDGED", "PROMPT_NAMES", "REPLY_SCHEMA",
           "reply_schema", "SCORE_KEYS",
           "TaxoBenchJudge", "as_judge", "build_messages", "clean_label",
           "format_judge_summary", "load_prompt", "quote_tree", "render_tree", "validate_reply"]
