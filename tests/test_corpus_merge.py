"""Merging records into papers and linking edges / paragraphs, on tiny hand-written inputs."""
from __future__ import annotations

import json
from datetime import date

import pyarrow.parquet as pq
import pytest

from scholarbench.corpus.build import build
from scholarbench.corpus.link import AMBIGUOUS, LinkStats, Resolver, link_edges, make_stubs
from scholarbench.corpus.merge import merge_records, paper_id_for
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, ParagraphRecord, Ref

AX = "arxiv:2101.00001"
DOI = "doi:10.1000/deep"


def P(source, ids=(), title="", abstract="", year=None, published=None, survey=None, cat=None):
    return PaperRecord(source, tuple(ids), title, abstract, year, published, survey, cat)


def test_same_paper_by_arxiv_id_in_one_source_and_doi_plus_title_in_another():
    records = [
        P("arxiv", [AX], "deep nets for graphs", year=2021, cat="cs.LG"),
        P("journal", [DOI], "Deep Nets for Graphs", "A long abstract.", 2022,
          date(2022, 3, 1)),
        P("other", [], "Unrelated paper"),
    ]
    papers, stats, assigned = merge_records(records)
    assert stats.papers == 2 and stats.merged == 1 and stats.title_merges_refused == 0
    merged = papers[0]
    assert merged.ids == [AX, DOI] and merged.paper_id == AX    # arXiv id first, then DOI
    assert merged.sources == ["arxiv", "journal"]
    assert merged.title == "Deep Nets for Graphs"                # not the lower-cased spelling
    assert merged.source == "journal" and merged.abstract == "A long abstract."
    assert merged.year == 2021 and merged.published == date(2022, 3, 1)  # earliest of each
    assert merged.category == "cs.LG" and merged.is_survey is None
    assert merged.keys == [AX, DOI, "title:deep nets for graphs"]
    assert papers[1].paper_id == paper_id_for("Unrelated paper")  # no id: the title hash
    assert assigned == [AX, AX, paper_id_for("unrelated paper")]


def test_ids_chain_records_and_untitled_records_only_add_ids():
    records = [
        P("s2", ["s2corpus:1", "doi:10.1000/x"], "A Paper"),
        P("s2", ["s2corpus:1"], "", "Its abstract, from an id-only record."),
        P("oa", ["openalex:W9", "doi:10.1000/x"], "A paper (preprint title)"),
        P("s2", ["s2corpus:2"], "", "nobody has this corpus id"),
        P("s2", [], ""),
    ]
    papers, stats, _ = merge_records(records)
    assert len(papers) == 1
    assert papers[0].ids == ["doi:10.1000/x", "openalex:W9", "s2corpus:1"]
    assert papers[0].abstract == "Its abstract, from an id-only record."
    assert papers[0].title == "A Paper"                       # equal abstracts: first read wins
    assert set(papers[0].keys) >= {"title:a paper", "title:a paper preprint title"}
    assert stats.untitled_unmatched == {"s2": 2} and stats.merged == 2


def test_same_title_with_different_ids_stays_two_papers():
    records = [
        P("g", ["arxiv:2011.00931"], "Point Transformer"),
        P("g", ["arxiv:2012.09164"], "Point transformer"),
        P("refs", [], "Point Transformer", year=2021),           # joins the first compatible one
        P("refs", ["doi:10.1000/pt"], "Point Transformer."),     # different kinds: no conflict
    ]
    papers, stats, assigned = merge_records(records)
    assert stats.title_merges_refused == 1
    assert [p.paper_id for p in papers] == ["arxiv:2011.00931", "arxiv:2012.09164"]
    assert papers[0].ids == ["arxiv:2011.00931", "doi:10.1000/pt"] and papers[0].year == 2021
    assert assigned == ["arxiv:2011.00931", "arxiv:2012.09164", "arxiv:2011.00931",
                        "arxiv:2011.00931"]
    # a title two papers share resolves to neither, unless the ref's ids pick one
    resolver = Resolver(papers)
    assert resolver.resolve(Ref((), "point transformer")) == AMBIGUOUS
    assert resolver.resolve(Ref(("arxiv:2012.09164",), "x")) == "arxiv:2012.09164"
    assert resolver.resolve(Ref(("arxiv:1999.00001",), "Point Transformer")) is None  # conflict
    # ... and a record's own ref follows its merge even though its title is ambiguous
    resolver = Resolver(papers, records, assigned)
    assert resolver.resolve(records[2].ref()) == "arxiv:2011.00931"


