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

Repeats (`--judge-samples`): `score(..., sample=r)` asks again with seed `seed + r` (a distinct
request, reply-cache key and judgement key); repeat 0 is the lone judge's request. Several
judges and repeats are combined by `panel.py`.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from scholarbench.llm.prompts import Prompt, load_package_prompt
from scholarbench.llm.structured import ask_json
from scholarbench.benchmarks.scinet.env import SciNetEnv
from scholarbench.benchmarks.scinet.metrics import K
from scholarbench.benchmarks.scinet.records import SciNetTask
from scholarbench.metrics.judge_panel import repeat_seed

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


@dataclass
class Judgement:
    key: str
    metric: str
    subject: str                 # paper id (ego) or task id (path)
    score: int | None
    reasoning: str | None
    unscored: str | None
    attempts: int
    model: str
    prompt: str
    sample: int = 0              # the repeat (`--judge-samples`): 0 is the only one by default

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class SciNetJudge:
    """The judge of one run. `store` (a `judge.jsonl` path) keeps every judgement; scored ones
    made by the same model and prompt are reused on the next scoring (no request). A subclass
    judging something else (`review_judge.ReviewJudge`) sets the prompts and the reply's
    schema and check below."""
    PROMPT_NAMES: dict[str, str] = PROMPTS
    REPLY_SCHEMA: dict[str, Any] = SCORE_SCHEMA
    REPLY_NAME = "score"

    @staticmethod
    def validate_reply(value: Any) -> dict[str, Any]:
        return validate_score(value)

    def __init__(self, client: Any, *, k: int = K, max_tokens: int = 512,
                 max_chars: int = 2000, store: str | Path | None = None, first: int = K,
                 empty_value: float | None = 0.0, prompt_set: str = "v1") -> None:
        """`first`: answer items read (upstream's scripts: 5); `empty_value`: the value of an
        answer with nothing to judge (0: the agent's failure; upstream: null, left out);
        `prompt_set` "upstream": SciNet's prompts verbatim (system + user, temperature 0.2)."""
        if prompt_set not in PROMPT_SETS:
            raise ValueError(f"judge prompt must be one of {PROMPT_SETS}, got {prompt_set!r}")
        self.prompt_set = prompt_set
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"judge k must be an integer >= 1, got {k!r}")
        self.client, self.k, self.max_tokens, self.max_chars = client, k, max_tokens, max_chars
        self.first, self.empty_value = first, empty_value
        self.prompts = {m: load_prompt(n) for m, n in self.PROMPT_NAMES.items()}
        self.systems: dict[str, Prompt] = {}
        if prompt_set == "upstream":
            for m in PROMPTS:
                self.systems[m], self.prompts[m] = upstream_prompts(m)
        self.model = str(getattr(client, "model_id", type(client).__name__))
        self.store = Path(store) if store else None
        self.done: dict[str, Judgement] = {}
        self.asked = 0                       # judgements asked of the model in this run
        if self.store is not None and self.store.exists():
            for line in self.store.read_text(encoding="utf-8").splitlines():
                try:
                    j = Judgement(**json.loads(line))
                except (ValueError, TypeError):
                    continue                 # a torn or foreign line: judged again
                if j.unscored is None and j.model == self.model and j.metric in self.prompts \
                        and j.prompt == self.prompt_id(j.metric):
                    self.done[j.key] = j

    def identity(self) -> dict[str, Any]:
        return {"model_id": self.model, "k": self.k, "first": self.first,
                "max_tokens": self.max_tokens,
                "scale": "integer 0..10",
                "prompts": {m: self.prompt_id(m) for m in self.prompts}}

    def prompt_id(self, metric: str) -> str:
        user = self.prompts[metric].identity()
        return f"{self.systems[metric].identity()}+{user}" if metric in self.systems else user

    def messages(self, metric: str, text: str) -> list[dict[str, str]]:
        """The request's messages: ours one user message; upstream's a system and a user one."""
        if metric in self.systems:
            return [{"role": "system", "content": self.systems[metric].text},
                    {"role": "user", "content": text}]
        return [{"role": "user", "content": text}]

    # ---- one judgement -------------------------------------------------------------------
    def temperature(self) -> float | None:
        """The judge's sampling temperature (upstream's prompts: theirs, 0.2)."""
        if self.systems:
            return UPSTREAM_TEMPERATURE
        return getattr(getattr(self.client, "config", None), "temperature", None)

    def seed(self, sample: int = 0) -> int | None:
        """Repeat `sample`'s seed: the configured seed (0 when none) + `sample`, so every
        repeat is a distinct request (and reply-cache key); repeat 0 asks as a lone judge."""
        return repeat_seed(self.client, sample)

    def _judge(self, metric: str, subject: str, text: str, sample: int = 0) -> Judgement:
        prompt_id = self.prompt_id(metric)
        repeat = f"\n#{sample}" if sample else ""
        key = hashlib.sha256(f"{metric}\n{self.model}\n{prompt_id}\n{text}{repeat}"
                             .encode("utf-8")).hexdigest()[:24]
        if key in self.done:
            return self.done[key]
        self.asked += 1
        sampling: dict[str, Any] = ({"temperature": UPSTREAM_TEMPERATURE} if self.systems
                                    else {})
        if sample:
            sampling["seed"] = self.seed(sample)
        out = ask_json(self.client, self.messages(metric, text), validate=self.validate_reply,
                       schema=self.REPLY_SCHEMA, name=self.REPLY_NAME,
                       max_tokens=self.max_tokens, **sampling)
        j = Judgement(key, metric, subject,
                      out.value["score"] if out.ok else None,
                      out.value["reasoning"] if out.ok else None,
                      out.unscored, out.attempts, self.model, prompt_id, sample)
        self.done[key] = j
        return j

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

    # ---- one task ------------------------------------------------------------------------
    def score(self, task: SciNetTask, papers: Sequence[Any] | None, env: SciNetEnv,
              sample: int = 0) -> dict[str, Any]:
        """The task's LLM metric with its counts ({} for pair tasks); `sample`: the repeat."""
        papers = [] if papers is None else list(papers)
        if task.family == "ego":
            metric = ego_metric(task)
            ids = ego_subjects(papers, env, self.first, self.k)
            js = [self._judge(metric, gid, self.paper_text(metric, gid, env), sample)
                  for gid in ids]
        elif task.family == "path":
            metric = "path_rationality_llm"
            items: list[str] = []
            seen: set[str] = set()
            for item in papers[:self.first]:
                gid = env.resolve(item)
                key = gid if gid is not None else f"?{item!r}"
                if key not in seen:
                    seen.add(key)
                    items.append(str(item) if gid is None else gid)
            js = ([self._judge(metric, task.task_id, self.path_text(task, items, env), sample)]
                  if items else [])
        else:
            return {}
        scored = [j.score for j in js if j.score is not None]
        unscored = [j for j in js if j.score is None]
        value = (sum(scored) / len(scored) if scored else None) if js else self.empty_value
        return {metric: value, f"{metric}_judged": len(scored),
                f"{metric}_unscored": len(unscored),
                f"{metric}_unscored_reasons": [reason_code(j.unscored or "") for j in unscored]}

    def save(self) -> None:
        if self.store is None:
            return
        tmp = self.store.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for j in self.done.values():
                handle.write(json.dumps(j.as_json()) + "\n")
        tmp.replace(self.store)


def ego_metric(task: SciNetTask) -> str:
    """The judged measure of an ego task: novelty for kind novel, else disruption."""
    return "novelty_llm" if task.kind == "novel" else "disruption_llm"


def ego_subjects(papers: Sequence[Any], env: Any, first: int, k: int) -> list[str]:
    """The papers an ego answer has judged: the distinct in-graph ones among its first
    `first` items, at most `k` (what `SciNetJudge.score` asks and the dry run counts)."""
    ids: list[str] = []
    for item in list(papers)[:first]:
        gid = env.resolve(item)
        if gid is not None and gid not in ids:
            ids.append(gid)
    return ids[:k]


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
