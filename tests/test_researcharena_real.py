"""ResearchArena on the default corpus built from ../shared/data: the task counts measured there,
and sane metric ranges for the baselines (skipped without the shared data, failing on CI)."""
from __future__ import annotations

import json

import pytest

from conftest import shared_path
from scholarbench.corpus.build import build_default_corpus
from scholarbench.corpus.store import Corpus
from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run
from scholarbench.benchmarks.researcharena.tasks import (TASK_SETS, SearchSpace, build_tasks,
                                                         count_totals)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena-default-corpus")
    build_default_corpus(out, shared_path("data"))
    return out


@pytest.fixture(scope="module")
def corpus(corpus_dir):
    return Corpus.open(corpus_dir)


@pytest.fixture(scope="module")
def tasks(corpus):
    return build_tasks(corpus)


def test_task_counts(tasks):
    # ReportBench's 100 surveys and the deep-review article: the surveys with a full list
    assert len(tasks) == 101
    assert sum(t.id.startswith("arxiv:") for t in tasks) == 100
    assert tasks[-1].id == "doi:10.1098/rsif.2017.0387"
    totals = count_totals(tasks)
    assert {k: totals[k] for k in ("listed", "resolved", "unresolved", "duplicates",
                                   "other_sources", "searchable")} == {
        "listed": 16819,          # 16,204 ReportBench entries + 615 deep-review entries
        "resolved": 15665, "unresolved": 1, "duplicates": 1154, "other_sources": 1,
        "searchable": 13114}
    assert totals["unsearchable"] == {"survey": 1042, "undated": 86, "not_before_cutoff": 1423}
    assert totals["flags"] == {"empty_gold": 0, "no_cutoff": 0, "searchability_unchecked": 0,
                               "no_mindmap": 101}
    first = tasks[0]
    assert first.id == "arxiv:2003.00653" and str(first.cutoff) == "2020-03-02"
    assert first.counts.as_dict() == {
        "listed": 98, "resolved": 96, "unresolved": 0, "duplicates": 2, "other_sources": 0,
        "searchable": 72, "unsearchable": {"survey": 5, "undated": 1, "not_before_cutoff": 18}}


def test_all_surveys_task_set(corpus):
    every = build_tasks(corpus, TASK_SETS["all"], reference_lists=None)
    totals = count_totals(every)
    assert totals["tasks"] == 844
    assert totals["flags"]["empty_gold"] == 33 and totals["flags"]["no_cutoff"] == 75


def _discovery(tmp_path, corpus_dir, agent):
    out = tmp_path / agent
    summary = run(ArenaRunConfig("discovery", agent, out, corpus_dir, progress=False))
    means = {k: v["mean"] for k, v in summary["metrics"].items()}
    rows = [json.loads(x) for x in (out / "generate.jsonl").read_text().splitlines()]
    return summary, means, rows


def test_baselines_metric_ranges_and_leakage(tmp_path, corpus_dir, corpus, tasks):
    bm25, b, bm25_rows = _discovery(tmp_path, corpus_dir, "title-bm25")
    expand, e, expand_rows = _discovery(tmp_path, corpus_dir, "citation-expand")
    for summary in (bm25, expand):
        assert summary["n_samples"] == summary["n_scored"] == 101
        assert summary["n_missing"] == summary["n_malformed"] == 0
    # measured 0.0793 / 0.2735 / 0.6030 / 0.6360 / 0.8327 (title-bm25)
    assert 0.05 < b["R@10"] < 0.12 and 0.2 < b["R@100"] < 0.35
    assert 0.45 < b["P@10"] < 0.75 and 0.5 < b["nDCG@10"] < 0.75 and 0.7 < b["RR"] < 0.95
    # citation-expand keeps BM25's top 50: the head measures are identical
    for key in ("R@10", "P@10", "nDCG@10", "nDCG@30", "RR"):
        assert e[key] == b[key]
    assert e["R@100"] > b["R@100"]                     # measured 0.2814 vs 0.2735
    space = SearchSpace.of(corpus)
    by_id = {t.id: t for t in tasks}
    for rows in (bm25_rows, expand_rows):
        for row in rows:
            task = by_id[row["id"]]
            assert len(row["ranking"]) == 100
            assert all(space.searchable(pid, task.cutoff) for pid, _ in row["ranking"])


@pytest.mark.slow
def test_cluster_organisation_on_taxobench_trees(tmp_path, corpus_dir, minilm):
    out = tmp_path / "org"
    summary = run(ArenaRunConfig("organisation", "cluster", out, corpus_dir,
                                 tasks_from="taxobench",
                                 taxobench_file=shared_path("data", "taxobench",
                                                            "taxobench_5_instances.jsonl"),
                                 progress=False), minilm)
    assert summary["n_samples"] == summary["n_scored"] == 5 and summary["n_missing"] == 0
    m = {k: v["mean"] for k, v in summary["metrics"].items()}
    # measured 0.8045 / 0.3167 / 37.8
    assert 0.5 < m["heading_soft_recall"] < 1.2
    assert 0.0 <= m["heading_entity_recall"] <= 1.0
    assert 20 < m["tree_semantic_distance"] < 60
