"""Report parsing: URLs (without trailing punctuation), arXiv ids, DOIs, numbered references
with a bibliography, footnotes, author-year citations; resolution to corpus papers offline;
the title-extractor hook."""
from __future__ import annotations

from datetime import date

import pytest

from scholarbench.benchmarks.reportbench import (ExtractedTitle, extract_references, parse_report,
                                                 references_from_items)
from scholarbench.references.identifiers_in_text import (find_arxiv, find_dois,
                                                                     find_urls, ids_in_url, trim,
                                                                     url_key)
from scholarbench.references.report_refs import entry_title


def urls(text: str) -> list[str]:
    return [u for _, _, u in find_urls(text)]


# ---- URLs, DOIs, arXiv ids in text ---------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("see https://arxiv.org/abs/1706.03762.", "https://arxiv.org/abs/1706.03762"),
    ("see https://a.org/x, and", "https://a.org/x"),
    ("see https://a.org/x; and", "https://a.org/x"),
    ("see https://a.org/x: and", "https://a.org/x"),
    ("is it https://a.org/x?", "https://a.org/x"),
    ("(https://a.org/x)", "https://a.org/x"),
    ("(see https://a.org/x).", "https://a.org/x"),
    ("[https://a.org/x]", "https://a.org/x"),
    ("[text](https://a.org/x)", "https://a.org/x"),
    ("[text](https://a.org/x \"Title\")", "https://a.org/x"),
    ("<https://a.org/x>", "https://a.org/x"),
    ("**https://a.org/x**", "https://a.org/x"),
    ("\"https://a.org/x\"", "https://a.org/x"),
    ("https://en.wikipedia.org/wiki/Transformer_(machine_learning).",
     "https://en.wikipedia.org/wiki/Transformer_(machine_learning)"),
    ("([wiki](https://en.wikipedia.org/wiki/A_(b)))", "https://en.wikipedia.org/wiki/A_(b)"),
    ("https://a.org/x\\_y", "https://a.org/x_y"),                        # Markdown escape
    ("https://openreview.net/forum?id=Sk-oDY9ge).",
     "https://openreview.net/forum?id=Sk-oDY9ge"),
    ("`https://a.org/x`", "https://a.org/x"),
])
def test_url_trailing_punctuation(text, expected):
    assert urls(text) == [expected]


def test_upstream_regex_would_keep_the_punctuation():
    import re
    upstream = re.compile(r'(https?://[^\s\)\]\"\'>]+)')              # related_work_evaluator
    assert upstream.findall("see https://arxiv.org/abs/1706.03762.") == [
        "https://arxiv.org/abs/1706.03762."]
    assert urls("see https://arxiv.org/abs/1706.03762.") == ["https://arxiv.org/abs/1706.03762"]


def test_not_urls():
    assert urls("http:// nothing, https://localhost-ish and ftp://a.org/x") == []
    assert trim("x).,;]") == "x"
    assert trim("a(b)") == "a(b)"


@pytest.mark.parametrize("text,expected", [
    ("arXiv:1706.03762", "arxiv:1706.03762"),
    ("arXiv:1706.03762v5", "arxiv:1706.03762"),
    ("arXiv: 2101.00001", "arxiv:2101.00001"),
    ("arXiv 2101.00001.", "arxiv:2101.00001"),
    ("arXiv preprint arXiv:1907.11692, 2019", "arxiv:1907.11692"),
    ("arXiv:cs/0112017v1", "arxiv:cs/0112017"),
    ("arXiv:math.GT/0309136", "arxiv:math.GT/0309136"),
    ("hep-th/9901001 via arXiv:hep-th/9901001", "arxiv:hep-th/9901001"),
    ("CoRR abs/1810.04805", "arxiv:1810.04805"),
    ("(arXiv:1234.5678)", "arxiv:1234.5678"),
])
def test_arxiv_ids(text, expected):
    assert [k for _, _, k in find_arxiv(text)] == [expected]


