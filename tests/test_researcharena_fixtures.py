"""A hand-made corpus for the ResearchArena tests (no tests here; the test_researcharena_*
modules import it): surveys, their reference lists, a small citation graph, and every case of
the leakage rule. Dates and expected answers are written beside each paper.

Survey S (published 2021-06-15, so the cut-off is 2021-06-15) cites, through its reference
list (source "reportbench"):
    A  published 2020-01-10                          searchable
    A  again, by title                               a duplicate entry
    B  year 2021 only -> latest 2021-12-31           not_before_cutoff
    C  arXiv 2105.00003 -> latest 2021-05-31          searchable
    D  arXiv 2106.00004 -> latest 2021-06-30          not_before_cutoff
    E  "A survey of graph methods", 2019             survey
    F  no date, no arXiv id, no year                 undated
    ?  doi:10.9/missing, no title                    unresolved (no corpus paper)
  and through the graph (source "arxiv2023"):
    G  published 2019-03-01                          searchable, other_sources
Survey T (year 2020 only -> cut-off 2020-01-01) cites H (year 2020): not_before -> empty gold.
Survey U (no date at all) cites A: no cut-off, A searchable.
Survey V (2021-01-01) cites A via the graph only: a task only in the "all" task set.
Non-surveys: N (2020-05-01) cites A and G (so A, G are co-cited by a searchable paper);
L (2022-01-01, after S) cites A and C.
"""
from __future__ import annotations

from datetime import date

from scholarbench.corpus.build import build
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, Ref

CUTOFF_S = date(2021, 6, 15)


def P(ids, title, year=None, published=None, survey=None, abstract=""):
    return PaperRecord("tiny", tuple(ids), title, abstract, year, published, survey)


PAPERS = {
    "S": P(["arxiv:2106.00100", "s2corpus:100"], "Graph learning: a survey", 2021,
           date(2021, 6, 15), True),
    "T": P(["arxiv:2001.00200", "s2corpus:200"], "Graph kernels: a survey", 2020, None, True),
    "U": P(["s2corpus:300"], "Graph databases: a survey", None, None, True),
    "V": P(["s2corpus:400"], "Graph drawing: a survey", 2021, date(2021, 1, 1), True),
    "A": P(["doi:10.1/a", "s2corpus:1"], "Graph attention networks", 2020, date(2020, 1, 10),
           abstract="Attention over graph neighbourhoods."),
    "B": P(["doi:10.1/b", "s2corpus:2"], "Graph transformers at scale", 2021),
    "C": P(["arxiv:2105.00003", "s2corpus:3"], "Graph contrastive learning", 2021),
    "D": P(["arxiv:2106.00004", "s2corpus:4"], "Graph diffusion models", 2021),
    "E": P(["doi:10.1/e", "s2corpus:5"], "A survey of graph methods", 2019),
    "F": P(["doi:10.1/f"], "Graph folklore without a date"),
    "G": P(["arxiv:1903.00007", "s2corpus:7"], "Graph convolution for recommendation", 2019,
           date(2019, 3, 1)),
    "H": P(["doi:10.1/h"], "Graph kernel trick revisited", 2020),
    "N": P(["arxiv:2005.00009"], "Message passing graph networks", 2020, date(2020, 5, 1)),
    "L": P(["arxiv:2201.00010"], "Graph benchmarks later", 2022, date(2022, 1, 1)),
}

MISSING = Ref(("doi:10.9/missing",))


def ref(name: str) -> Ref:
    return PAPERS[name].ref()


def bib(survey: str, *cited: Ref) -> list[EdgeRecord]:
    """A survey's reference list as the bibliography source writes it."""
    return [EdgeRecord("reportbench", ref(survey), c) for c in cited]


REFERENCE_LISTS = (
    bib("S", ref("A"), Ref((), "Graph Attention Networks."), ref("B"), ref("C"), ref("D"),
        ref("E"), ref("F"), MISSING)
    + bib("T", ref("H"))
    + bib("U", ref("A"))
)
GRAPH = [EdgeRecord("arxiv2023", ref(a), ref(b)) for a, b in
         [("S", "G"), ("V", "A"), ("N", "A"), ("N", "G"), ("L", "A"), ("L", "C")]]


def build_tiny(out) -> None:
    build(out, [("tiny", list(PAPERS.values()) + REFERENCE_LISTS + GRAPH)], {})
