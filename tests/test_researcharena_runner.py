"""ResearchArena runs on the hand-made corpus: the CLI, resume with --limit, re-scoring, missing /
crashed / malformed outputs, unscorable tasks, the agents' leakage filters."""
from __future__ import annotations

import json

import pytest

from conftest import FakeEmbedder
from test_researcharena_fixtures import CUTOFF_S, build_tiny
from scholarbench.benchmarks.researcharena.agents import ArenaContext, ArenaOutput, ArenaQuery
from scholarbench.benchmarks.researcharena.agents.citation_expand import CitationExpand
from scholarbench.benchmarks.researcharena.agents.graph import CitationGraph
from scholarbench.cli import main
from scholarbench.corpus.store import Corpus
from scholarbench.data.sources.records import EdgeRecord
from scholarbench.data.trec import read_run
from scholarbench.errors import ScholarbenchError
from scholarbench.core.registry import register_agent
from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run, score_run
from scholarbench.benchmarks.researcharena.files import score_researcharena_files
from scholarbench.benchmarks.researcharena.tasks import SearchSpace

S, T, U = "arxiv:2106.00100", "arxiv:2001.00200", "s2corpus:300"
A, C, G, H, L, N = ("doi:10.1/a", "arxiv:2105.00003", "arxiv:1903.00007", "doi:10.1/h",
                    "arxiv:2201.00010", "arxiv:2005.00009")


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-arena-run")
    build_tiny(out)
    return out


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


@register_agent("researcharena/test-flaky")
class Flaky:
    """Gives up on S (no ranking, an error note), returns a malformed ranking for U. (An agent
    that *raises* makes its sample `error`, never a result: test_researcharena_engine.py.)"""
    name = "test-flaky"
    tasks = ("discovery", "selection")
    needs_corpus = False
    needs_embedder = False

    def config(self):
        return {}

    def generate(self, query, ctx):
        if query.id == S:
            return ArenaOutput(error="boom")
        return ArenaOutput(ranking=[("has space", 1.0)])


def test_cli_limit_then_full_resumes_and_rescoring_reproduces(tmp_path, corpus_dir, capsys):
    out = tmp_path / "run"
    args = ["run", "researcharena", "--task", "discovery", "--agent", "title-bm25",
            "--corpus", str(corpus_dir), "--out", str(out)]
    assert main(args + ["--limit", "2"]) == 0
    first = (out / "generate.jsonl").read_text().splitlines()
    # tasks T (empty gold: not run) and S: one generated line
    assert [json.loads(x)["id"] for x in first] == [S]
    assert main(args) == 0
    lines = (out / "generate.jsonl").read_text().splitlines()
    assert lines[:1] == first                                  # not redone
    assert sorted(json.loads(x)["id"] for x in lines) == [S, U]  # each scorable task once
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_samples"] == 3 and summary["n_scored"] == 2
    assert summary["n_unscorable"] == {"empty_gold": 1} and summary["unscorable_ids"] == [T]
    scores = (out / "scores.jsonl").read_text()
    assert main(["score", str(out)]) == 0
    assert (out / "scores.jsonl").read_text() == scores
    assert json.loads((out / "summary.json").read_text()) == summary
    # run.trec + qrels.trec score to the same means (trec_eval's definitions)
    files = score_researcharena_files(out / "qrels.trec", out / "run.trec", tmp_path / "s.jsonl")
    for key, mean in files["means"].items():
        assert summary["metrics"][key]["mean"] == pytest.approx(mean, abs=1e-12)
    text = capsys.readouterr().out
    assert "*R@100" in text and "1 empty_gold" in text


def test_agent_respects_the_leakage_filters(tmp_path, corpus_dir):
    out = tmp_path / "run"
    run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir, progress=False))
    ranked = {r["id"]: [pid for pid, _ in r["ranking"]] for r in _lines(out / "generate.jsonl")}
    space = SearchSpace.of(Corpus.open(corpus_dir))
    assert set(ranked[S]) == {A, C, G, H, N}                  # every searchable paper, no more
    assert all(space.searchable(pid, CUTOFF_S) for pid in ranked[S])
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}
    assert rows[S]["R@10"] == 1.0 and rows[S]["P@10"] == pytest.approx(0.3)
    assert rows[T]["R@10"] is None and rows[T]["unscorable"] == "empty_gold"