def test_bare_numbers_are_not_arxiv_ids():
    assert find_arxiv("pages 1706.03762 and version 2101.00001") == []


@pytest.mark.parametrize("url,expected", [
    ("https://arxiv.org/abs/1706.03762", "arxiv:1706.03762"),
    ("https://arxiv.org/abs/1706.03762v7", "arxiv:1706.03762"),
    ("https://arxiv.org/pdf/1706.03762v2.pdf", "arxiv:1706.03762"),
    ("http://arxiv.org/pdf/1706.03762", "arxiv:1706.03762"),
    ("https://arxiv.org/html/2401.00001v1", "arxiv:2401.00001"),
    ("https://export.arxiv.org/abs/hep-th/9901001", "arxiv:hep-th/9901001"),
    ("https://doi.org/10.1145/3292500.3330851", "doi:10.1145/3292500.3330851"),
    ("http://dx.doi.org/10.1038/NATURE14539", "doi:10.1038/nature14539"),
    ("https://doi.org/10.48550/arXiv.2506.06287", "arxiv:2506.06287"),
    ("https://dl.acm.org/doi/abs/10.1145/3292500.3330851", "doi:10.1145/3292500.3330851"),
    ("https://onlinelibrary.wiley.com/doi/full/10.1002/widm.1234", "doi:10.1002/widm.1234"),
    ("https://link.springer.com/content/pdf/10.1007/978-3-030-58452-8_13.pdf",
     "doi:10.1007/978-3-030-58452-8_13"),
    ("https://www.biorxiv.org/content/10.1101/2020.01.01.123456v2.full.pdf",
     "doi:10.1101/2020.01.01.123456"),
    ("https://www.nature.com/articles/s41586-021-03819-2", "doi:10.1038/s41586-021-03819-2"),
    ("https://pubmed.ncbi.nlm.nih.gov/28604789/", "pmid:28604789"),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC5119627/", "pmcid:PMC5119627"),
    ("https://openalex.org/W2741809807", "openalex:W2741809807"),
])
def test_ids_in_url(url, expected):
    assert ids_in_url(url) == (expected,)


def test_urls_without_paper_ids():
    assert ids_in_url("https://openreview.net/forum?id=abc") == ()
    assert ids_in_url("https://github.com/org/repo") == ()


@pytest.mark.parametrize("text,expected", [
    ("doi:10.1016/S0167-9473(99)00098-5.", "doi:10.1016/s0167-9473(99)00098-5"),
    ("DOI: 10.1000/xyz).", "doi:10.1000/xyz"),
    ("(10.1000/ABC),", "doi:10.1000/abc"),
    ("doi 10.1000/x;", "doi:10.1000/x"),
    ("10.48550/arXiv.1706.03762", "arxiv:1706.03762"),
])
def test_dois(text, expected):
    assert [k for _, _, k in find_dois(text)] == [expected]


def test_url_key_dedup():
    assert url_key("https://WWW.Example.org/a/?utm_source=x#sec") == "https://example.org/a"
    assert url_key("http://example.org:80/a/") == "http://example.org/a"
    assert url_key("https://openreview.net/forum?id=A") != url_key(
        "https://openreview.net/forum?id=B")
    assert url_key("https://www.synapse.org/#!Synapse:syn1") == "https://synapse.org#!Synapse:syn1"


# ---- whole reports -------------------------------------------------------------------------

