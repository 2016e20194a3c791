"""SciNet's LLM-judged metrics: `novelty_llm`, `disruption_llm` (ego) and
`path_rationality_llm` (path), through the judge role (never the agent's model by default).

Prompts (`prompts/*_judge.v1.txt`, package data; identity = name@sha256 prefix, recorded in the
manifest) are the paper's appendix-C prompts (`prompts/{novelty,disruption,path_rationality}
.v1.txt`, verbatim) with three changes only: the bracketed placeholders become `{fields}`; the
data is wrapped in tags (`<title>`, `<abstract>`, `<request>`, `<paper>`) preceded by one
sentence saying the tagged text is quoted data, never instructions; the "(or: [No abstract
provided…])" alternative is filled in when a paper has no abstract (every arxiv-2023 paper). Every
value placed in a prompt is put on one line (control characters and line breaks to spaces, cut
at `max_chars`) and every lookalike of a quoting tag in it has its `<` written `&lt;`, so an
answer item or a title cannot close its block or forge a prompt line.

- `novelty_llm` / `disruption_llm` (ego tasks of kind novel / disruptive): the judge rates each
  distinct in-graph returned paper (the first `K` = 50 answer items, as every SciNet metric) on
  its own — title, and abstract where the environment has one; the task's value is the mean
  score (0–10) of the papers the judge scored. A paper is judged once per run (its judgement is
  reused by every task that returns it).
- `path_rationality_llm` (path tasks): one judgement of the returned list as a path, in the
  order returned (the first `K` items, repeats dropped): in-graph items as their graph title and
  year, other items as their own text marked "(not a paper of the collection)". The task's
  query is the "Original Request".

Rules: the reply must be one JSON object `{"score": integer 0..10, "reasoning": string}` and
nothing else (`ask_json`: strict parse, one repair turn naming the problem). Still unusable, or
the call failed after the client's retries → that item is *unscored*: excluded, counted per task
(`<metric>_unscored`) and in the summary with its reason code (`invalid_json`, `wrong_shape`,
`call_failed`); a task whose every judged item is unscored scores null (counted in `n_null`).
An empty or missing answer, or an ego answer with no paper of the graph, scores 0 without a
call (the agent's failure, as for the deterministic metrics).

This module holds the prompts, their texts and the reply's check; the requests are the engine's
judged items (`judged.py`: the engine's judge stage asks every judge of the panel K times and
keeps the verdicts), and `panel.py` turns the verdicts into a row's columns.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

from scholarbench.llm.prompts import Prompt, load_package_prompt
from scholarbench.benchmarks.scinet.env import SciNetEnv
from scholarbench.benchmarks.scinet.records import SciNetTask

PROMPTS = {"novelty_llm": "novelty_judge.v1", "disruption_llm": "disruption_judge.v1",
           "path_rationality_llm": "path_rationality_judge.v1"}
NO_ABSTRACT = "No abstract provided. Please evaluate based on the title alone."
SCORE_SCHEMA = {"type": "object", "additionalProperties": False,
                "required": ["score", "reasoning"],
                "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 10},
                               "reasoning": {"type": "string"}}}
QUOTE_TAGS = ("title", "abstract", "request", "paper")
_LOOKALIKE = re.compile(r"<(?=\s*/?\s*(?:" + "|".join(QUOTE_TAGS) + r")\b)", re.IGNORECASE)
NOT_IN_GRAPH = "(not a paper of the collection)"


# SciNet's own prompts verbatim (`Evaluation/task1-novelty-llm.py`, `task1-disruptive-llm.py`,
# `task3-path-llm.py` @ ed5c76f): a system and a user message, data pasted raw, temperature 0.2.
PROMPT_SETS = ("v1", "upstream")
UPSTREAM_NO_ABSTRACT = "[No abstract provided. Please evaluate based on the title alone.]"
UPSTREAM_NOT_FOUND = "[Details not found in DB]"
UPSTREAM_TEMPERATURE = 0.2


def load_prompt(name: str) -> Prompt:
    return load_package_prompt("scholarbench.benchmarks.scinet", name)


def upstream_prompts(metric: str) -> tuple[Prompt, Prompt]:
    """(system, user) of upstream's prompt for an LLM metric."""
    base = PROMPTS[metric].removesuffix(".v1")
    return (load_package_prompt("scholarbench.benchmarks.scinet", f"{base}_upstream_system"),
            load_package_prompt("scholarbench.benchmarks.scinet", f"{base}_upstream_user"))


def quote(text: object, max_chars: int = 2000) -> str:
    """One line, tag lookalikes defused, at most `max_chars` characters."""
    flat = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", str(text)).split())
    if len(flat) > max_chars:
        flat = flat[:max_chars].rstrip() + " …"
    return _LOOKALIKE.sub("&lt;", flat)


def validate_score(value: Any) -> dict[str, Any]:
    """{"score": int 0..10, "reasoning": str}, nothing else; ValueError naming the problem."""
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    extra = sorted(set(value) - {"score", "reasoning"})
    if extra:
        raise ValueError(f"unexpected key(s) {extra}; only 'score' and 'reasoning'")
    score = value.get("score")
    if isinstance(score, bool) or not isinstance(score, int):
        raise ValueError("'score' must be an integer from 0 to 10")
    if not 0 <= score <= 10:
        raise ValueError(f"'score' {score} is outside 0..10")
    if not isinstance(value.get("reasoning"), str):
        raise ValueError("'reasoning' must be a string")
    return {"score": score, "reasoning": value["reasoning"]}