def test_missing_crashed_and_malformed_outputs_are_scored_and_counted(tmp_path, corpus_dir):
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("selection", "test-flaky", out, corpus_dir, progress=False))
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}
    assert len(rows) == 3                                     # no task dropped
    assert rows[S]["missing"] and "boom" in rows[S]["error"] and rows[S]["nDCG@10"] == 0.0
    assert rows[U]["malformed"] and "paper_id" in rows[U]["error"] and rows[U]["RR"] == 0.0
    assert summary["n_missing"] == 1 and summary["n_malformed"] == 1
    assert summary["metrics"]["nDCG@10"] == {"mean": 0.0, "n": 2, "n_null": 0, "ci95": [0.0, 0.0]}
    assert summary["primary"] == ["nDCG@10", "nDCG@30", "nDCG@100", "RR"]


def test_replay_of_a_trec_run_with_a_missing_query(tmp_path, corpus_dir):
    trec = tmp_path / "in.trec"
    trec.write_text(f"{S} Q0 {L} 1 3.0 x\n{S} Q0 {A} 2 2.0 x\n{S} Q0 {C} 3 2.0 x\n")
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "replay", out, corpus_dir,
                                 agent_params={"path": str(trec)}, progress=False))
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}
    assert rows[U]["missing"] and rows[U]["R@100"] == 0.0
    # trec_eval order: L (3.0), then the 2.0 tie by docid descending ("doi:…" > "arxiv:…")
    assert [pid for pid, _ in read_run(out / "run.trec").scores[S].items()] == [L, A, C]
    assert rows[S]["RR"] == 0.5 and summary["n_missing"] == 1


def test_resume_refuses_another_configuration_but_allows_another_limit(tmp_path, corpus_dir):
    out = tmp_path / "run"
    run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir, limit=1, progress=False))
    run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir, limit=3, progress=False))
    with pytest.raises(ScholarbenchError, match="agent_config"):
        run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir,
                           agent_params={"k": 5}, progress=False))
    with pytest.raises(ScholarbenchError, match="mode"):
        run(ArenaRunConfig("selection", "title-bm25", out, corpus_dir, progress=False))
    with pytest.raises(ScholarbenchError, match="does not do organisation"):
        run(ArenaRunConfig("organisation", "title-bm25", tmp_path / "x", corpus_dir,
                           progress=False))


def test_qrels_variant_all_judges_unsearchable_references_too(tmp_path, corpus_dir):
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir, qrels="all",
                                 progress=False))
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}
    assert rows[S]["n_gold"] == 7 and rows[S]["R@100"] == pytest.approx(3 / 7)
    assert summary["n_unscorable"] == {} and rows[T]["R@100"] == 0.0   # T now has gold


class NoEntities:
    model_id = "none"

    def extract(self, texts):
        return [[] for _ in texts]


def test_organisation_scores_tasks_with_a_mindmap_and_counts_the_rest(tmp_path, corpus_dir):
    survey = tmp_path / "survey.jsonl"
    survey.write_text(json.dumps({
        "id": 100, "title": "Graph learning: a survey", "publicationDate": "2021-06-15",
        "references": {"influential": [1], "relevant": [3, 7, 2]},
        "typology": json.dumps({"Graph": {"Attention": None, "Contrastive": None}})}) + "\n" +
        json.dumps({"id": 300, "title": "Graph databases: a survey",
                    "references": {"relevant": [1]}, "typology": None}) + "\n")
    out = tmp_path / "run"
    emb = FakeEmbedder()
    import scholarbench.benchmarks.researcharena.measures.organisation as org
    extractor = NoEntities()
    original = org.default_entity_extractor
    org.default_entity_extractor = lambda: extractor
    try:
        summary = run(ArenaRunConfig("organisation", "cluster", out, corpus_dir,
                                     tasks_from=str(survey), progress=False), emb)
        again = score_run(out, emb, progress=False)
    finally:
        org.default_entity_extractor = original
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}
    assert summary == again
    assert summary["n_samples"] == 2 and summary["n_unscorable"] == {"no_mindmap": 1}
    assert rows["300"]["unscorable"] == "no_mindmap" and not rows["300"]["missing"]
    assert rows["100"]["mindmap_source"] == "typology"
    assert rows["100"]["tree_semantic_distance"] >= 0
    assert 0 <= rows["100"]["heading_soft_recall"]
    assert summary["metrics"]["heading_entity_recall"]["n_null"] == 1   # gold has no entity
    [gen] = _lines(out / "generate.jsonl")
    assert gen["id"] == "100" and gen["mindmap"]["children"][0]["name"] == \
        "Graph learning: a survey"