def test_ids_always_merge_and_unrelated_titles_are_counted():
    records = [P("a", ["arxiv:2202.07101"], "Designing Effective Sparse Expert Models"),
               P("b", ["arxiv:2202.07101"], "A Survey on Dynamic Neural Networks for NLP"),
               P("c", ["arxiv:2202.07101"], "A survey on dynamic networks (v2 title)")]
    papers, stats, _ = merge_records(records)
    # each record is compared with the first record holding the id
    assert len(papers) == 1 and stats.id_merges_unrelated_titles == 2
    assert stats.unrelated_examples[0]["key"] == "arxiv:2202.07101"


def test_choice_rules_are_deterministic_under_ties():
    records = [P("x", [], "graph nets", "ab"), P("y", [], "Graph Nets", "ab"),
               P("z", [], "GRAPH NETS!", "abc", survey=True)]
    papers, _, _ = merge_records(records)
    (paper,) = papers
    assert paper.title == "GRAPH NETS!" and paper.source == "z"  # cased, longest abstract
    assert paper.is_survey is True and paper.sources == ["x", "y", "z"]
    papers2, _, _ = merge_records(records[:2])
    assert papers2[0].title == "Graph Nets"                       # cased beats lower-cased


def test_title_that_normalises_to_nothing_is_untitled():
    papers, stats, _ = merge_records([P("x", [], "!!!"), P("x", [], "Real title")])
    assert [p.title for p in papers] == ["Real title"]
    assert stats.untitled_unmatched == {"x": 1}


# ---- edges --------------------------------------------------------------------------------

def _papers(*records):
    papers, _, assigned = merge_records(list(records))
    return papers, Resolver(papers, list(records), assigned)


def test_edges_rewritten_deduplicated_self_loops_and_unresolved_counted():
    a = P("g", ["arxiv:2101.00001"], "Paper A")
    a_copy = P("g", ["ogbn:5"], "paper a")                       # the same paper, another node
    b = P("g", ["arxiv:2101.00002"], "Paper B")
    papers, resolver = _papers(a, a_copy, b)
    edges = [
        EdgeRecord("g", a.ref(), b.ref()),
        EdgeRecord("g", a_copy.ref(), b.ref()),                  # duplicate after the merge
        EdgeRecord("g", a.ref(), a_copy.ref()),                  # self-loop after the merge
        EdgeRecord("g", b.ref(), b.ref()),                       # self-loop in the input
        EdgeRecord("h", a.ref(), b.ref()),                       # duplicate from another source
        EdgeRecord("h", b.ref(), Ref(("openalex:W1",))),         # no paper, no title
        EdgeRecord("h", Ref(("s2corpus:9",)), a.ref()),          # no paper, no title
    ]
    stats = LinkStats()
    rows = link_edges(edges, resolver, stats)
    assert rows == [("arxiv:2101.00001", "arxiv:2101.00002", "g")]
    assert stats.edges == {
        "g": {"read": 4, "kept": 1, "duplicates": 1, "self_loops": 2},
        "h": {"read": 3, "duplicates": 1, "unresolved": 2, "unresolved_cited": 1,
              "unresolved_citing": 1}}


def test_titled_unresolved_ends_become_stubs():
    a = P("g", ["arxiv:2101.00001"], "Paper A")
    papers, resolver = _papers(a)
    edges = [EdgeRecord("s2", a.ref(), Ref(("s2corpus:7",), "Cited Only Here", 2001)),
             EdgeRecord("s2", a.ref(), Ref((), "cited only here")),  # the same stub, by title
             EdgeRecord("s2", a.ref(), Ref((), "Another cited work"))]
    stubs, n = make_stubs(edges, resolver)
    assert n == 3 and [s.paper_id for s in stubs] == ["s2corpus:7",
                                                      paper_id_for("Another cited work")]
    assert all(s.stub for s in stubs) and stubs[0].year == 2001
    resolver.add(stubs)
    stats = LinkStats()
    rows = link_edges(edges, resolver, stats)
    assert [r[1] for r in rows] == ["s2corpus:7", paper_id_for("another cited work")]
    assert stats.edges["s2"] == {"read": 3, "kept": 2, "duplicates": 1}