REPORT = """# Transformers: a survey

Transformers [1] changed NLP (Vaswani et al., 2017). BERT [2, 3] followed; see also
https://arxiv.org/abs/1810.04805. The same paper again: arXiv:1810.04805v2.
Graph models: doi:10.1145/3292500.3330851). Kipf and Welling (2017) is cited without an item,
and so is marker [9]. Also
[Language Models are Few-Shot Learners](https://arxiv.org/abs/2005.14165).
Ranges [4-5] and footnotes[^a] work; <sup>6</sup> too.

```
[7] https://ignored.example.com arXiv:9999.99999
```
<!-- https://also-ignored.example.com -->

## 7. References

[1] A. Vaswani, N. Shazeer, et al. "Attention is all you need," in NeurIPS, 2017.
    https://arxiv.org/abs/1706.03762
[2] Devlin, J., Chang, M.-W., Lee, K., & Toutanova, K. (2019). BERT: Pre-training of deep
bidirectional transformers for language understanding. https://doi.org/10.18653/v1/N19-1423
3. Liu, Y. et al. RoBERTa: A Robustly Optimized BERT Pretraining Approach. arXiv preprint
arXiv:1907.11692, 2019.
[4] Raffel, C. et al. Exploring the limits of transfer learning. JMLR, 2020.
[5] [Deep Residual Learning for Image Recognition - arXiv](https://arxiv.org/abs/1512.03385)
[6] Hamilton, W. L., Ying, R., and Leskovec, J. Inductive representation learning on large
graphs. In NeurIPS, 2017.

## Appendix

Not part of the bibliography: https://github.com/org/repo

[^a]: Kingma, D. P., & Ba, J. (2015). Adam: A method for stochastic optimization. ICLR.
"""


def test_report_references():
    refs = parse_report(REPORT)
    by_label = {r.label: r for r in refs if r.label}
    assert set(by_label) == {"1", "2", "3", "4", "5", "6", "9", "^a"}
    one = by_label["1"]
    assert one.kinds == ["marker", "author_year", "bib_entry"]   # (Vaswani et al., 2017) -> [1]
    assert one.ids == ["arxiv:1706.03762"] and one.stated_titles == ["Attention is all you need"]
    assert by_label["2"].ids == ["doi:10.18653/v1/n19-1423"]
    assert by_label["2"].stated_titles == [
        "BERT: Pre-training of deep bidirectional transformers for language understanding"]
    assert by_label["3"].stated_titles == ["RoBERTa: A Robustly Optimized BERT Pretraining "
                                           "Approach"]
    assert by_label["5"].stated_titles == ["Deep Residual Learning for Image Recognition"]
    assert by_label["6"].stated_titles == ["Inductive representation learning on large graphs"]
    assert by_label["^a"].stated_titles == ["Adam: A method for stochastic optimization"]
    assert by_label["9"].reason == "marker [9] has no bibliography item"
    assert "marker" in by_label["6"].kinds                        # <sup>6</sup>
    assert "marker" in by_label["4"].kinds and "marker" in by_label["5"].kinds    # [4-5]
    # an id written twice (URL and arXiv:…v2) is one reference
    bert = [r for r in refs if "arxiv:1810.04805" in r.ids]
    assert len(bert) == 1 and bert[0].kinds == ["url", "arxiv"]
    gpt3 = [r for r in refs if "arxiv:2005.14165" in r.ids][0]
    assert gpt3.stated_titles == ["Language Models are Few-Shot Learners"]
    assert [r.ids for r in refs if r.kinds == ["doi"]] == [["doi:10.1145/3292500.3330851"]]
    kipf = [r for r in refs if r.kinds == ["author_year"]]
    assert len(kipf) == 1 and kipf[0].reason.startswith("author-year citation without")
    assert [r.urls for r in refs if r.urls == ["https://github.com/org/repo"]]
    everything = " ".join(" ".join(r.urls + r.ids) for r in refs)
    assert "ignored" not in everything and "9999.99999" not in everything
    assert len(refs) == 13


def test_report_without_references():
    assert parse_report("# Title\n\nJust prose, 2020 and [a link-less bracket].\n") == []


def test_markers_without_bibliography():
    refs = parse_report("Claim [1]. Claim [1, 2].\n")
    assert [(r.label, r.reason) for r in refs] == [
        ("1", "numbered marker without a bibliography"),
        ("2", "numbered marker without a bibliography")]


def test_numbered_bibliography_formats():
    md = ("Text [1] [2] [3].\n\n**Sources**\n\n1. First, A. (2020). Title one. V.\n"
          "2) Second, B. (2021). Title two. V.\n- [3] Third, C. (2022). Title three. V.\n")
    refs = parse_report(md)
    assert [(r.label, r.stated_titles) for r in refs] == [
        ("1", ["Title one"]), ("2", ["Title two"]), ("3", ["Title three"])]


