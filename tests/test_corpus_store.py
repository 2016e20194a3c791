"""Corpus API: resolve every id spelling, graph queries on a tiny graph with hand-computed
answers, search filters (before a date, no surveys), paragraphs, first-format corpora."""
from __future__ import annotations

from datetime import date

import pyarrow.parquet as pq
import pytest

from scholarbench.corpus.build import build, build_corpus
from scholarbench.corpus.merge import paper_id_for
from scholarbench.corpus.store import Corpus
from scholarbench.data.sources.dates import latest_date
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, ParagraphRecord, Ref


def ax(i: int) -> str:
    return f"arxiv:2101.{i:05d}"


def P(ids, title, abstract="", year=None, published=None, survey=None):
    return PaperRecord("t", tuple(ids), title, abstract, year, published, survey)


# Six papers; 1 cites 3, 4, 5; 2 cites 3, 4; 6 cites 3, 5.
#   references(1) = 3, 4, 5            citations(3) = 1, 2, 6
#   co_cited(3): 1 -> 4, 5; 2 -> 4; 6 -> 5      => (4, 2), (5, 2)   (tie: by paper_id)
#   co_cited(4): 1 -> 3, 5; 2 -> 3              => (3, 2), (5, 1)
#   coupled(1): 3 <- 2, 6; 4 <- 2; 5 <- 6        => (2, 2), (6, 2)
#   coupled(2): 3 <- 1, 6; 4 <- 1                => (1, 2), (6, 1)
CITES = {1: [3, 4, 5], 2: [3, 4], 6: [3, 5]}
PAPERS = [
    P([ax(1), "doi:10.1000/one", "openalex:W11", "s2corpus:11",
       "s2:" + "a" * 40, "ogbn:11", "pmid:11", "pmcid:PMC11", "mag:11"],
      "Graph neural networks for molecules", "We learn on molecular graphs.",
      published=date(2021, 1, 5)),
    P([ax(2)], "Graph neural networks: a survey", year=2021),
    P([ax(3)], "Message passing on graphs", year=2017),
    P([ax(4)], "Molecule generation with graphs"),                      # date from the id
    P([], "Graph kernels", year=2010),
    P([ax(6)], "Point Transformer", year=2020),
    P(["arxiv:2012.09164"], "Point transformer", year=2020),           # same title, other id
    P([], "Undated graph paper"),                                        # no date at all
    P(["doi:10.1000/rev"], "Learning on graphs", "In this review we cover graph learning.",
      2015),
]


def _refs():
    by_index = {i + 1: PAPERS[i].ref() for i in range(6)}
    return [EdgeRecord("t", by_index[a], by_index[b]) for a, cited in CITES.items()
            for b in cited]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    paras = [ParagraphRecord("t", PAPERS[0].ref(), "Intro", 1, "Second [3].", (PAPERS[2].ref(),)),
             ParagraphRecord("t", PAPERS[0].ref(), "Intro", 0, "First [4, x].",
                             (PAPERS[3].ref(), Ref(("openalex:W99",))))]
    build(out, [("t", PAPERS + _refs() + paras)], {})
    return Corpus.open(out)


def test_resolve_every_spelling(corpus):
    one = ax(1)
    for spelling in ["arXiv:2101.00001v3", "https://arxiv.org/abs/2101.00001",
                     "https://arxiv.org/pdf/2101.00001v2.pdf", "2101.00001",
                     "https://doi.org/10.1000/ONE", "doi:10.1000/one", "10.1000/one",
                     "W11", "https://openalex.org/W11", "https://api.openalex.org/works/w11",
                     "CorpusId:11", "a" * 40, "https://www.semanticscholar.org/paper/" + "a" * 40,
                     "ogbn:11", "pmid:11", "pmcid:PMC11", "PMCID:11", "mag:11",
                     "Graph Neural Networks for Molecules.", "title:graph neural networks for "
                     "molecules", one]:
        assert corpus.resolve(spelling) == one, spelling
    assert corpus.resolve(paper_id_for("Graph kernels")) == paper_id_for("graph kernels")
    assert corpus.resolve("Graph Kernels") == paper_id_for("Graph kernels")
    assert corpus.resolve("arXiv:1999.99999") is None and corpus.resolve("No such paper") is None
    # a title two papers share names neither; resolve_all lists both
    assert corpus.resolve("Point Transformer") is None
    assert corpus.resolve_all("point transformer") == ["arxiv:2012.09164", ax(6)]


