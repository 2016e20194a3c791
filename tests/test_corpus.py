"""The corpus store: build (merge, counts, manifest), DuckDB lookups, BM25 search and its index."""
from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import shared_path
from scholarbench.corpus.merge import paper_id_for
from scholarbench.corpus.store import Corpus
from scholarbench.corpus.build import build_corpus
from scholarbench.data.sources.dates import parse_year
from scholarbench.corpus.store import sha256_file
from scholarbench.data.taxobench import load_instances
from scholarbench.errors import DataError


def _tree(titles):
    return {"name": "root", "subtopics": [{"name": "all", "papers": titles}]}


def _instance(i, pdfs):
    return {"id": i, "survey": f"Survey {i}", "pdfs": [{"title": t, "abs": a} for t, a in pdfs],
            "gt": _tree([t for t, _ in pdfs])}


@pytest.fixture
def sources(tmp_path):
    inst = tmp_path / "inst.jsonl"
    rows = [
        _instance(1, [("Graph Neural Networks for Molecules", "We predict molecule properties."),
                      ("Attention Is All You Need", "The transformer."),
                      ("Deep Residual Learning", "")]),
        # same paper as above, other spelling, longer abstract: merged, this abstract kept
        _instance(2, [("Attention is all you need!", "The transformer, an architecture based "
                                                     "solely on attention mechanisms."),
                      ("Protein Folding with Language Models", "Folding proteins.")]),
    ]
    inst.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    gt = tmp_path / "reportbench" / "ReportBench_v1.1_GT"
    gt.mkdir(parents=True)
    refs_a = [{"bib_id": "a", "title": "Deep residual learning", "meta_info": {"year": "2016"}},
              {"bib_id": "b", "title": "Adam: A Method for\nStochastic Optimization",
               "meta_info": {"year": "2015b"}},
              {"bib_id": "c", "title": "Molecule generation with diffusion", "meta_info": {}}]
    refs_b = [{"bib_id": "d", "title": "Adam: a method for stochastic optimization",
               "meta_info": {"year": None}},
              {"bib_id": "e", "title": "BERT: Pre-training of Deep Bidirectional Transformers",
               "meta_info": {"year": "in press"}}]
    (gt / "2001.00001.jsonl").write_text("".join(json.dumps(r) + "\n" for r in refs_a))
    (gt / "2001.00002.jsonl").write_text("".join(json.dumps(r) + "\n" for r in refs_b))
    # the task file beside the GT folder must not be read as references
    (tmp_path / "reportbench" / "ReportBench_v1.1.jsonl").write_text('{"title": "not a ref"}\n')
    return inst, tmp_path / "reportbench"


@pytest.fixture
def corpus_dir(tmp_path, sources):
    inst, report = sources
    out = tmp_path / "corpus"
    build_corpus(out, [inst], report)
    return out


def _rows(out: Path) -> dict[str, dict]:
    table = pq.read_table(out / "papers.parquet").to_pylist()
    return {r["title"]: r for r in table}


def test_counts_merge_and_manifest(tmp_path, sources):
    inst, report = sources
    info = build_corpus(tmp_path / "c", [inst], report)
    assert info.input_records == {"reportbench": 5, "taxobench": 5}
    # 10 records: Attention x2, Deep Residual x2 (cross-source), Adam x2 (within ReportBench)
    assert info.n_papers == 7 and info.merged_duplicates == 3
    assert info.counts == {"reportbench": 4, "taxobench": 4}
    assert info.cross_source == 1
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["sha256"] == sha256_file(tmp_path / "c" / "papers.parquet") == info.sha256
    assert manifest["counts"] == info.counts and manifest["n_papers"] == 7
    assert Corpus.open(tmp_path / "c").count() == 7


def test_merged_rows(corpus_dir):
    rows = _rows(corpus_dir)
    att = rows["Attention is all you need!"]  # the longer abstract's spelling and source win
    assert att["abstract"].startswith("The transformer, an architecture")
    assert att["sources"] == ["taxobench"] and att["source"] == "taxobench"
    res = rows["Deep Residual Learning"]      # equal (empty) abstracts: first record read wins
    assert res["sources"] == ["reportbench", "taxobench"] and res["source"] == "taxobench"
    assert res["year"] == 2016                # taken from the ReportBench duplicate
    adam = rows["Adam: A Method for Stochastic Optimization"]  # line break collapsed
    assert adam["year"] == 2015 and adam["abstract"] == ""
    assert rows["BERT: Pre-training of Deep Bidirectional Transformers"]["year"] is None
    assert "not a ref" not in rows
    for title, row in rows.items():
        assert row["paper_id"] == paper_id_for(title)
    assert list(pq.read_table(corpus_dir / "papers.parquet")["paper_id"].to_pylist()) == \
        sorted(r["paper_id"] for r in rows.values())