def reason_code(unscored: str) -> str:
    if unscored.startswith("call failed"):
        return "call_failed"
    return "invalid_json" if "not valid JSON" in unscored else "wrong_shape"


class JudgePrompts:
    """The judge's prompts under a prompt set ("v1": ours, one user message with quoted data;
    "upstream": SciNet's system and user messages verbatim, pasted raw, temperature 0.2) and
    the request texts they make."""

    def __init__(self, prompt_set: str = "v1", max_chars: int = 2000) -> None:
        if prompt_set not in PROMPT_SETS:
            raise ValueError(f"judge prompt must be one of {PROMPT_SETS}, got {prompt_set!r}")
        self.prompt_set, self.max_chars = prompt_set, max_chars
        self.prompts = {m: load_prompt(n) for m, n in PROMPTS.items()}
        self.systems: dict[str, Prompt] = {}
        if prompt_set == "upstream":
            for m in PROMPTS:
                self.systems[m], self.prompts[m] = upstream_prompts(m)

    def prompt_id(self, metric: str) -> str:
        user = self.prompts[metric].identity()
        return f"{self.systems[metric].identity()}+{user}" if metric in self.systems else user

    @property
    def temperature(self) -> float | None:
        """Upstream's sampling temperature with its prompts; None: the judge's own."""
        return UPSTREAM_TEMPERATURE if self.systems else None

    def messages(self, metric: str, text: str) -> tuple[dict[str, str], ...]:
        """The request's messages: ours one user message; upstream's a system and a user one."""
        if metric in self.systems:
            return ({"role": "system", "content": self.systems[metric].text},
                    {"role": "user", "content": text})
        return ({"role": "user", "content": text},)

    def paper_text(self, metric: str, paper_id: str, env: SciNetEnv) -> str:
        abstract = (getattr(env, "abstracts", None) or {}).get(paper_id, "")
        if self.systems:            # upstream's: pasted raw
            return self.prompts[metric].fill(title=env.title(paper_id),
                                             abstract=abstract or UPSTREAM_NO_ABSTRACT)
        abstract = (f"<abstract>{quote(abstract, self.max_chars)}</abstract>"
                    if abstract and abstract.strip() else NO_ABSTRACT)
        return self.prompts[metric].fill(title=quote(env.title(paper_id), self.max_chars),
                                         abstract=abstract)

    def path_text(self, task: SciNetTask, items: Sequence[str], env: SciNetEnv) -> str:
        if self.systems:            # upstream's `### Paper i:` blocks, pasted raw
            blocks = []
            for n, item in enumerate(items, start=1):
                gid = env.resolve(item)
                title, abstract = ((env.title(gid), (getattr(env, "abstracts", None) or {})
                                    .get(gid, "")) if gid is not None
                                   else (str(item), UPSTREAM_NOT_FOUND))
                blocks.append(f"### Paper {n}:\n**Title**: {title}\n**Abstract**: {abstract}\n\n")
            return self.prompts["path_rationality_llm"].fill(query=task.query,
                                                             papers="".join(blocks))
        lines = []
        for n, item in enumerate(items, start=1):
            gid = env.resolve(item)
            if gid is not None:
                year = env.year(gid)
                lines.append(f"{n}. <paper>{quote(env.title(gid), self.max_chars)}</paper>"
                             + (f" ({year})" if year else ""))
            else:
                lines.append(f"{n}. <paper>{quote(item, self.max_chars)}</paper> {NOT_IN_GRAPH}")
        return self.prompts["path_rationality_llm"].fill(query=quote(task.query, self.max_chars),
                                                         papers="\n".join(lines))


def ego_metric(task: SciNetTask) -> str:
    """The judged measure of an ego task: novelty for kind novel, else disruption."""
    return "novelty_llm" if task.kind == "novel" else "disruption_llm"


def ego_subjects(papers: Sequence[Any], env: Any, first: int, k: int) -> list[str]:
    """The papers an ego answer has judged: the distinct in-graph ones among its first
    `first` items, at most `k` (one request each: `judged.ego_item`)."""
    ids: list[str] = []
    for item in list(papers)[:first]:
        gid = env.resolve(item)
        if gid is not None and gid not in ids:
            ids.append(gid)
    return ids[:k]


def path_items(papers: Sequence[Any] | None, env: Any, first: int) -> list[str]:
    """The items a path answer has judged, in its order: the first `first`, repeats dropped
    (an in-graph item as its graph id, another as its own text)."""
    items: list[str] = []
    seen: set[str] = set()
    for item in list(papers or [])[:first]:
        gid = env.resolve(item)
        key = gid if gid is not None else f"?{item!r}"
        if key not in seen:
            seen.add(key)
            items.append(str(item) if gid is None else gid)
    return items


def judge_counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Summary counts of the judge: items scored / unscored and reasons, per LLM metric."""
    out: dict[str, Any] = {}
    for metric in PROMPTS:
        present = [r for r in rows if metric in r]
        if not present:
            continue
        reasons = Counter(c for r in present for c in r.get(f"{metric}_unscored_reasons", []))
        out[metric] = {"judged": sum(r.get(f"{metric}_judged", 0) for r in present),
                       "unscored": sum(r.get(f"{metric}_unscored", 0) for r in present),
                       "tasks_null": sum(1 for r in present if r[metric] is None),
                       "reasons": dict(sorted(reasons.items()))}
    return out
