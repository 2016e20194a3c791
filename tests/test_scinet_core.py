"""SciNet tasks, metrics, agents and runner on a hand-made graph (hand-computed values)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scholarbench.errors import DataError
from scholarbench.benchmarks.scinet.contexts import marker_sentence, store_from_records
from scholarbench.benchmarks.scinet.env import EnvSettings, SciNetEnv
from scholarbench.benchmarks.scinet.metrics import aggregate, connected_chain, resolve_answer, score_task
from scholarbench.benchmarks.scinet.records import SciNetTask, read_tasks, write_tasks
from scholarbench.benchmarks.scinet.sentiment import classify_sentiment
from scholarbench.benchmarks.scinet.tasks import BuildSettings, build_tasks

A, B, C, D, E, F = (f"arxiv:1{i}01.00001" for i in range(6))
NEW = "arxiv:2301.99999"     # an unArXive-style citing paper outside the graph
PAPERS = [
    {"id": A, "title": "Deep learning foundations", "year": 2010, "venue": "cs.LG"},
    {"id": B, "title": "Convolutional networks for images", "year": 2011, "venue": "cs.LG"},
    {"id": C, "title": "Residual networks", "year": 2012, "venue": "cs.LG"},
    {"id": D, "title": "Attention models", "year": 2013, "venue": "cs.LG"},
    {"id": E, "title": "Transformers for language", "year": 2014, "venue": "cs.CL"},
    {"id": F, "title": "Pretrained language models", "year": 2015, "venue": "cs.CL"},
]
EDGES = [(B, A), (C, B), (C, A), (D, C), (E, D), (E, C), (F, E), (F, A), (A, A)]  # A->A: self


def tiny_env() -> SciNetEnv:
    ctx = store_from_records(
        [{"citing": C, "cited": A, "text": "We build on the method of {{cite:x}}."},
         {"citing": B, "cited": A, "text": "However, {{cite:x}} fails on images."},
         {"citing": NEW, "cited": A, "text": "Following {{cite:x}}, we train."}],
        [{"source": NEW, "position": 3, "cited": [A, D]}])
    return SciNetEnv.from_tables(PAPERS, EDGES, ctx, EnvSettings(randomisations=3), name="tiny")


@pytest.fixture(scope="module")
def env():
    return tiny_env()


def task(family, kind, gold, **kw):
    return SciNetTask(f"{family}/{kind}/t", family, kind, "q", gold=gold, **kw)


# ---- graph lookups, bad input ---------------------------------------------------------------
def test_self_citation_dropped_and_lookups(env):
    assert sorted(env.citers(A)) == [B, C, F]          # A -> A is not a citation
    assert env.references(A) == []                     # no references
    assert env.citers(F) == []                         # no citers
    assert env.cocited(A) == {B: 1, E: 1}              # C cites A+B, F cites A+E
    assert env.cites(C, A) and not env.cites(A, C) and not env.cites("arxiv:9999.9999", A)


def test_resolve_spellings(env):
    assert env.resolve("1001.00001") == A
    assert env.resolve("https://arxiv.org/abs/1101.00001v3") == B
    assert env.resolve("Residual Networks") == C       # exact (normalised) title
    assert env.resolve("W123") is None and env.resolve("") is None and env.resolve(7) is None


def test_undefined_measures_are_nan(env):
    # A has no references -> CD undefined; F has no citers -> undefined
    d = env.disruption_values
    assert math.isnan(d[env.graph.pid(A)]) and math.isnan(d[env.graph.pid(F)])
    assert np.isnan(env.sos("disruption", [A, "arxiv:9999.99999"])).all()


# ---- sentiment / contexts -------------------------------------------------------------------
def test_sentiment_rule():
    assert classify_sentiment("We build on {{cite:a}}.") == "Positive"
    assert classify_sentiment("However, {{cite:a}} is costly but effective.") == "Negative"
    assert classify_sentiment("Prior work {{cite:a}} studied graphs.") == "Neutral"


def test_marker_sentence():
    text = "First sentence. Then {{cite:k1}} works well. Last {{cite:k2}} one."
    assert marker_sentence(text, "k1") == "Then {{cite:k1}} works well."


# ---- metrics: pair ----------------------------------------------------------------------------
def test_cite_acc_duplicates_and_missing_ids(env):
    t = task("pair", "pncites", {"citers": [B, C, F], "positive": [C], "cocited": []},
             source=A)
    row = score_task(t, [B, "not-a-paper", "1101.00001", D], env)
    # distinct items: B, ?not-a-paper, D -> 3; hits: B
    assert row["cite_acc"] == pytest.approx(1 / 3)
    assert row["not_in_graph"] == 1 and row["distinct"] == 3
    assert row["cite_sentiment"] == 0.0
    assert score_task(t, [C, B], env)["cite_sentiment"] == 0.5


def test_empty_and_missing_answers(env):
    t = task("pair", "pncites", {"citers": [B], "positive": None, "cocited": []}, source=A)
    row = score_task(t, [], env)
    assert row["cite_acc"] == 0.0 and row["empty"] and row["cite_sentiment"] is None
    miss = score_task(t, None, env)
    assert miss["missing_answer"] and miss["cite_acc"] == 0.0
    agg = aggregate([row, miss, score_task(t, [B, C], env)])
    assert agg["cite_acc"]["macro"] == pytest.approx(0.5 / 3)
    assert agg["cite_acc"]["micro"] == pytest.approx(0.5)   # empties add nothing
    assert agg["cite_sentiment"] == {"macro": None, "n": 0, "n_null": 3, "micro": None}
    assert agg["empty_answers"] == 2 and agg["missing_answers"] == 1


def test_comention(env):
    t = task("pair", "cooccur", {"citers": [], "cocited": [B, E], "comentioned": [D]}, source=A)
    row = score_task(t, [B, D, E, C], env)
    assert row["comention_acc"] == 0.5 and row["comention_paragraph"] == 0.25


# ---- metrics: path ----------------------------------------------------------------------------
def test_connected_chain_exact(env):
    assert connected_chain(env, A, D, [C])             # C cites A, D cites C
    assert connected_chain(env, A, D, [B, C])          # A <- B <- C <- D
    assert not connected_chain(env, A, D, [B])         # D does not cite B
    assert not connected_chain(env, A, D, [E])         # E is after D
    assert connected_chain(env, A, F, [C, D, E])
    assert connected_chain(env, A, F, [E, D, C])       # order of the answer does not matter
    assert not connected_chain(env, A, F, [C, D, "arxiv:9999.99999"])


def test_path_metrics(env):
    gold = env.path_finder.find(A, F, max_papers=6)
    t = task("path", "path", {"path": list(gold.path)}, classic=A, recent=F)
    assert score_task(t, list(gold.path), env)["path_connectivity"] == 1.0
    assert score_task(t, list(gold.path), env)["path_consistency"] == 1.0
    row = score_task(t, [A, C, "nope"], env)
    assert row["path_consistency"] == pytest.approx(2 / 3 if C in gold.path else 1 / 3)
    assert row["path_connectivity"] == 0.0            # an id not in the graph
    assert score_task(t, [], env)["path_connectivity"] == 0.0


# ---- metrics: ego -----------------------------------------------------------------------------
def test_ego_recall_and_sos(env):
    vals = env.disruption_values
    defined = [i for i in env.ids if np.isfinite(vals[env.graph.pid(i)])]
    t = task("ego", "disruptive", {"ranked": defined[:2], "measure": "disruption"})
    row = score_task(t, [defined[0], defined[0], A], env)      # duplicate, undefined (A)
    assert row["disruption_recall@50"] == 0.5
    assert row["undefined_value"] == 1 and row["sos_scorable"] == 1
    assert row["disruption_sos"] == pytest.approx(float(env.sos("disruption", [defined[0]])[0]))
    empty = score_task(t, [], env)
    assert empty["disruption_recall@50"] == 0.0 and empty["disruption_sos"] == 0.0
    assert score_task(t, defined[:2], env)["disruption_recall@50"] == 1.0


def test_only_first_50_items_count(env):
    t = task("pair", "pncites", {"citers": [B], "positive": None, "cocited": []}, source=A)
    assert resolve_answer(["x"] * 50 + [B], env)[0] == []
    assert score_task(t, ["x"] * 50 + [B], env)["cite_acc"] == 0.0


# ---- task construction ------------------------------------------------------------------------
def test_build_tasks_deterministic(env, tmp_path):
    s = BuildSettings(min_papers=2, n_pair=3, min_citers=1, n_classic=3, n_recent=3,
                      recent_years=3, per_category=2)
    t1, t2 = build_tasks(env, settings=s), build_tasks(env, settings=s)
    assert [t.as_json() for t in t1] == [t.as_json() for t in t2]
    fams = {t.family for t in t1}
    assert fams == {"ego", "pair", "path"}
    pn = {t.source: t for t in t1 if t.kind == "pncites"}
    assert pn[A].gold["citers"] == [B, C, F] and pn[A].gold["positive"] == [C]
    assert pn[A].query == 'Which papers positively cite the paper titled "Deep learning foundations"?'
    co = {t.source: t for t in t1 if t.kind == "cooccur"}
    assert co[A].gold["comentioned"] == [D]
    for t in t1:
        if t.family == "path":
            assert connected_chain(env, t.classic, t.recent, t.gold["path"])
    write_tasks(t1, tmp_path / "t.jsonl")
    assert [t.as_json() for t in read_tasks(tmp_path / "t.jsonl")] == [t.as_json() for t in t1]


def test_task_file_errors(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"task_id": "a", "family": "ego", "kind": "novel", "query": "q"}\n'
                 '{"task_id": "b", "family": "pair", "kind": "pncites", "query": "q"}\n')
    with pytest.raises(DataError) as err:
        read_tasks(p)
    assert err.value.line == 2 and err.value.field == "source"
    p.write_text('{"task_id": "a", "family": "ego", "kind": "path", "query": "q"}\n')
    with pytest.raises(DataError, match="kind"):
        read_tasks(p)
    p.write_text('{"task_id": "a", "family": "ego", "kind": "novel", "query": "q", "x": 1}\n')
    with pytest.raises(DataError, match="unknown field"):
        read_tasks(p)


# ---- agents and runner ------------------------------------------------------------------------
def test_agents_and_run(env, tmp_path, fake_embedder):
    from scholarbench.benchmarks.scinet import (SciNetRunConfig, format_summary, run_scinet,
                                                score_scinet_files)
    s = BuildSettings(min_papers=2, n_pair=3, min_citers=1, n_classic=3, n_recent=3,
                      recent_years=3, per_category=2)
    write_tasks(build_tasks(env, settings=s), tmp_path / "tasks.jsonl")
    for agent in ("bm25", "embedding", "relation-aware"):
        for fam in ("ego", "pair", "path"):
            out = tmp_path / f"{fam}-{agent}"
            summary = run_scinet(SciNetRunConfig(fam, agent, out, tasks=tmp_path / "tasks.jsonl",
                                                 env=env, embedder=fake_embedder))
            assert fam in summary["families"]
            assert format_summary(summary)
    ra = json.loads((tmp_path / "path-relation-aware" / "summary.json").read_text())
    assert ra["families"]["path"]["path_consistency"]["macro"] == 1.0
    assert ra["families"]["path"]["path_connectivity"]["macro"] == 1.0
    # resume: nothing is regenerated
    gen = tmp_path / "pair-bm25" / "generate.jsonl"
    before = gen.read_text()
    run_scinet(SciNetRunConfig("pair", "bm25", tmp_path / "pair-bm25",
                               tasks=tmp_path / "tasks.jsonl", env=env))
    assert gen.read_text() == before
    # score from files: answers with a malformed line and an unknown task
    tasks = read_tasks(tmp_path / "tasks.jsonl")
    pn = next(t for t in tasks if t.kind == "pncites" and t.source == A)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"task_id": pn.task_id, "papers": [B, C]}) + "\n" +
                       json.dumps({"task_id": tasks[0].task_id, "papers": "oops"}) + "\n" +
                       json.dumps({"task_id": "nope", "papers": []}) + "\n")
    summary = score_scinet_files(tmp_path / "tasks.jsonl", answers, tmp_path / "s.jsonl", env=env)
    assert summary["malformed_answers"] == 1 and summary["unknown_task_ids"] == ["nope"]
    rows = {json.loads(l)["task_id"]: json.loads(l) for l in open(tmp_path / "s.jsonl")}
    assert rows[pn.task_id]["cite_acc"] == 1.0 and rows[pn.task_id]["cite_sentiment"] == 0.5
    answers.write_text(json.dumps({"task_id": "a", "papers": []}) + "\n" +
                       json.dumps({"task_id": "a", "papers": []}) + "\n")
    with pytest.raises(DataError) as err:
        score_scinet_files(tmp_path / "tasks.jsonl", answers, tmp_path / "s.jsonl", env=env)
    assert err.value.line == 2 and err.value.field == "task_id"


def test_agents_never_see_gold(env, tmp_path):
    from scholarbench.core.registry import REGISTRY
    from scholarbench.benchmarks.scinet.run import SciNetRunConfig, run_scinet
    seen = []

    class Spy:
        name, uses_llm, needs_embedder = "spy", False, False

        def config(self):
            return {}

        def answer(self, task, ctx):
            seen.append(task.gold)
            raise RuntimeError("boom")

    REGISTRY.load()
    REGISTRY._entries["agent"]["scinet/spy"] = Spy
    try:
        summary = run_scinet(SciNetRunConfig("pair", "spy", tmp_path / "spy", env=env,
                                             build=BuildSettings(n_pair=2, min_citers=1)))
    finally:
        del REGISTRY._entries["agent"]["scinet/spy"]
    assert seen and all(g is None for g in seen)
    assert summary["families"]["pair"]["missing_answers"] == len(seen)


def test_registered_names():
    from scholarbench.core.registry import REGISTRY
    names = REGISTRY.names("metric")          # namespaced: scinet/<key> (core.measure)
    for m in ("novelty_sos", "disruption_recall@50", "cite_acc", "comention_paragraph",
              "path_connectivity", "path_rationality_llm"):
        assert f"scinet/{m}" in names and f"scinet/{m}(upstream=1)" in names
    assert "scinet" in REGISTRY.names("benchmark")
    assert {"scinet/embedding", "scinet/bm25", "scinet/relation-aware"} <= set(
        REGISTRY.names("agent"))