def test_paper_id_is_stable_across_spellings():
    assert paper_id_for("Graph\u2010based  Models!") == paper_id_for("graph-based models")
    assert paper_id_for("a").startswith("title:") and len(paper_id_for("a")) == 6 + 16


def test_parse_year():
    assert [parse_year(v) for v in ("2019b", " 2017 ", "2021-04-21", "Aug. 2021", "0", "21",
                                    None, 2020, "in press")] == \
        [2019, 2017, 2021, 2021, None, None, None, 2020, None]


def test_reportbench_gt_folder_also_accepted(tmp_path, sources):
    inst, report = sources
    info = build_corpus(tmp_path / "c", [inst], report / "ReportBench_v1.1_GT")
    assert info.input_records["reportbench"] == 5


def test_reportbench_without_gt_files_is_an_error(tmp_path, sources):
    inst, _ = sources
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no ReportBench"):
        build_corpus(tmp_path / "c", [inst], tmp_path / "empty")


def test_get_by_ids(corpus_dir):
    corpus = Corpus.open(corpus_dir)
    ids = [paper_id_for("Protein folding with language models"), paper_id_for("BERT: pre-training "
                                                                             "of deep bidirectional transformers")]
    papers = corpus.get_by_ids(ids)
    assert [p.paper_id for p in papers] == ids
    assert papers[0].title == "Protein Folding with Language Models"
    assert papers[0].abstract == "Folding proteins." and papers[0].source == "taxobench"
    assert papers[1].source == "reportbench" and papers[1].abstract == ""
    assert corpus.get_by_ids([]) == []
    with pytest.raises(KeyError):
        corpus.get_by_ids(["title:0000000000000000"])


def test_open_missing_corpus(tmp_path):
    with pytest.raises(FileNotFoundError, match="build the corpus"):
        Corpus.open(tmp_path / "nope")


def test_search_exact_title_first_and_exclusion(corpus_dir):
    corpus = Corpus.open(corpus_dir)
    hits = corpus.search_bm25("Adam: A Method for Stochastic Optimization", k=3)
    assert hits[0][0].title == "Adam: A Method for Stochastic Optimization"
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    adam = paper_id_for("Adam: A Method for Stochastic Optimization")
    rest = corpus.search_bm25("Adam: A Method for Stochastic Optimization", k=3,
                              exclude_ids=[adam])
    assert adam not in [p.paper_id for p, _ in rest]
    # only papers sharing a term are returned; stopwords and unknown words match nothing
    assert corpus.search_bm25("the of and", k=5) == []
    assert corpus.search_bm25("zyxwvut", k=5) == []
    assert corpus.search_bm25("transformer", k=0) == []
    assert len(corpus.search_bm25("learning deep molecules language", k=2)) == 2


def test_equal_scores_ordered_by_paper_id(tmp_path):
    inst = tmp_path / "i.jsonl"
    titles = ["Alpha beta gamma", "Gamma beta alpha", "Beta gamma alpha", "Unrelated delta"]
    inst.write_text(json.dumps(_instance(1, [(t, "") for t in titles])) + "\n")
    build_corpus(tmp_path / "c", [inst], None)
    hits = Corpus.open(tmp_path / "c").search_bm25("alpha", k=10)
    assert len(hits) == 3 and len({s for _, s in hits}) == 1
    assert [p.paper_id for p, _ in hits] == sorted(paper_id_for(t) for t in titles[:3])


def test_index_reused_then_rebuilt_when_parquet_changes(corpus_dir):
    index_files = sorted((corpus_dir / "bm25").iterdir())
    stamps = {p.name: p.stat().st_mtime_ns for p in index_files}
    first = Corpus.open(corpus_dir)
    second = Corpus.open(corpus_dir)
    assert not first.index_rebuilt and not second.index_rebuilt  # built by build_corpus
    assert {p.name: p.stat().st_mtime_ns for p in (corpus_dir / "bm25").iterdir()} == stamps

    # drop the Adam paper from the Parquet file behind the store's back
    table = pq.read_table(corpus_dir / "papers.parquet")
    keep = [t != "Adam: A Method for Stochastic Optimization" for t in table["title"].to_pylist()]
    pq.write_table(table.filter(keep), corpus_dir / "papers.parquet")
    changed = Corpus.open(corpus_dir)
    assert changed.index_rebuilt and changed.count() == 6
    hits = changed.search_bm25("Adam stochastic optimization", k=5)
    assert all("Adam" not in p.title for p, _ in hits)
    meta = json.loads((corpus_dir / "bm25" / "scholarbench_meta.json").read_text())
    assert meta["papers_sha256"] == sha256_file(corpus_dir / "papers.parquet")
    assert not Corpus.open(corpus_dir).index_rebuilt


