"""SciNet tasks on the real arxiv-2023 graph (+ unArXive contexts): built once per session."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import shared_path
from scholarbench.benchmarks.scinet.env import SciNetEnv
from scholarbench.benchmarks.scinet.metrics import connected_chain, score_task
from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_pair, build_tasks


@pytest.fixture(scope="module")
def real():
    env = SciNetEnv.from_arxiv2023(shared_path("data", "arxiv2023_citation_graph"),
                                   shared_path("data", "unarxive_sample"))
    return env, build_tasks(env)


def test_counts_and_spot_checks(real):
    env, tasks = real
    kinds = {}
    for t in tasks:
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    assert kinds["pncites"] == 100 and kinds["cooccur"] == 100
    assert kinds["novel"] >= 10 and kinds["disruptive"] >= 7 and kinds["path"] >= 50
    assert len({t.task_id for t in tasks}) == len(tasks)
    # the 7 unArXive co-mention query papers come first, with their paragraph partners
    co = [t for t in tasks if t.kind == "cooccur"]
    assert co[0].task_id == "pair/cooccur/arxiv:1512.03385"
    assert co[0].gold["comentioned"] == ["arxiv:1711.11248"]
    assert sum(t.gold["comentioned"] is not None for t in co) == 7


def test_ego_gold_is_the_measure_ranking(real):
    env, tasks = real
    for t in (t for t in tasks if t.family == "ego"):
        v = t.gold["values"]
        assert len(t.gold["ranked"]) == 50 and all(np.isfinite(v))
        assert v == sorted(v, reverse=t.kind == "disruptive")
        assert all(env.category(p) == t.category for p in t.gold["ranked"])


def test_path_gold_is_a_chain(real):
    env, tasks = real
    for t in (t for t in tasks if t.family == "path"):
        p = t.gold["path"]
        assert p[0] == t.classic and p[-1] == t.recent and 3 <= len(p) <= 6
        assert connected_chain(env, t.classic, t.recent, p[1:-1])
        assert t.gold["score"] == sum(env.n_citations(x) for x in p)


def test_pair_build_deterministic(real):
    env, tasks = real
    again = build_pair(env, BuildSettings())
    assert [t.as_json() for t in again] == [
        {**t.as_json(), "info": {k: v for k, v in t.info.items()
                                 if k not in ("build", "settings", "env")}}
        for t in tasks if t.family == "pair"]


def test_relation_aware_beats_bm25_on_a_sample(real):
    from scholarbench.benchmarks.scinet.agents import BM25Agent, RelationAwareAgent, SciNetContext
    env, tasks = real
    ctx = SciNetContext(env=env)
    picks = ([t for t in tasks if t.family == "ego"][:2] + [t for t in tasks if t.kind == "pncites"][:5]
             + [t for t in tasks if t.family == "path"][:5])
    import dataclasses
    for agent_cls in (RelationAwareAgent, BM25Agent):
        agent = agent_cls()
        rows = [score_task(t, agent.answer(dataclasses.replace(t, gold=None), ctx), env)
                for t in picks]
        key = lambda r: [v for k, v in r.items() if k in ("novelty_recall@50",
                         "disruption_recall@50", "cite_acc", "path_consistency")][0]
        if agent_cls is RelationAwareAgent:
            ra = [key(r) for r in rows]
        else:
            bm = [key(r) for r in rows]
    assert sum(ra) > sum(bm)