def test_bibliography_heading_variants():
    for heading in ("# References", "References\n==========", "**Bibliography**",
                    "### Works Cited", "References:", "## 5 Sources"):
        md = f"Body [1].\n\n{heading}\n\n[1] Smith, J. (2020). A title here. Venue.\n"
        refs = parse_report(md)
        assert refs[0].stated_titles == ["A title here"], heading


def test_section_after_bibliography_is_not_bibliography():
    md = ("## References\n[1] Smith, J. (2020). A title here. Venue.\n\n## Notes\n\n"
          "1. Not a reference, just a numbered note.\n")
    refs = parse_report(md)
    assert [r.stated_titles for r in refs] == [["A title here"]]


@pytest.mark.parametrize("entry,title", [
    ('A. Vaswani et al., "Attention is all you need," NeurIPS 2017.', "Attention is all you need"),
    ("Vaswani, A. (2017). Attention is all you need. NeurIPS.", "Attention is all you need"),
    ("Vaswani, A. (2017, June 12). Attention is all you need. NeurIPS.",
     "Attention is all you need"),
    ("Ashish Vaswani and Noam Shazeer. 2017. Attention is all you need. In NeurIPS.",
     "Attention is all you need"),
    ("Vaswani A, Shazeer N. Attention is all you need. NeurIPS. 2017.",
     "Attention is all you need"),
    ("[Attention Is All You Need | OpenReview](https://openreview.net/x)",
     "Attention Is All You Need"),
    ("Vaswani et al. “Attention Is All You Need”. NeurIPS.", "Attention Is All You Need"),
    ("Model compression", "Model compression"),
    ("https://arxiv.org/abs/1706.03762", None),
])
def test_entry_titles(entry, title):
    assert entry_title(entry) == title


# ---- resolution ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from scholarbench.corpus.build import build
    from scholarbench.corpus.store import Corpus
    from scholarbench.data.sources.records import PaperRecord
    papers = [
        PaperRecord("t", ("arxiv:1706.03762",), "Attention Is All You Need", "", 2017),
        PaperRecord("t", ("doi:10.18653/v1/n19-1423", "arxiv:1810.04805"),
                    "BERT: Pre-training of Deep Bidirectional Transformers for Language "
                    "Understanding", "", 2019),
        PaperRecord("t", ("arxiv:1512.03385",), "Deep Residual Learning for Image Recognition",
                    "", 2016),
        PaperRecord("t", (), "Adam: A Method for Stochastic Optimization", "", 2015,
                    date(2014, 12, 22)),
    ]
    out = tmp_path_factory.mktemp("rbcorpus")
    build(out, [("t", papers)], {})
    return Corpus.open(out)


def test_resolution_with_a_corpus(corpus):
    found = extract_references(REPORT, corpus)
    by_label = {r.label: r for r in found.references if r.label}
    assert by_label["1"].status == "resolved"
    assert by_label["1"].corpus_title == "Attention Is All You Need"
    assert by_label["1"].titles() == ["Attention Is All You Need", "Attention is all you need"]
    bert = [r for r in found.references if "arxiv:1810.04805" in r.ids][0]
    assert bert.status == "resolved" and bert.corpus_title.startswith("BERT")
    assert by_label["^a"].status == "resolved"              # by its stated title
    assert by_label["^a"].corpus_title is None
    assert by_label["4"].status == "titled"                  # a title, not in the corpus
    gpt3 = [r for r in found.references if "arxiv:2005.14165" in r.ids][0]
    assert gpt3.status == "titled"                           # id unknown, stated title kept
    doi = [r for r in found.references if r.kinds == ["doi"]][0]
    assert (doi.status, doi.reason) == ("unresolved",
                                        "not in corpus: doi:10.1145/3292500.3330851")
    counts = found.counts()
    assert counts["n_found"] == 13
    assert counts["unresolved_reasons"] == {
        "author-year citation without a matching bibliography item": 1,
        "marker without bibliography item": 1, "not in corpus": 1,
        "web page without a paper id": 1}
    assert counts["n_unresolved_with_id"] == 1


