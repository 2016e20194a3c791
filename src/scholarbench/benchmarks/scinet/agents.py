"""SciNet agents: `scinet/embedding`, `scinet/bm25` (semantic baselines over the graph's titles)
and `scinet/relation-aware` (graph tools). An agent gets a task WITHOUT its ground truth and a
`SciNetContext`, and returns a ranked list of graph ids.

- embedding: MiniLM (all-MiniLM-L6-v2) embeddings of every title in an exact faiss inner-product
  index (`corpus.dense.DenseIndex`); the query text is embedded; the top `k` titles.
- bm25: BM25 (bm25s, `corpus.bm25.BM25Index`) over titles; the query text; the top `k`.
  Both return `k` = 50 papers for ego and pair tasks and `path_k` = 6 for path tasks (the
  ground-truth paths have at most 6 papers; precision-type metrics punish longer lists).
- relation-aware, one graph tool per family:
  ego: the field's graph category (the code in the field name, else the category whose name
  the field matches, else the majority category of the field's 200 best BM25 hits), ranked by
  the scientometric measure (novelty ascending, disruption descending; undefined last);
  pncites: the query paper's citers, those with a Positive citation context first, then by
  citation count; cooccur: papers co-mentioned with it in a paragraph first (by paragraphs),
  then its co-cited papers by co-citation count; path: the most influential citation path
  between the two endpoints (`PathFinder`, at most `max_papers` papers), endpoints resolved by
  id or exact title; no path found -> the two endpoints.
  The query paper is resolved from `task.source` (an id) or, failing that, from the title in
  the query (exact normalised title, else the best BM25 title hit).
- deep-research: the generic LLM deep-research loop over the graph's titles (`DeepResearchAgent`,
  `uses_llm`; docs/scinet.md).

This is SciNet's own agent protocol (`answer(task, ctx) -> [ids]`, optionally
`answer_with_info`); `builtin.py` registers these agents for the engine behind one adapter.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from scholarbench.agents.deep_research import (DECIDE_PROMPT, DeepResearchSettings, Reading,
                                               deep_research)
from scholarbench.agents.llm_common import load_prompt
from scholarbench.benchmarks.scinet.env import CATEGORY_NAMES, SciNetEnv
from scholarbench.benchmarks.scinet.gold import tie_hash
from scholarbench.benchmarks.scinet.records import SciNetTask
from scholarbench.benchmarks.scinet.sentiment import classify_sentiment
from scholarbench.corpus.bm25 import BM25Index
from scholarbench.corpus.dense import DenseIndex
from scholarbench.graph import PathError

_TITLE_IN_QUERY = re.compile(r'titled "(.*)"')
_CODE = re.compile(r"\((cs\.[A-Z]{2})\)")


@dataclass
class SciNetContext:
    env: SciNetEnv
    embedder: Any = None     # needed by `embedding`
    llm: Any = None          # the agent role's ChatClient (LLM agents)
    params: dict[str, Any] = field(default_factory=dict)


class _Indexes:
    """Title indices of one environment, built on first use."""

    def __init__(self, env: SciNetEnv) -> None:
        self.env = env
        self._bm25 = None
        self._dense: dict[str, Any] = {}

    def texts(self) -> list[str]:
        return [self.env.title(i) for i in self.env.ids]

    def bm25(self, query: str, k: int) -> list[str]:
        return [pid for pid, _ in self.bm25_scored(query, k)]

    def bm25_scored(self, query: str, k: int) -> list[tuple[str, float]]:
        if self._bm25 is None:
            self._bm25 = BM25Index.build(self.texts())
        rows, scores = self._bm25.top(query, k)
        return [(self.env.ids[r], float(s)) for r, s in zip(rows, scores)]

    def dense(self, query: str, k: int, embedder: Any) -> list[str]:
        key = getattr(embedder, "model_id", "embedder")
        if key not in self._dense:
            self._dense[key] = DenseIndex.build(self.texts(), embedder)
        index = self._dense[key]
        rows, _ = index.search(index.query_vector(query, embedder), k)
        return [self.env.ids[r] for r in rows]


_INDEXES: dict[int, _Indexes] = {}


def indexes(env: SciNetEnv) -> _Indexes:
    if id(env) not in _INDEXES or _INDEXES[id(env)].env is not env:
        _INDEXES[id(env)] = _Indexes(env)
    return _INDEXES[id(env)]


class _Base:
    name = "base"
    uses_llm = False
    needs_embedder = False

    def __init__(self, k: int = 50, path_k: int = 6) -> None:
        self.k, self.path_k = int(k), int(path_k)

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "k": self.k, "path_k": self.path_k}

    def _k(self, task: SciNetTask) -> int:
        return self.path_k if task.family == "path" else self.k


class BM25Agent(_Base):
    name = "bm25"

    def answer(self, task: SciNetTask, ctx: SciNetContext) -> list[str]:
        return indexes(ctx.env).bm25(task.query, self._k(task))


class EmbeddingAgent(_Base):
    name = "embedding"
    needs_embedder = True

    def answer(self, task: SciNetTask, ctx: SciNetContext) -> list[str]:
        if ctx.embedder is None:
            raise ValueError("scinet/embedding needs an embedder")
        return indexes(ctx.env).dense(task.query, self._k(task), ctx.embedder)


class RelationAwareAgent(_Base):
    name = "relation-aware"

    def __init__(self, k: int = 50, max_papers: int = 6) -> None:
        super().__init__(k=k, path_k=max_papers)
        self.max_papers = int(max_papers)

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "k": self.k, "max_papers": self.max_papers}

    # tools ------------------------------------------------------------------------------
    def category_of(self, task: SciNetTask, env: SciNetEnv) -> str | None:
        text = task.field or task.query
        if (m := _CODE.search(text)) and m.group(1) in env.graph.venues:
            return m.group(1)
        low = text.lower()
        for code, name in sorted(CATEGORY_NAMES.items()):
            if name.lower() in low and code in env.graph.venues:
                return code
        hits = indexes(env).bm25(text, 200)
        cats = Counter(c for c in (env.category(h) for h in hits) if c)
        return min(cats.items(), key=lambda kv: (-kv[1], kv[0]))[0] if cats else None

    def resolve_paper(self, ref: str | None, title: str | None, env: SciNetEnv) -> str | None:
        for text in (ref, title):
            if text and (gid := env.resolve(text)):
                return gid
        if title:
            hits = indexes(env).bm25(title, 1)
            return hits[0] if hits else None
        return None

    def rank_by_measure(self, env: SciNetEnv, ids: list[str], measure: str) -> list[str]:
        arr = env.measure(measure)
        vals = np.array([arr[env.graph.pid(i)] for i in ids], dtype=np.float64)
        key = vals if measure == "novelty" else -vals
        # ties as the gold's default rule (gold.py): more citations, then a seeded id hash
        order = sorted(range(len(ids)), key=lambda i: (not np.isfinite(key[i]),
                                                      key[i] if np.isfinite(key[i]) else 0.0,
                                                      -env.n_citations(ids[i]),
                                                      tie_hash(0, ids[i])))
        return [ids[i] for i in order]

    # answer -----------------------------------------------------------------------------
    def answer(self, task: SciNetTask, ctx: SciNetContext) -> list[str]:
        env = ctx.env
        if task.family == "ego":
            cat = self.category_of(task, env)
            if cat is None:
                return []
            measure = "novelty" if task.kind == "novel" else "disruption"
            return self.rank_by_measure(env, env.category_ids(cat), measure)[: self.k]
        if task.family == "pair":
            m = _TITLE_IN_QUERY.search(task.query)
            q = self.resolve_paper(task.source, m.group(1) if m else None, env)
            if q is None:
                return []
            if task.kind == "pncites":
                pos = {c.citing for c in env.contexts.contexts_of(q)
                       if classify_sentiment(c.text) == "Positive"}
                citers = env.citers(q)
                citers.sort(key=lambda c: (c not in pos, -env.n_citations(c), c))
                return citers[: self.k]
            cm = env.contexts.comentioned(q)
            co = env.cocited(q)
            order = sorted(set(cm) | set(co),
                           key=lambda p: (-cm.get(p, 0), -co.get(p, 0), p))
            return [p for p in order if env.has(p)][: self.k]
        a = self.resolve_paper(task.classic, task.classic, env)
        b = self.resolve_paper(task.recent, task.recent, env)
        if a is None or b is None:
            return [x for x in (a, b) if x]
        try:
            return list(env.path_finder.find(a, b, max_papers=self.max_papers).path)
        except PathError:
            return [a, b]


class GraphResearchEnv:
    """The graph's papers as a deep-research environment (`agents.deep_research.ResearchEnv`):
    search = BM25 over the titles; read = title and year (the graph has no abstracts)."""

    def __init__(self, env: SciNetEnv) -> None:
        self.env = env
        self.searches: list[str] = []

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        self.searches.append(query)
        return indexes(self.env).bm25_scored(query, k)

    def read(self, paper_ids: Sequence[str]) -> list[Any]:
        return [Reading(pid, self.env.title(pid), self.env.year(pid)) for pid in paper_ids]


def first_query(task: SciNetTask) -> str:
    """The loop's first search: the quoted title (pair; path: the classic paper's), else the
    field, else the whole query."""
    m = _FIRST_TITLE.search(task.query)
    if m:
        return m.group(1)
    return task.field or task.query


_FIRST_TITLE = re.compile(r'"(.+?)"')


class DeepResearchAgent(_Base):
    """The generic deep-research loop (`agents/deep_research.py`) over the graph's titles, the
    topic being the task's query (see docs/scinet.md, "deep-research agent").

    Answer: ego and pair — the loop's ranking (papers the model judged relevant first, then the
    fusion of every search, then the papers it judged irrelevant), top `k`; path — the two
    endpoints (resolved like `relation-aware`: id, exact title, else the best BM25 title hit)
    with the `path_k` - 2 best-ranked other papers between them, in year order (then ranking).
    Fallback rule (counted in generate.jsonl `info` and the summary's `agent_llm`): a model call
    that fails or stays malformed ends the loop with what was found so far (the loop's own
    rule, `stopped = "llm_failure"`); an empty ranking falls back to the BM25 titles of the
    first query."""
    name = "deep-research"
    uses_llm = True

    def __init__(self, k: int = 50, path_k: int = 6, max_steps: int = 4, depth: int = 50,
                 read_per_step: int = 5, max_read: int = 20, max_tokens: int = 384) -> None:
        super().__init__(k=k, path_k=path_k)
        if self.path_k < 2:
            raise ValueError("scinet/deep-research: path_k must be >= 2 (the two endpoints)")
        self.settings = DeepResearchSettings(max_steps=max_steps, depth=depth,
                                             read_per_step=read_per_step, max_read=max_read,
                                             k=max(self.k, self.path_k),
                                             max_tokens=max_tokens)

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "k": self.k, "path_k": self.path_k,
                **self.settings.config(),
                "prompt": load_prompt(DECIDE_PROMPT).identity(),
                "search": "bm25 titles", "reading": "title, year",
                "topic": "the task query", "first_query": "quoted title, else field, else query"}

    def answer(self, task: SciNetTask, ctx: SciNetContext) -> list[str]:
        return self.answer_with_info(task, ctx)[0]

    def answer_with_info(self, task: SciNetTask, ctx: SciNetContext
                         ) -> tuple[list[str], dict[str, Any]]:
        if ctx.llm is None:
            raise ValueError("scinet/deep-research needs the agent role's chat model")
        env = ctx.env
        genv = GraphResearchEnv(env)
        start = first_query(task)
        result = deep_research(task.query, genv, ctx.llm, self.settings, first_query=start)
        info = result.info()
        ranking = [pid for pid, _ in result.ranking]
        if not ranking:
            ranking = indexes(env).bm25(start, max(self.k, self.path_k))
            info.setdefault("fallback", []).append("empty ranking: BM25 titles of the first query")
        if task.family != "path":
            return ranking[: self.k], info
        ra = RelationAwareAgent()
        titles = _PATH_TITLES.search(task.query)
        a = ra.resolve_paper(task.classic, titles.group(1) if titles else task.classic, env)
        b = ra.resolve_paper(task.recent, titles.group(2) if titles else task.recent, env)
        ends = [x for x in (a, b) if x]
        middle = [p for p in ranking if p not in ends][: self.path_k - len(ends)]
        pos = {p: i for i, p in enumerate(middle)}
        middle.sort(key=lambda p: (env.year(p) or 0, pos[p]))
        return ([a] if a else []) + middle + ([b] if b else []), info


_PATH_TITLES = re.compile(r'from "(.*)" to "(.*)" in the field')


NATIVE: dict[str, type[_Base]] = {"embedding": EmbeddingAgent, "bm25": BM25Agent,
                                  "relation-aware": RelationAwareAgent,
                                  "deep-research": DeepResearchAgent}
AGENTS = tuple(f"scinet/{n}" for n in NATIVE)


def make_scinet_agent(name: str, **params: Any) -> Any:
    """A built-in agent in SciNet's own protocol (`answer(task, ctx)`), by name with or without
    the `scinet/` prefix; the registry's adapters (`builtin.py`) wrap these for the engine."""
    short = name.removeprefix("scinet/")
    if short not in NATIVE:
        raise KeyError(f"unknown SciNet agent {name!r}; known: {', '.join(AGENTS)}")
    return NATIVE[short](**params)
