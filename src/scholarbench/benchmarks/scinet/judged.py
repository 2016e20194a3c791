"""What SciNet asks the engine's judge stage (`core.judge_stage`; docs/scinet.md).

Three `JudgedItem`s, one per judged thing, each in its own file `judge.<item>.jsonl`:

- `ego`: one request per distinct in-graph paper among the first items of an ego answer
  (subject: the paper id; `judge.ego_subjects`), rated for novelty (kind novel) or disruption.
  The same paper returned by two tasks is the same request: asked once per run;
- `path`: one request per path answer with an item (subject "answer"), the list as a path;
- `review`: one request per usable review (subject "answer"), its five dimensions.

Each item's version names the prompt set and every prompt's name and text hash
(`judge.JudgePrompts.prompt_id`), so a changed prompt asks again. The reply is checked by the
existing strict validators (`judge.validate_score`, `review_judge.validate_review_scores`);
`ask` sends it with the judge's `max_tokens` and, under upstream's prompts, their temperature.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from scholarbench.benchmarks.scinet.judge import (PROMPT_SETS, SCORE_SCHEMA, JudgePrompts,
                                                  ego_metric, ego_subjects, load_prompt,
                                                  path_items, validate_score)
from scholarbench.benchmarks.scinet.review_judge import (PROMPT, REVIEW_SCHEMA, review_text,
                                                         validate_review_scores)
from scholarbench.benchmarks.scinet.measures import K
from scholarbench.benchmarks.scinet.review_scoring import review_of
from scholarbench.benchmarks.scinet.scoring import answer_of
from scholarbench.benchmarks.scinet.upstream import TOP
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.structured import JsonOutcome, ask_json

EGO, PATH, REVIEW = "ego", "path", "review"
ANSWER = "answer"                       # the subject of a path or review request
MAX_TOKENS = {EGO: 512, PATH: 512, REVIEW: 768}


@dataclass(frozen=True)
class Rules:
    """The scoring rules the judge reads an answer under: its first `first` items, at most `k`
    ego papers, `empty` the value of an answer with nothing to judge (0: the agent's failure;
    upstream's scripts: null, left out), and the prompt set."""
    first: int
    k: int
    empty: float | None
    prompts: JudgePrompts


def asker(validate: Callable[[Any], Any], schema: dict[str, Any], name: str, max_tokens: int,
          temperature: float | None) -> Callable[[Any, JudgeRequest, int | None], JsonOutcome]:
    """The item's `ask`: `ask_json` with the judge's max_tokens (and upstream's temperature)."""
    sampling: dict[str, Any] = {"max_tokens": max_tokens}
    if temperature is not None:
        sampling["temperature"] = temperature

    def ask(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
        return ask_json(client, list(request.messages), validate=validate, schema=schema,
                        name=name, seed=seed, **sampling)
    return ask


def _ok(record: dict[str, Any] | None) -> bool:
    """A line whose answer is judged: any but an agent's failure (`error`)."""
    return answer_of(record)[1] != "error"


def ego_item(rules: Rules, env: Callable[[], Any]) -> JudgedItem:
    """Novelty / disruption of each paper of an ego answer (`env()`: the graph, opened when
    the first request is built)."""
    p = rules.prompts

    def requests(sample: Any, record: dict[str, Any] | None) -> tuple[JudgeRequest, ...]:
        task = sample.gold
        if task.family != "ego" or not _ok(record):
            return ()
        metric, graph = ego_metric(task), env()
        return tuple(JudgeRequest(gid, p.messages(metric, p.paper_text(metric, gid, graph)))
                     for gid in ego_subjects(answer_of(record)[0] or [], graph, rules.first,
                                             rules.k))

    def bound(sample: Any) -> int:
        return rules.k if sample.gold.family == "ego" else 0

    version = "+".join(p.prompt_id(m) for m in ("novelty_llm", "disruption_llm"))
    return JudgedItem(EGO, f"{p.prompt_set}:{version}", requests, validate_score,
                      schema=SCORE_SCHEMA, per_sample=None, bound=bound,
                      basis=f"novelty/disruption_llm: 1 per distinct in-graph paper in the "
                      f"first {rules.k} of each ego answer and measure, once per run (+1 "
                      "repair per unusable reply)",
                      ask=asker(validate_score, SCORE_SCHEMA, "score", MAX_TOKENS[EGO],
                                p.temperature))


def path_item(rules: Rules, env: Callable[[], Any]) -> JudgedItem:
    """The rationality of each path answer with an item, judged as a path."""
    p, metric = rules.prompts, "path_rationality_llm"

    def requests(sample: Any, record: dict[str, Any] | None) -> tuple[JudgeRequest, ...]:
        task = sample.gold
        if task.family != "path" or not _ok(record):
            return ()
        graph = env()
        items = path_items(answer_of(record)[0], graph, rules.first)
        if not items:
            return ()
        return (JudgeRequest(ANSWER, p.messages(metric, p.path_text(task, items, graph))),)

    return JudgedItem(PATH, f"{p.prompt_set}:{p.prompt_id(metric)}", requests, validate_score,
                      schema=SCORE_SCHEMA,
                      ask=asker(validate_score, SCORE_SCHEMA, "score", MAX_TOKENS[PATH],
                                p.temperature))


def review_item() -> JudgedItem:
    """The five dimensions of each usable review, from one request."""
    def requests(sample: Any, record: dict[str, Any] | None) -> tuple[JudgeRequest, ...]:
        review, _ = review_of(record)
        if review is None:
            return ()
        return (JudgeRequest(ANSWER, ({"role": "user",
                                       "content": review_text(sample.gold, review)},)),)

    return JudgedItem(REVIEW, load_prompt(PROMPT).identity(), requests,
                      validate_review_scores, schema=REVIEW_SCHEMA,
                      ask=asker(validate_review_scores, REVIEW_SCHEMA, "review_scores",
                                MAX_TOKENS[REVIEW], None))


def rules_of(bench: Any) -> Rules:
    """The judge's rules under the benchmark's scoring rules (upstream's scripts judge the
    first 5 items and leave an empty answer out) and `--judge-prompt`."""
    prompts = bench.options.get("judge_prompt") or "v1"
    if prompts not in PROMPT_SETS:
        raise ScholarbenchError(f"unknown judge prompt set {prompts!r}; use v1 or upstream")
    if bench.variant == "upstream":
        return Rules(TOP, min(bench.judge_k, TOP), None, JudgePrompts(prompts))
    return Rules(K, bench.judge_k, 0.0, JudgePrompts(prompts))


def items_for(bench: Any, mode: str | None) -> tuple[JudgedItem, ...]:
    """The judged items of a sub-task (None: an answers file of every family: ego and path);
    the pair tasks have none."""
    if mode == REVIEW:
        return (review_item(),)
    rules = rules_of(bench)
    made = {EGO: lambda: ego_item(rules, bench.env), PATH: lambda: path_item(rules, bench.env)}
    return tuple(make() for name, make in made.items() if mode in (None, name))


__all__ = ["ANSWER", "EGO", "PATH", "REVIEW", "Rules", "asker", "ego_item", "items_for",
           "path_item", "review_item", "rules_of"]