def test_graph_queries_hand_computed(corpus):
    assert corpus.references(ax(1)) == [ax(3), ax(4), paper_id_for("Graph kernels")]
    assert corpus.citations(ax(3)) == [ax(1), ax(2), ax(6)]
    assert corpus.references(ax(3)) == [] and corpus.citations(ax(1)) == []
    g5 = paper_id_for("Graph kernels")
    assert corpus.co_cited(ax(3), 10) == sorted([(ax(4), 2), (g5, 2)])
    assert corpus.co_cited(ax(3), 1) == [(ax(4), 2)]
    assert corpus.co_cited(ax(4)) == [(ax(3), 2), (g5, 1)]
    assert corpus.coupled(ax(1)) == [(ax(2), 2), (ax(6), 2)]
    assert corpus.coupled(ax(2)) == [(ax(1), 2), (ax(6), 1)]
    assert corpus.coupled(ax(3)) == [] and corpus.co_cited(ax(1), 0) == []
    with pytest.raises(KeyError, match="not a paper_id"):
        corpus.references("arxiv:1999.99999")


def test_paragraphs(corpus):
    paras = corpus.paragraphs(ax(1))
    assert [(p.position, p.text) for p in paras] == [(0, "First [4, x]."), (1, "Second [3].")]
    assert paras[0].cited == [ax(4)] and paras[0].cited_unresolved == ["openalex:W99"]
    assert paras[1].cited == [ax(3)] and paras[0].section == "Intro"
    assert corpus.paragraphs(ax(2)) == []


def test_latest_date_rule():
    assert latest_date(date(2021, 1, 5), ["arxiv:2101.00001"], 2021) == date(2021, 1, 5)
    assert latest_date(None, ["doi:x", "arxiv:2102.00001"], 2020) == date(2021, 2, 28)
    assert latest_date(None, ["arxiv:cs/0112017"], None) == date(2001, 12, 31)
    assert latest_date(None, [], 2010) == date(2010, 12, 31)
    assert latest_date(None, None, None) is None


def _titles(hits):
    return [p.title for p, _ in hits]


def test_search_filters_apply_before_top_k(corpus):
    # (no stemming: "graph" and "graphs" are different terms)
    everything = _titles(corpus.search_bm25("graph graphs", 20, fields="title"))
    assert len(everything) == 7 and "Undated graph paper" in everything
    # surveys: one says so in its title, one in its abstract
    no_surveys = _titles(corpus.search_bm25("graph graphs", 20, fields="title+abstract",
                                            exclude_surveys=True))
    assert "Graph neural networks: a survey" not in no_surveys
    assert "Learning on graphs" not in no_surveys and len(no_surveys) == 5
    # k counts only papers that pass: the top 2 non-surveys, not 2 minus the surveys
    top2 = corpus.search_bm25("graph", 2, fields="title", exclude_surveys=True)
    assert len(top2) == 2 and "Graph neural networks: a survey" not in _titles(top2)
    # before 2021-01-31: 2101.00004 (known only as Jan 2021) is out, 2021-01-05 is in;
    # "Undated graph paper" is always out once a cut-off is given
    jan = _titles(corpus.search_bm25("graph graphs molecule molecules", 20, fields="title",
                                     before=date(2021, 1, 31)))
    assert "Graph neural networks for molecules" in jan
    assert "Molecule generation with graphs" not in jan and "Undated graph paper" not in jan
    feb = _titles(corpus.search_bm25("graph graphs molecule molecules", 20, fields="title",
                                     before="2021-02-01"))
    assert "Molecule generation with graphs" in feb
    # a paper known only by its year: a 2015 paper is not before 2015-06-01, a 2010 one is;
    # an arXiv id beats the year (2101.00002, year 2021, is known to be from January 2021)
    june = _titles(corpus.search_bm25("graph graphs", 20, fields="title", before="2015-06-01"))
    assert "Learning on graphs" not in june and "Graph kernels" in june
    june = _titles(corpus.search_bm25("graph graphs", 20, fields="title", before="2021-06-01"))
    assert "Graph neural networks: a survey" in june and "Learning on graphs" in june
    both = _titles(corpus.search_bm25("graph graphs", 20, fields="title", before="2016-01-01",
                                      exclude_surveys=True, exclude_ids=[ax(3)]))
    assert both == ["Graph kernels"]