def test_citation_graph_matches_the_corpus_graph_queries(corpus_dir):
    corpus = Corpus.open(corpus_dir)
    graph = CitationGraph.of(corpus)
    for pid in corpus.get_rows([r for r in [S, T, U, A, C, G, L, N]]):
        assert graph.references(pid["paper_id"]) == corpus.references(pid["paper_id"])
        assert graph.citations(pid["paper_id"]) == corpus.citations(pid["paper_id"])


def test_citation_expand_never_walks_through_the_survey_or_later_papers(tmp_path):
    """X and Y are gold; only the survey (and a later paper) co-cite them. Y shares no query
    term, so only the graph could find it — and the graph may not use the survey."""
    from scholarbench.corpus.build import build
    from scholarbench.data.sources.records import PaperRecord
    from datetime import date

    def P(i, title, published, survey=None):
        return PaperRecord("t", (f"arxiv:20{i}",), title, "", published.year, published, survey)
    papers = {"S": P("06.00001", "Quantum walks: a survey", date(2020, 6, 1), True),
              "X": P("01.00002", "Quantum walks on graphs", date(2020, 1, 1)),
              "Y": P("01.00003", "Hitting times of Markov chains", date(2020, 1, 2)),
              "Z": P("01.00004", "Spectral bounds", date(2020, 1, 3)),
              "L": P("09.00005", "Later work", date(2020, 9, 1))}
    edges = [("S", "X"), ("S", "Y"), ("L", "X"), ("L", "Y")]

    def corpus_with(extra):
        out = tmp_path / f"c{len(extra)}"
        recs = list(papers.values()) + [EdgeRecord("reportbench", papers[a].ref(),
                                                   papers[b].ref()) for a, b in edges + extra]
        build(out, [("t", recs)], {})
        return Corpus.open(out)

    agent = CitationExpand(seeds=1, min_support=0.5, keep=0)
    query = ArenaQuery("s", "quantum walks", date(2020, 6, 1), "arxiv:2006.00001", None)
    first = corpus_with([])
    got = [pid for pid, _ in agent.generate(query, ArenaContext("discovery", first)).ranking]
    assert got == ["arxiv:2001.00002"]
    # a searchable paper (Z, before the cut-off) co-citing X and Y: now Y is found
    second = corpus_with([("Z", "X"), ("Z", "Y")])
    got = [pid for pid, _ in agent.generate(query, ArenaContext("discovery", second)).ranking]
    assert got[0] == "arxiv:2001.00002" and "arxiv:2001.00003" in got
    assert "arxiv:2009.00005" not in got and "arxiv:2006.00001" not in got


def test_cli_errors(tmp_path, corpus_dir):
    assert main(["run", "taxobench", "--agent", "cluster"]) == 2          # --mode needed
    assert main(["run", "researcharena", "--agent", "title-bm25", "--corpus",
                 str(corpus_dir)]) == 2                                   # --task needed
    assert main(["run", "researcharena", "--task", "discovery", "--agent", "nope",
                 "--corpus", str(corpus_dir), "--out", str(tmp_path / "o")]) == 2


@pytest.mark.parametrize("agent", ["title-dense", "title-hybrid"])
def test_dense_and_hybrid_title_agents_respect_the_leakage_filters(tmp_path, corpus_dir, agent):
    if not hasattr(Corpus, "search_dense") or not hasattr(Corpus, "search_hybrid"):
        pytest.skip("this Corpus has no dense / hybrid search yet")
    import shutil
    local = tmp_path / "corpus"
    shutil.copytree(corpus_dir, local)          # the dense index is written beside the corpus
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", agent, out, local, progress=False),
                  FakeEmbedder())
    assert summary["n_scored"] == 2 and summary["n_missing"] == 0
    space = SearchSpace.of(Corpus.open(local))
    for row in _lines(out / "generate.jsonl"):
        cutoff = CUTOFF_S if row["id"] == S else None
        assert row["ranking"] and all(space.searchable(pid, cutoff) and pid != row["id"]
                                      for pid, _ in row["ranking"])


def test_a_torn_last_line_is_redone_on_resume(tmp_path, corpus_dir):
    out = tmp_path / "run"
    run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir, limit=2, progress=False))
    gen = out / "generate.jsonl"
    with gen.open("a") as handle:                # a writer killed mid-line on sample U
        handle.write(json.dumps({"id": U, "ranking": [[A, 1.0]]})[:25])
    summary = run(ArenaRunConfig("discovery", "title-bm25", out, corpus_dir, progress=False))
    ids = [json.loads(x)["id"] for x in gen.read_text().splitlines()]
    assert ids == [S, U] and summary["n_missing"] == 0
