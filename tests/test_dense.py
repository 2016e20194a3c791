"""Dense and hybrid search: nearest neighbours with fixed vectors (FakeEmbedder), ties by
paper_id, persistence and rebuild-on-change, the shared search filters, RRF on hand-computed
lists, BM25 top-k identical to a full stable argsort, and one real-MiniLM check."""
from __future__ import annotations

import json
import math
from datetime import date

import numpy as np
import pytest

from conftest import FakeEmbedder, shared_path
from scholarbench.corpus.bm25 import BM25Index, top_rows
from scholarbench.corpus.build import build, build_corpus
from scholarbench.corpus.dense import BATCH, DENSE_DIRS, DenseIndex, embed_texts
from scholarbench.corpus.hybrid import rrf
from scholarbench.corpus.store import Corpus
from scholarbench.data.sources.records import PaperRecord


def ax(i: int) -> str:
    """paper_id of paper i: a DOI, except paper 4, whose arXiv id dates it (January 2021)."""
    return "arxiv:2101.00004" if i == 4 else f"doi:10.1000/p{i:03d}"


def P(i, title, abstract="", year=None, published=None):
    return PaperRecord("t", (ax(i),), title, abstract, year, published)


# query "alpha" -> [1, 0, 0]; cosine with the query: 1, 0.9939, 0, 0.6, 1, -1
PAPERS = [P(1, "Alpha networks", "First abstract.", published=date(2021, 1, 5)),
          P(2, "Beta networks: a survey", year=2021),        # a survey (its title says so)
          P(3, "Gamma alpha", year=2017),
          P(4, "Delta"),                                      # 2101.00004: January 2021
          P(5, "Epsilon", year=2010),
          P(6, "Zeta")]                                       # no date at all
VECTORS = {"alpha": [1, 0, 0], "Alpha networks": [1, 0, 0], "Beta networks: a survey": [0.9, 0.1, 0],
           "Gamma alpha": [0, 1, 0], "Delta": [0.6, 0.8, 0], "Epsilon": [1, 0, 0], "Zeta": [-1, 0, 0]}


def fake(model_id: str = "fake") -> FakeEmbedder:
    emb = FakeEmbedder(VECTORS)
    emb.model_id = model_id
    return emb


@pytest.fixture
def corpus_dir(tmp_path):
    out = tmp_path / "tiny"
    build(out, [("t", PAPERS)], {})
    return out


def ids(hits):
    return [p.paper_id for p, _ in hits]


def test_nearest_neighbours_best_first_ties_by_paper_id(corpus_dir):
    corpus = Corpus.open(corpus_dir)
    hits = corpus.search_dense("alpha", 6, fake())
    # 1 and 5 tie at cosine 1: paper_id order
    assert ids(hits) == [ax(1), ax(5), ax(2), ax(4), ax(3), ax(6)]
    assert [s for _, s in hits] == pytest.approx([1, 1, 0.9 / math.hypot(0.9, 0.1), 0.6, 0, -1],
                                                 abs=1e-6)
    assert ids(corpus.search_dense("alpha", 1, fake())) == [ax(1)]
    assert corpus.search_dense("alpha", 0, fake()) == []
    assert len(corpus.search_dense("alpha", 50, fake())) == 6   # k > papers: every paper
    with pytest.raises(ValueError, match="unknown index fields"):
        corpus.search_dense("alpha", 3, fake(), fields="abstract")


def test_many_ties_beyond_k_come_back_by_paper_id(tmp_path):
    """faiss returns *some* top-k set among equal scores; the search must not."""
    papers = [P(i, f"Same {i}") for i in range(5, 65)]
    vectors = {f"Same {i}": [1, 0] for i in range(5, 65)} | {"q": [1, 0]}
    build(tmp_path / "c", [("t", papers)], {})
    corpus = Corpus.open(tmp_path / "c")
    emb = FakeEmbedder(vectors)
    for k in (1, 5, 17, 40, 60):
        assert ids(corpus.search_dense("q", k, emb)) == [ax(i) for i in range(5, 5 + k)]
    skip = [ax(i) for i in range(5, 35, 2)]
    expected = [ax(i) for i in range(5, 65) if ax(i) not in skip][:20]
    assert ids(corpus.search_dense("q", 20, emb, exclude_ids=skip)) == expected