def test_rows_carry_every_column(corpus):
    (row,) = corpus.get_rows([ax(1)])
    assert row["ids"][0] == ax(1) and row["published"] == date(2021, 1, 5)
    assert row["sources"] == ["t"] and row["is_survey"] is False and row["stub"] is False
    assert ax(1) in corpus and "nope" not in corpus


def test_first_format_corpus_still_opens(tmp_path):
    """A corpus written by the first builder had papers.parquet and no ids, edges, flags."""
    inst = tmp_path / "i.jsonl"
    inst.write_text('{"id": 1, "survey": "s", "pdfs": [{"title": "Alpha beta", "abs": ""}, '
                    '{"title": "Beta gamma: a survey", "abs": ""}], "gt": {"name": "r", '
                    '"papers": ["Alpha beta"]}}\n')
    out = tmp_path / "c"
    build_corpus(out, [inst])
    table = pq.read_table(out / "papers.parquet").select(
        ["paper_id", "title", "abstract", "norm_title", "source", "sources", "year"])
    pq.write_table(table, out / "papers.parquet")
    for name in ("edges.parquet", "paragraphs.parquet", "ids.parquet"):
        (out / name).unlink()
    corpus = Corpus.open(out)
    assert corpus.index_rebuilt
    pid = corpus.resolve("alpha BETA")
    assert pid == paper_id_for("Alpha beta")
    assert corpus.references(pid) == [] and corpus.paragraphs(pid) == []
    hits = corpus.search_bm25("beta", 5, exclude_surveys=True, before="2030-01-01")
    assert hits == []  # no survey flags, and no dates: nothing is known to precede the cut-off
    assert len(corpus.search_bm25("beta", 5, exclude_surveys=True)) == 2


def test_neighbour_counts_and_citing_paragraphs_hand_computed(corpus):
    g5 = paper_id_for("Graph kernels")
    assert corpus.neighbour_counts([ax(1), ax(2)], "cited") == sorted(
        [(ax(3), 2), (ax(4), 2), (g5, 1)])
    assert corpus.neighbour_counts([ax(3)], "citing") == [(ax(1), 1), (ax(2), 1), (ax(6), 1)]
    assert corpus.neighbour_counts(["not a paper"], "cited") == []
    [para] = corpus.citing_paragraphs(ax(3))
    assert (para.paper_id, para.position, para.text) == (ax(1), 1, "Second [3].")
    assert [p.text for p in corpus.citing_paragraphs(ax(4))] == ["First [4, x]."]
    assert corpus.citing_paragraphs(ax(1)) == []


def test_tools_count_only_what_the_rule_leaves_visible(corpus):
    """With 2 hidden, co-citation and coupling are counted without it (compare the corpus's
    own co_cited(3) = (4, 2), (5, 2) above): citers of 3 left are 1 and 6."""
    from scholarbench.tools.rules import AccessRules
    from scholarbench.tools.session import ToolSession
    g5 = paper_id_for("Graph kernels")
    tools = ToolSession(corpus, AccessRules(exclude_ids=(ax(2),)))
    co = tools.call("co_cited", {"paper": ax(3)})["results"]
    assert [(r["id"], r["co_citations"]) for r in co] == [(g5, 2), (ax(4), 1)]
    coupled = tools.call("coupled", {"paper": ax(1)})["results"]
    assert [(r["id"], r["shared_references"]) for r in coupled] == [(ax(6), 2)]
    cites = tools.call("citations", {"paper": ax(3)})
    assert [r["id"] for r in cites["results"]] == [ax(1), ax(6)] and cites["total"] == 2
    ctx = tools.call("citation_contexts", {"paper": ax(4)})
    assert ctx["total"] == 1 and ctx["contexts"][0]["citing"]["id"] == ax(1)
    assert ctx["contexts"][0]["text"] == "First [4, x]." and ctx["contexts"][0]["also_cites"] == []
    paper = tools.call("get_paper", {"paper": "2101.00001", "paragraphs": 5})
    assert paper["n_references"] == 3 and paper["n_citations"] == 0
    assert [(p["text"], p["cites"]) for p in paper["paragraphs"]] == [
        ("First [4, x].", [ax(4)]), ("Second [3].", [ax(3)])]
    page = tools.call("references", {"paper": ax(1), "k": 2})
    assert [r["id"] for r in page["results"]] == [ax(3), ax(4)] and page["next_offset"] == 2
    rest = tools.call("references", {"paper": ax(1), "k": 2, "offset": 2})
    assert [r["id"] for r in rest["results"]] == [g5] and rest["next_offset"] is None