# ---- whole build on tiny streams ------------------------------------------------------------

def test_build_manifest_counts_and_tables(tmp_path):
    a = P("one", ["arxiv:2101.00001"], "Paper A", "Abstract of A.", 2021)
    b = P("two", ["doi:10.1000/b"], "Paper B: A Survey", "", 2019)
    c = P("two", [], "Paper C", "", 2018)
    streams = [
        ("one", [a, EdgeRecord("one", a.ref(), Ref(("doi:10.1000/b",)))]),
        ("two", [b, c, EdgeRecord("two", b.ref(), c.ref()),
                 EdgeRecord("two", b.ref(), Ref(("openalex:W5",))),
                 EdgeRecord("two", c.ref(), Ref((), "A Stub Title")),
                 ParagraphRecord("two", b.ref(), "Intro", 0, "As shown [1, 2].",
                                 (c.ref(), Ref(("openalex:W5",)), Ref(()))),
                 ParagraphRecord("two", Ref(("doi:10.1000/nope",)), "X", 0, "lost")]),
    ]
    info = build(tmp_path / "c", streams, {"note": "tiny"}, absent=["arxiv2023"])
    assert info.n_papers == 4 and info.n_edges == 3 and info.n_paragraphs == 1
    assert info.counts == {"one": 1, "two": 2} and info.input_records == {"one": 1, "two": 2}
    m = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert m["absent_sources"] == ["arxiv2023"] and m["format_version"] == 2
    assert m["stubs"] == {"papers": 1, "records": 1}
    assert m["edges"]["total"] == {"kept": 3, "read": 4, "unresolved": 1, "unresolved_cited": 1}
    assert m["paragraphs"]["total"] == {"kept": 1, "read": 2, "unresolved": 1}
    assert m["citations"] == {"two": {"no_id": 1, "resolved": 1, "unresolved": 1}}
    assert m["surveys"] == {"flagged_by_source": 0, "flagged_by_text": 1}
    for name in ("papers.parquet", "edges.parquet", "paragraphs.parquet", "ids.parquet"):
        assert m["files"][name]["rows"] == pq.read_metadata(tmp_path / "c" / name).num_rows
    papers = {r["title"]: r for r in pq.read_table(tmp_path / "c" / "papers.parquet").to_pylist()}
    assert papers["Paper B: A Survey"]["is_survey"] and not papers["Paper A"]["is_survey"]
    assert papers["A Stub Title"]["stub"] and papers["A Stub Title"]["sources"] == ["two"]
    assert papers["Paper A"]["published"] is None and papers["Paper A"]["ids"] == [
        "arxiv:2101.00001"]
    para = pq.read_table(tmp_path / "c" / "paragraphs.parquet").to_pylist()[0]
    assert para["cited"] == [paper_id_for("Paper C")]
    assert para["cited_unresolved"] == ["openalex:W5"] and para["section"] == "Intro"
    edges = pq.read_table(tmp_path / "c" / "edges.parquet").to_pylist()
    assert [(e["citing"], e["cited"]) for e in edges] == sorted(
        (e["citing"], e["cited"]) for e in edges)
    keys = {r["key"]: r["paper_id"] for r in pq.read_table(tmp_path / "c" /
                                                            "ids.parquet").to_pylist()}
    assert keys["doi:10.1000/b"] == "doi:10.1000/b" and keys["title:paper a"] == \
        "arxiv:2101.00001"


def test_build_is_deterministic_and_refuses_an_empty_corpus(tmp_path):
    recs = [P("s", [f"arxiv:2101.0000{i}"], f"Paper {i}") for i in range(1, 6)]
    a = build(tmp_path / "a", [("s", recs)], {})
    b = build(tmp_path / "b", [("s", list(recs))], {})
    assert a.manifest["files"] == b.manifest["files"]
    with pytest.raises(ValueError, match="no papers"):
        build(tmp_path / "e", [("s", [P("s", ["s2corpus:1"])])], {})