def test_build_embeds_in_batches_then_reuses_the_saved_index(corpus_dir):
    emb = fake()
    corpus = Corpus.open(corpus_dir)
    index = corpus.dense_index("title", emb)
    assert index.rebuilt and emb.calls == 1 and index.count == 6      # 6 titles, one batch
    corpus.search_dense("alpha", 2, emb)
    assert emb.calls == 2                                              # + the query
    meta = json.loads((corpus_dir / DENSE_DIRS["title"] / "meta.json").read_text())
    assert meta["papers_sha256"] == corpus.papers_sha256 and meta["model_id"] == "fake"
    assert meta["fields"] == "title" and meta["count"] == 6 and meta["index"] == "IndexFlatIP"
    # a new process: the saved index is loaded, nothing is embedded but the query
    emb = fake()
    again = Corpus.open(corpus_dir)
    assert not again.dense_index("title", emb).rebuilt and emb.calls == 0
    assert ids(again.search_dense("alpha", 3, emb)) == [ax(1), ax(5), ax(2)] and emb.calls == 1
    # many texts: one embed call per batch, never one per text
    counter = FakeEmbedder()
    vecs = embed_texts(counter, [f"t{i}" for i in range(10)], batch=4)
    assert counter.calls == 3 and vecs.shape == (10, counter.dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert BATCH >= 256


def test_rebuilt_when_model_fields_or_papers_change(corpus_dir):
    Corpus.open(corpus_dir).dense_index("title", fake())
    # another model
    corpus = Corpus.open(corpus_dir)
    assert corpus.dense_index("title", fake("other")).rebuilt
    assert json.loads((corpus_dir / "dense-title" / "meta.json").read_text())["model_id"] == "other"
    assert not Corpus.open(corpus_dir).dense_index("title", fake("other")).rebuilt
    # other fields: their own directory, their own texts
    emb = fake()
    corpus = Corpus.open(corpus_dir)
    ta = corpus.dense_index("title+abstract", emb)
    assert ta.rebuilt and (corpus_dir / "dense-title+abstract" / "index.faiss").is_file()
    assert "Alpha networks\nFirst abstract." in emb.vectors      # schema.index_text
    assert not Corpus.open(corpus_dir).dense_index("title+abstract", fake()).rebuilt
    # another papers file (one more paper): the stale index is rebuilt with the new count
    build(corpus_dir, [("t", PAPERS + [P(7, "Eta")])], {})
    corpus = Corpus.open(corpus_dir)
    index = corpus.dense_index("title", fake("other"))
    assert index.rebuilt and index.count == 7
    # a damaged meta file is not trusted
    (corpus_dir / "dense-title" / "meta.json").write_text("{not json")
    assert Corpus.open(corpus_dir).dense_index("title", fake("other")).rebuilt
    # the store is the only reader of the meta file's keys
    assert DenseIndex.expected_meta("s", "m", "title", 3) == {
        "papers_sha256": "s", "model_id": "m", "fields": "title", "count": 3}


def test_filters_apply_before_top_k_like_bm25(corpus_dir):
    corpus = Corpus.open(corpus_dir)
    emb = fake()
    # k counts only papers that pass: the top 2 non-surveys, not 2 minus the survey
    assert ids(corpus.search_dense("alpha", 2, emb, exclude_surveys=True)) == [ax(1), ax(5)]
    assert ids(corpus.search_dense("alpha", 3, emb, exclude_surveys=True)) == [ax(1), ax(5), ax(4)]
    assert ids(corpus.search_dense("alpha", 2, emb, exclude_ids=[ax(1), "not-an-id"])) == [
        ax(5), ax(2)]
    # before 2021-01-31: 2101.00004 (January 2021) is out, 2021-01-05 is in, undated is out
    jan = ids(corpus.search_dense("alpha", 10, emb, before=date(2021, 1, 31)))
    assert jan == [ax(1), ax(5), ax(3)]
    feb = ids(corpus.search_dense("alpha", 10, emb, before="2021-02-01"))
    assert feb == [ax(1), ax(5), ax(4), ax(3)]
    assert ids(corpus.search_dense("alpha", 10, emb, before="2020-01-01", exclude_surveys=True,
                                   exclude_ids=[ax(3)])) == [ax(5)]
    assert corpus.search_dense("alpha", 10, emb, before="1990-01-01") == []
    # the same filters admit the same papers in every search (one shared filter)
    everything = {ax(i) for i in range(1, 7)}
    for filters in ({"exclude_surveys": True}, {"before": "2021-02-01"},
                    {"before": "2018-01-01", "exclude_ids": [ax(5)]}):
        dense = set(ids(corpus.search_dense("alpha", 10, emb, **filters)))
        keep = corpus._keep(**filters)
        assert dense == {pid for pid in everything if keep[corpus._row[pid]]}
        bm25 = set(ids(corpus.search_bm25("alpha networks gamma", 10, fields="title",
                                          **filters)))
        assert bm25 <= dense


def test_rrf_hand_computed():
    fused = rrf([["d1", "d2", "d3"], ["d3", "d1", "d4"]])
    # d1: 1/61 + 1/62, d3: 1/63 + 1/61, d2: 1/62, d4: 1/63
    assert [pid for pid, _ in fused] == ["d1", "d3", "d2", "d4"]
    assert [s for _, s in fused] == pytest.approx([123 / 3782, 124 / 3843, 1 / 62, 1 / 63],
                                                  rel=1e-15, abs=0)
    # equal fused scores (bit-identical, whatever the order of the terms): by paper_id
    tie = math.fsum([1 / 61, 1 / 62])
    assert rrf([["b", "a"], ["a", "b"]]) == [("a", tie), ("b", tie)]
    assert rrf([["z", "y", "x"], ["x", "z", "y"], ["y", "x", "z"]])[0][0] == "x"
    assert rrf([["a"], ["b"]], k=0) == [("a", 1.0), ("b", 1.0)]
    assert rrf([["a", "a", "b"]]) == [("a", 1 / 61), ("b", 1 / 63)]   # first rank counts
    assert rrf([]) == [] and rrf([[], []]) == []


def test_search_hybrid_fuses_bm25_and_dense(corpus_dir):
    corpus = Corpus.open(corpus_dir)
    emb = fake()
    # BM25 "alpha" (titles): 1 and 3 tie (same tf and length) -> [1, 3]
    assert ids(corpus.search_bm25("alpha", 10, fields="title")) == [ax(1), ax(3)]
    # dense: [1, 5, 2, 4, 3, 6]; fused: 1 = 2/61, 3 = 1/62 + 1/65, 5 = 1/62, 2 = 1/63, ...
    hits = corpus.search_hybrid("alpha", 10, emb)
    assert ids(hits) == [ax(1), ax(3), ax(5), ax(2), ax(4), ax(6)]
    assert [s for _, s in hits] == [2 / 61, math.fsum([1 / 62, 1 / 65]), 1 / 62, 1 / 63,
                                    1 / 64, 1 / 66]
    assert ids(corpus.search_hybrid("alpha", 2, emb)) == [ax(1), ax(3)]
    # depth cuts each list before fusing: dense top 1 is paper 1, BM25 top 1 is paper 1
    assert [(p.paper_id, s) for p, s in corpus.search_hybrid("alpha", 10, emb, depth=1)] == [
        (ax(1), 2 / 61)]
    # filters before either list is cut
    assert ids(corpus.search_hybrid("alpha", 10, emb, exclude_ids=[ax(1)],
                                    exclude_surveys=True, before="2021-01-01")) == [ax(3), ax(5)]
    assert corpus.search_hybrid("alpha", 0, emb) == []


def test_bm25_top_k_identical_to_full_stable_argsort():
    """BM25Index.top selects with np.partition; it must give exactly the rows and scores of a
    stable argsort over every score, ties (here: most documents) by row."""
    rng = np.random.default_rng(0)
    words = ["alpha", "beta", "gamma", "delta", "omega"]
    # short titles over a tiny vocabulary: scores take only a few distinct values
    texts = [" ".join(rng.choice(words, size=int(rng.integers(1, 4)))) for _ in range(3000)]
    index = BM25Index.build(texts)
    keep = rng.random(len(texts)) < 0.7
    for query in ["alpha", "beta gamma", "alpha alpha omega", "delta beta alpha", "zzz", ""]:
        full = index.scores(query)
        for mask in (None, keep):
            scores = full.copy()
            if mask is not None:
                scores[~mask] = 0.0
            order = np.argsort(-scores, kind="stable")
            for k in (1, 7, 100, 1000, 5000):
                expected = [int(r) for r in order[:k] if scores[r] > 0]
                rows, got = index.top(query, k, mask)
                assert rows.tolist() == expected, (query, k)
                assert got.tolist() == scores[expected].tolist()
                assert top_rows(scores, k).tolist() == expected
        distinct = len(set(full[full > 0].tolist()))
        assert distinct <= 40    # the case this test is for: heavy ties
    assert top_rows(np.array([0.0, 2.0, 2.0, 1.0, 2.0]), 2).tolist() == [1, 2]
    assert top_rows(np.array([0.0, 2.0]), 0).tolist() == []


@pytest.mark.slow
def test_minilm_exact_title_retrieves_the_paper_first(tmp_path, minilm):
    src = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    build_corpus(tmp_path / "c", [src])
    corpus = Corpus.open(tmp_path / "c")
    rows = corpus._con.execute("SELECT paper_id, title FROM papers WHERE list_contains(sources, "
                               "'taxobench') ORDER BY paper_id").fetchall()
    expert = [(pid, title) for pid, title in rows if corpus.resolve(title) == pid]
    assert len(expert) > 50
    for pid, title in expert[:: max(1, len(expert) // 8)]:
        hits = corpus.search_dense(title, 3, minilm)
        assert hits[0][0].paper_id == pid, title
        assert hits[0][1] == pytest.approx(1.0, abs=1e-4)
        assert hits[0][1] > hits[1][1]
    assert corpus.dense_index("title", minilm).meta["model_id"] == "all-MiniLM-L6-v2"
    assert corpus.dense_index("title", minilm).dim == 384
