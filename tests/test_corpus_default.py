"""The default corpus built from every source in ../shared/data, with the counts measured there,
and the same build from a user's data directory filled by `data import`."""
from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from conftest import shared_path
from scholarbench.corpus.build import build_default_corpus
from scholarbench.corpus.store import Corpus
from scholarbench.data.store import import_dataset, list_datasets
from scholarbench.errors import DataError, ScholarbenchError


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("default-corpus")
    info = build_default_corpus(out, shared_path("data"))
    return info, Corpus.open(out)


def test_inputs_and_merges(full):
    info, _ = full
    m = info.manifest
    assert m["absent_sources"] == []
    assert info.input_records == {  # paper records read, before merging
        "arxiv2023": 33868, "deep-review": 615, "openalex": 53, "reportbench": 16204,
        "reportbench-surveys": 100, "s2ag": 303, "taxobench": 226, "unarxive": 49}
    assert m["read"]["arxiv2023"] == {"papers": 33868, "edges": 305672}
    assert m["merge"] == {
        "paper_records": 51418, "papers": 43217, "merged": 8001, "title_merges_refused": 13,
        "id_merges_unrelated_titles": 2, "unrelated_examples": m["merge"]["unrelated_examples"],
        "untitled_unmatched": {"s2ag": 200}}  # S2 abstracts / paper-ids of papers not sampled
    assert info.counts == {  # distinct papers per source after merging
        "arxiv2023": 30258, "deep-review": 612, "openalex": 52, "reportbench": 13965,
        "reportbench-surveys": 100, "s2ag": 103, "taxobench": 226, "unarxive": 49}
    # 33,868 graph nodes are 30,258 papers: 3,610 nodes merge into others, nearly all of them
    # ogbn nodes that are arXiv nodes under a lower-cased title (3,605 such title pairs)
    assert info.cross_source == 2109
    assert m["stubs"] == {"papers": 91, "records": 91}  # S2ORC bib entries with titles
    assert info.n_papers == 43217 + 91 == 43308


def test_edges(full):
    info, _ = full
    e = info.manifest["edges"]["by_source"]
    # 305,672 graph edges: 17 self-loops in the file plus 3 made by merging a node with its
    # ogbn twin; 280,419 distinct pairs remain, 173 of which ReportBench (read first) already
    # gave, so 25,233 + 173 = 25,406 are counted as duplicates here
    assert e["arxiv2023"] == {"read": 305672, "kept": 280246, "self_loops": 20,
                              "duplicates": 25406}
    assert e["reportbench"] == {"read": 16204, "kept": 15053, "duplicates": 1151}
    assert e["deep-review"] == {"read": 615, "kept": 611, "duplicates": 3, "unresolved": 1,
                                "unresolved_cited": 1}
    # OpenAlex / unarXive references carry ids but no titles: only those naming a corpus paper
    assert e["openalex"] == {"read": 1177, "kept": 4, "unresolved": 1173,
                             "unresolved_cited": 1173}
    assert e["unarxive"] == {"read": 1786, "kept": 25, "unresolved": 1761,
                             "unresolved_cited": 1761}
    assert e["s2ag"] == {"read": 213, "kept": 95, "unresolved": 118, "unresolved_cited": 18,
                         "unresolved_citing": 100}
    assert info.n_edges == 296034 == sum(row.get("kept", 0) for row in e.values())
    total = info.manifest["edges"]["total"]
    assert total["read"] == total["kept"] + total["self_loops"] + total["duplicates"] + \
        total["unresolved"]


def test_paragraphs_and_files(full):
    info, _ = full
    m = info.manifest
    assert m["paragraphs"]["by_source"] == {
        "deep-review": {"read": 253, "kept": 253},
        "s2ag": {"read": 252, "kept": 173, "unresolved": 79},  # contexts of unsampled papers
        "unarxive": {"read": 5928, "kept": 5928}}
    assert info.n_paragraphs == 6354
    assert m["citations"]["unarxive"] == {"resolved": 30, "unresolved": 1250, "no_id": 1496}
    assert {k: v["rows"] for k, v in m["files"].items()} == {
        "papers.parquet": 43308, "edges.parquet": 296034, "paragraphs.parquet": 6354,
        "ids.parquet": 83151}
    assert m["surveys"] == {"flagged_by_source": 101, "flagged_by_text": 1695}