def test_missing_index_is_rebuilt(corpus_dir):
    import shutil
    shutil.rmtree(corpus_dir / "bm25")
    corpus = Corpus.open(corpus_dir)
    assert corpus.index_rebuilt
    assert corpus.search_bm25("Deep Residual Learning", k=1)[0][0].title == "Deep Residual Learning"


def test_build_is_deterministic(tmp_path, sources):
    inst, report = sources
    a = build_corpus(tmp_path / "a", [inst], report)
    b = build_corpus(tmp_path / "b", [inst], report)
    assert a.sha256 == b.sha256


# ---- the real shared data ------------------------------------------------------------------

@pytest.fixture(scope="module")
def shared_corpus(tmp_path_factory):
    taxo = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    report = shared_path("data", "reportbench")
    out = tmp_path_factory.mktemp("shared-corpus")
    return build_corpus(out, [taxo], report), taxo


def test_shared_corpus_counts(shared_corpus):
    info, taxo = shared_corpus
    # 5 instances with 38+38+43+50+57 distinct expert papers; 16,204 ReportBench references
    assert info.input_records == {"taxobench": 226, "reportbench": 16204}
    assert info.counts["taxobench"] == 226
    # 14,188 when records merged on titles only; sharing an arXiv id or DOI now merges 8 more
    # (e.g. "SqueezeNet … <0.5MB" spelt two ways, a paper retitled between arXiv versions)
    assert info.n_papers == 14180 and info.merged_duplicates == 16204 + 226 - 14180
    assert info.cross_source == 14
    con = duckdb.connect()
    with_abstract = con.execute("SELECT count(*) FROM read_parquet(?) WHERE abstract <> ''",
                                [str(info.path / "papers.parquet")]).fetchone()[0]
    # the 226 TaxoBench papers plus 685 ReportBench references whose BibTeX has an abstract
    assert with_abstract == 911
    # build_corpus reads the GT lists, not the task file, so no survey (citing end) is known
    assert info.n_edges == 0 and info.manifest["edges"]["total"] == {
        "read": 16204, "unresolved": 16204, "unresolved_citing": 16204}


def test_shared_corpus_exact_title_search(shared_corpus):
    info, taxo = shared_corpus
    corpus = Corpus.open(info.path)
    assert not corpus.index_rebuilt
    con = duckdb.connect()
    refs = [r[0] for r in con.execute(
        "SELECT title FROM read_parquet(?) WHERE abstract = '' ORDER BY paper_id LIMIT 200",
        [str(info.path / "papers.parquet")]).fetchall()]
    for title in refs:  # title-only papers: an exact-title query always finds them first
        assert corpus.search_bm25(title, k=1)[0][0].title == title
    # Papers with an abstract are ~20x longer than the title-only distractors, and BM25's length
    # normalisation (b=0.75) lets a short title sharing a few words outrank them: measured
    # 175/226 first and 208/226 in the top 5 (122 and 182 before ReportBench references kept
    # their BibTeX abstracts). These bounds pin that known weakness.
    tasks = load_instances(taxo)
    ranks = []
    for task in tasks:
        for paper in task.papers:
            ids = [p.paper_id for p, _ in corpus.search_bm25(paper.title, k=5)]
            pid = corpus.resolve(paper.title)  # 10 of them are named by an arXiv id or DOI now
            ranks.append(ids.index(pid) if pid in ids else None)
    assert sum(r == 0 for r in ranks) / len(ranks) > 0.5
    assert sum(r is not None for r in ranks) / len(ranks) > 0.75
    # excluding the best hit removes it and moves the others up
    hits = corpus.search_bm25(tasks[0].topic, k=6)
    rest = corpus.search_bm25(tasks[0].topic, k=5, exclude_ids=[hits[0][0].paper_id])
    assert [p.paper_id for p, _ in rest] == [p.paper_id for p, _ in hits[1:]]