def test_resolution_without_corpus():
    found = extract_references("See https://arxiv.org/abs/1706.03762 and "
                               "[A Stated Title Here](https://arxiv.org/abs/1810.04805).")
    assert [(r.status, r.reason) for r in found.references] == [
        ("unresolved", "no corpus"), ("titled", None)]


def test_title_extractor_hook(corpus):
    calls = []

    def extractor(report, unresolved):
        calls.append((report, [r.ids or r.urls or r.label for r in unresolved]))
        return [ExtractedTitle("Attention Is All You Need", 0),       # for the first one
                ExtractedTitle("A plain-text citation the parser missed"),
                ExtractedTitle("  ", 1), ExtractedTitle("out of range", 99)]

    md = "Cited https://example.org/paper.pdf and https://example.org/blog."
    found = extract_references(md, corpus, extractor)
    assert calls == [(md, [["https://example.org/paper.pdf"], ["https://example.org/blog"]])]
    statuses = [(r.status, r.extracted_title, r.paper_id is not None) for r in found.references]
    assert statuses == [("resolved", "Attention Is All You Need", True),
                        ("unresolved", None, False),
                        ("titled", "A plain-text citation the parser missed", False)]
    assert (found.stats.extractor_titles, found.stats.extractor_new,
            found.stats.extractor_rejected) == (2, 1, 2)


def test_hook_runs_when_nothing_was_found_and_not_when_all_resolved(corpus):
    seen = []
    extract_references("Plain prose citing Vaswani's transformer paper.", corpus,
                       lambda report, unresolved: seen.append(len(unresolved)) or [])
    assert seen == [0]
    extract_references("https://arxiv.org/abs/1706.03762", corpus,
                       lambda report, unresolved: seen.append(len(unresolved)) or [])
    assert seen == [0]                                       # not called: nothing unresolved


def test_reference_items(corpus):
    found = references_from_items([
        {"title": "Attention is all you need"},
        {"title": "Attention Is All You Need!", "url": "https://arxiv.org/abs/1706.03762"},
        {"title": "Some blog", "is_academic_paper": False},
        {"doi": "10.18653/v1/N19-1423"},
    ], corpus)
    assert found.not_academic == 1
    assert [(r.status, r.corpus_title is not None) for r in found.references] == [
        ("resolved", False), ("resolved", True), ("resolved", True)]


def test_a_title_with_its_year_in_prose_is_not_an_author_year_citation():
    """Issue 35: "Title (2020) …" in prose was read as an author-year citation of "Title"'s
    last word (4 unresolved per report). A capitalised word that continues a title-case run
    (over small words: of, for, to, …) ends a title; a surname at a sentence's start, after
    lower-case words or with "et al." / "and" stays a citation."""
    md = ("Deep Residual Learning (2016) made very deep networks trainable. Later, "
          "Attention Is All You Need (2017) replaced recurrence, and Learning to Rank (2009) "
          "is older. Vaswani et al. (2017) trained it; as noted by Smith (2020), it scales. "
          "Kipf and Welling (2017) is cited too. Jones (2018) agrees.\n\n## References\n\n"
          "[1] Smith, J. (2020). Scaling things. Venue.\n")
    refs = parse_report(md)
    ay = sorted(m.text for r in refs for m in r.mentions if m.kind == "author_year")
    assert ay == ["Jones (2018)", "Kipf and Welling (2017)", "Smith (2020)",
                  "Vaswani et al. (2017)"]
    smith = next(r for r in refs if any(m.text == "Smith (2020)" for m in r.mentions))
    assert smith.reason is None and "bib_entry" in smith.kinds
    unresolved = [r for r in refs if r.reason and r.reason.startswith("author-year")]
    assert len(unresolved) == 3                      # Vaswani, Kipf, Jones: no item