def test_queries_on_the_real_graph(full):
    _, corpus = full
    assert not corpus.index_rebuilt
    survey = corpus.resolve("arXiv:2003.00653v3")
    assert survey == "arxiv:2003.00653"
    (row,) = corpus.get_rows([survey])
    assert row["sources"] == ["arxiv2023", "reportbench-surveys"] and row["is_survey"]
    assert len(corpus.references(survey)) == 96  # 98 GT lines, 2 repeats
    attention = corpus.resolve("Attention is all you need")
    assert attention == "arxiv:1706.03762" == corpus.resolve("ogbn:41480")
    assert len(corpus.citations(attention)) == 766
    assert corpus.co_cited(attention, 3) == [("arxiv:1810.04805", 270),
                                             ("arxiv:1412.6980", 227),
                                             ("arxiv:1409.0473", 187)]
    assert corpus.coupled(survey, 1) == [("arxiv:1812.04202", 17)]
    review = corpus.resolve("https://doi.org/10.1098/rsif.2017.0387")
    assert len(corpus.references(review)) == 611 and len(corpus.paragraphs(review)) == 253
    assert corpus.resolve("W2741809807") == "doi:10.7717/peerj.4375"
    assert corpus.resolve("Point Transformer") is None  # two arXiv papers share the title
    assert len(corpus.resolve_all("Point Transformer")) == 2
    hits = corpus.search_bm25("graph adversarial attacks defenses", 20, fields="title",
                              before="2020-03-01", exclude_surveys=True)
    assert len(hits) == 20 and survey not in [p.paper_id for p, _ in hits]
    assert all("survey" not in p.title.lower() for p, _ in hits)


def test_user_data_dir_layout(tmp_path, full):
    """`data import` each source, then build from the data directory (arxiv2023 is validated
    and copied but left out of this build to keep the test fast)."""
    data = tmp_path / "data"
    root = shared_path("data")
    import_dataset("taxobench", root / "taxobench", data)
    entry = import_dataset("reportbench", root / "reportbench", data)
    assert entry["files"]["gt"] == {"files": 100} and entry["files"]["tasks"]["surveys"] == 100
    for name, folder in (("unarxive", "unarxive_sample"), ("s2ag", "s2ag_samples"),
                         ("openalex", "openalex_samples"),
                         ("deep-review", "survey_source_deep_review")):
        import_dataset(name, root / folder, data)
    entry = import_dataset("arxiv2023", root / "arxiv2023_citation_graph", data)
    assert entry["files"]["records"] == {"papers": 33868, "edges": 305672, "paragraphs": 0}
    assert (data / "arxiv2023" / "PROVENANCE.md").is_file()  # provenance travels with it
    assert any("arxiv2023/records: papers=33868" in line for line in list_datasets(data))
    shutil.rmtree(data / "arxiv2023")
    info = build_default_corpus(tmp_path / "corpus", data)
    assert info.manifest["absent_sources"] == ["arxiv2023"]
    full_info, _ = full
    for source in ("taxobench", "reportbench", "reportbench-surveys", "unarxive", "s2ag",
                   "openalex", "deep-review"):
        assert info.input_records[source] == full_info.input_records[source]
    assert info.manifest["edges"]["by_source"]["deep-review"]["kept"] == 611
    con = duckdb.connect()
    toy = con.execute("SELECT count(*) FROM read_parquet(?) WHERE title = 'Agent Tool Use'",
                      [str(tmp_path / "corpus" / "papers.parquet")]).fetchone()[0]
    assert toy == 0  # the upstream toy fixture was imported but is not a corpus source


def test_import_errors(tmp_path):
    with pytest.raises(ScholarbenchError, match="unknown dataset"):
        import_dataset("nope", tmp_path, tmp_path / "data")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScholarbenchError, match="not a arxiv2023 folder"):
        import_dataset("arxiv2023", tmp_path / "empty", tmp_path / "data")
    bad = tmp_path / "oa"
    bad.mkdir()
    (bad / "w.json").write_text(json.dumps({"id": "not-a-work-id"}))
    with pytest.raises(DataError, match="field 'id'"):
        import_dataset("openalex", bad, tmp_path / "data")


def test_no_source_at_all(tmp_path):
    with pytest.raises(FileNotFoundError, match="no corpus source"):
        build_default_corpus(tmp_path / "c", tmp_path)
