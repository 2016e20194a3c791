"""`scholarbench build` for TaxoBench: survey sources (Manubot Markdown, LaTeX + .bib) -> the
section tree with the citations under each heading -> a drafted instance that `data import`
accepts, a review file and a manifest."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.benchmarks.reportbench.pandoc_cites import citations
from scholarbench.builder import build, draft_taxonomy, read_source
from scholarbench.cli import main
from scholarbench.data.store import import_dataset
from scholarbench.data.taxobench import load_instances
from scholarbench.files import sha256_file


@pytest.fixture(scope="module")
def deep_review():
    return shared_path("data", "survey_source_deep_review")


@pytest.fixture(scope="module")
def corpus(deep_review, tmp_path_factory):
    """A corpus of the deep-review bibliography alone (about a second to build)."""
    from scholarbench.corpus.build import build_default_corpus
    from scholarbench.corpus.store import Corpus
    root = tmp_path_factory.mktemp("src")
    (root / "survey_source_deep_review").symlink_to(deep_review)
    out = tmp_path_factory.mktemp("corpus")
    build_default_corpus(out, root)
    return Corpus.open(out)


def _sections(doc):
    return {path: s for top in doc.sections for path, s in top.walk()}


# ---- source reading ------------------------------------------------------------------------

def test_deep_review_section_tree(deep_review):
    doc = read_source(deep_review)
    assert doc.title == "Opportunities and obstacles for deep learning in biology and medicine"
    assert [s.title for s in doc.sections] == [
        "Introduction to deep learning", "Deep learning and patient categorization",
        "Deep learning to study the fundamental biological processes underlying human disease",
        "The impact of deep learning in treating disease and developing new treatments",
        "Discussion", "Conclusions", "Methods"]          # Authors, Abstract left out
    by_path = _sections(doc)
    imaging = by_path[("Deep learning and patient categorization",
                       "Imaging applications in healthcare")]
    # the citations of 03.categorize.md between that heading (line 21) and the next (line 119)
    text = (deep_review / "content" / "03.categorize.md").read_text(encoding="utf-8")
    expected = [c.key for c in citations(text) if 21 < c.line < 119]
    assert imaging.keys == expected and len(expected) == 49
    # emphasis dropped from headings; back matter under Methods left out at any depth
    assert any(path[-1] == "De novo drug design" for path in by_path)
    assert not any("Author contributions" in path or "Acknowledgements" in path
                   for path in by_path)
    assert doc.unsectioned == []
    # every citation of the main text is under a heading or counted as excluded
    in_tree = sum(len(s.keys) for s in by_path.values())
    all_cites = sum(len(citations(p.read_text(encoding="utf-8")))
                    for p in sorted((deep_review / "content").glob("*.md")))
    assert in_tree + len(doc.excluded) == all_cites


LATEX = r"""\documentclass{article}
\begin{document}
\title{Graph \emph{learning}: a survey}
\maketitle
Before any heading \cite{early}.
\section{Methods}
Spectral \cite{kipf}. Walks \cite{deepwalk}. % \cite{commented}
\subsection{Attention}
\citep{gat,kipf}
\input{more}
\section*{Outlook}
\cite{kipf}
\bibliography{refs}
\end{document}
"""
MORE = r"""Continued from the including file \cite{sage}.
\subsection{Sampling}
\cite{sage}
"""
BIB = """@article{kipf, title={Semi-Supervised Classification with Graph Convolutional Networks},
  eprint={1609.02907}, archivePrefix={arXiv}}
@article{gat, title={Graph Attention Networks}}
@article{sage, title={Inductive Representation Learning on Large Graphs}}
@article{early, title={An Early Paper}}
@article{deepwalk, title={DeepWalk: Online Learning of Social Representations}}
"""


@pytest.fixture
def latex_survey(tmp_path):
    folder = tmp_path / "survey"
    folder.mkdir()
    (folder / "main.tex").write_text(LATEX, encoding="utf-8")
    (folder / "more.tex").write_text(MORE, encoding="utf-8")
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    return folder


def test_latex_section_tree(latex_survey):
    doc = read_source(latex_survey)
    assert doc.title == "Graph learning: a survey" and doc.kind == "latex"
    by_path = {p: s.keys for p, s in _sections(doc).items()}
    assert by_path == {("Methods",): ["kipf", "deepwalk"],
                       ("Methods", "Attention"): ["gat", "kipf", "sage"],   # sage: \input
                       ("Methods", "Sampling"): ["sage"],
                       ("Outlook",): ["kipf"]}
    assert doc.unsectioned == ["early"]
    assert {p.name for p in doc.files} == {"main.tex", "more.tex", "refs.bib"}


def test_latex_tables_abstract_and_section_text(tmp_path):
    (tmp_path / "main.tex").write_text(r"""\documentclass{article}
\begin{document}
\title{T}
\begin{abstract}We review \emph{graph} models.\end{abstract}
\section{Datasets}
Benchmarks \cite{a}.
\begin{table}[t]
\caption{Reasoning datasets}
\begin{tabular}{ll} GSM8K & 8.5k \\ \end{tabular}
\end{table}
\section{Methods}
Text of methods \cite{a}.
\end{document}
""", encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@article{a, title={A}}\n", encoding="utf-8")
    doc = read_source(tmp_path / "main.tex")
    assert doc.abstract == "We review graph models."
    datasets, methods = doc.sections
    (table,) = datasets.tables
    assert table.caption == "Reasoning datasets" and "GSM8K & 8.5k" in table.text
    assert table.where.endswith("main.tex:7")
    assert methods.tables == [] and methods.text.startswith("Text of methods")


def test_latex_include_read_where_it_is_included(tmp_path):
    """A heading of the including file with no citation of its own, then an \\input whose
    text cites before its first heading: those citations belong to the including heading;
    a heading after the \\input follows the included file's sections."""
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\section{Setup}\n\\begin{document}\n"
        "\\section{A}\nNo citation here.\n\\input{part}\n\\section{C}\n\\cite{c}\n"
        "\\end{document}\n", encoding="utf-8")
    (tmp_path / "part.tex").write_text("Cited first \\cite{a}.\n\\subsection{B}\n\\cite{b}\n",
                                       encoding="utf-8")
    (tmp_path / "refs.bib").write_text("", encoding="utf-8")
    doc = read_source(tmp_path / "main.tex")
    assert {p: s.keys for p, s in _sections(doc).items()} == {
        ("A",): ["a"], ("A", "B"): ["b"], ("C",): ["c"]}      # the preamble's heading is not
    assert doc.unsectioned == []


# ---- the TaxoBench draft ---------------------------------------------------------------------

def test_latex_draft_placement(latex_survey):
    draft = draft_taxonomy(read_source(latex_survey))
    gt = draft.instance["gt"]
    gcn, gat = ("Semi-Supervised Classification with Graph Convolutional Networks",
                "Graph Attention Networks")
    sage = "Inductive Representation Learning on Large Graphs"
    # kipf: once each under Methods, Attention, Outlook -> the first LEAF heading (Attention);
    # sage: once each under Attention (the \input text before more.tex's first heading) and
    # Sampling -> the first; deepwalk: only under Methods, which has subheadings -> a first
    # leaf "Methods (general)"; Sampling and Outlook are left without papers and dropped
    assert gt == {"name": "Graph learning: a survey", "subtopics": [
        {"name": "Methods", "subtopics": [
            {"name": "Methods (general)",
             "papers": ["DeepWalk: Online Learning of Social Representations"]},
            {"name": "Attention", "papers": [gcn, gat, sage]}]}]}
    assert draft.general_leaves == [("Methods",)]
    assert draft.instance["gt_paper_count"] == len(draft.instance["pdfs"]) == 4
    assert [w.keys[0] for w, _ in draft.unplaced] == ["early"]
    multiply = {draft.works[i].keys[0]: draft.placed[i] for i in draft.multiply}
    assert multiply == {"kipf": ("Methods", "Attention"), "sage": ("Methods", "Attention")}
    # their only papers are placed elsewhere
    assert draft.dropped_headings == [("Methods", "Sampling"), ("Outlook",)]


def test_placed_where_cited_most(tmp_path):
    md = tmp_path / "s.md"
    md.write_text("---\ntitle: A\n---\n## Abstract\nSee [@doi:10.1000/only-abstract].\n"
                  "## One\n[@doi:10.1000/x]\n"
                  "## Two\n[@doi:10.1000/x] and [@doi:10.1000/x; @doi:10.1000/y]\n"
                  "## Empty\nNothing.\n", encoding="utf-8")
    bib = tmp_path / "refs.json"
    bib.write_text(json.dumps([{"id": "a", "title": "X paper", "DOI": "10.1000/x"},
                               {"id": "b", "title": "Y paper", "DOI": "10.1000/y",
                                "abstract": "Y's abstract."},
                               {"id": "c", "title": "Abstract-only",
                                "DOI": "10.1000/only-abstract"}]),
                   encoding="utf-8")
    draft = draft_taxonomy(read_source(md, [bib]))
    assert draft.instance["gt"] == {"name": "A", "subtopics": [
        {"name": "Two", "papers": ["X paper", "Y paper"]}]}
    assert draft.instance["pdfs"] == [{"title": "X paper", "abs": ""},
                                      {"title": "Y paper", "abs": "Y's abstract."}]
    assert [(w.title, why) for w, why in draft.unplaced] == [
        ("Abstract-only", "cited only under front/back matter")]
    assert draft.dropped_headings == [("One",), ("Empty",)]


def test_deep_review_expert_tree_papers_are_cited_papers(deep_review, corpus):
    doc = read_source(deep_review)
    draft = draft_taxonomy(doc, corpus)
    task = load_instances_from(draft.instance)
    cited_under = {}
    for path, section in _sections(doc).items():
        for key in section.keys:
            cited_under.setdefault(key, set()).add(path)
    by_title = {draft.works[i].title: draft.works[i] for i in draft.placed}
    tree_papers = task.gold.all_papers()
    assert len(tree_papers) == len(set(tree_papers)) == len(draft.placed) > 550
    for path, titles in _tree_papers(draft.instance["gt"]):
        if path[-1].endswith(" (general)"):          # the works of the heading above it
            path = path[:-1]
        for title in titles:
            work = by_title[title]            # a cited work of the survey ...
            # ... placed under a heading whose text cites it
            assert any(path in cited_under.get(k, set()) for k in work.keys), (title, path)
    # upstream's shape: papers at leaves only
    stack = [draft.instance["gt"]]
    while stack:
        node = stack.pop()
        assert not (node.get("papers") and node.get("subtopics")), node["name"]
        stack += node.get("subtopics", [])
    # every work is placed or listed as unplaced, never both
    placed = set(draft.placed)
    unplaced = {w.index for w, _ in draft.unplaced}
    assert placed | unplaced == {w.index for w in draft.works} and not placed & unplaced
    # abstracts come from the corpus for works it resolves
    work = next(draft.works[i] for i in draft.placed if draft.works[i].paper_id
                and draft.works[i].abstract)
    assert corpus.get_by_ids([work.paper_id])[0].abstract == work.abstract
    assert draft.counts()["resolved_in_corpus"] > 550


def load_instances_from(instance):
    from scholarbench.data.taxobench import parse_instance
    return parse_instance(instance, file="draft", line=1)


def _tree_papers(node, path=()):
    for child in node.get("subtopics", []):
        sub = path + (child["name"],)
        yield sub, child.get("papers", [])
        yield from _tree_papers(child, sub)


# ---- the command, the manifest, the review file, data import ---------------------------------

def test_build_command_writes_importable_tasks(deep_review, latex_survey, corpus, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["build", str(deep_review), str(latex_survey), "--benchmarks", "taxobench",
               "--out", str(out), "--corpus", str(corpus.directory)])
    assert rc == 0
    assert "data import taxobench" in capsys.readouterr().out
    entry = import_dataset("taxobench", out / "taxobench", tmp_path / "data")
    assert entry["files"]["taxobench.jsonl"]["instances"] == 2
    tasks = load_instances(out / "taxobench" / "taxobench.jsonl")
    assert [t.id for t in tasks] == ["opportunities-and-obstacles-for-deep-learning-in-biology-and",
                                     "graph-learning-a-survey"]
    manifest = json.loads((out / "manifest.json").read_text())
    files = {f["path"]: f["sha256"] for s in manifest["sources"] for f in s["files"]}
    refs = deep_review / "output" / "references.json"
    assert files[str(refs)] == sha256_file(refs)
    assert files[str(latex_survey / "refs.bib")] == sha256_file(latex_survey / "refs.bib")
    assert manifest["corpus"]["path"] == str(corpus.directory)
    bench = manifest["benchmarks"]["taxobench"]
    assert bench["file"] == "taxobench/taxobench.jsonl" and bench["instances"] == 2
    assert bench["sha256"] == sha256_file(out / "taxobench" / "taxobench.jsonl")
    review = (out / "review.md").read_text()
    assert "expert annotators" in review
    assert "`early` An Early Paper — cited before the first heading" in review
    assert "Cited under several headings" in review


def test_build_bad_input_is_one_line(tmp_path, capsys):
    assert main(["build", str(tmp_path / "nope"), "--benchmarks", "taxobench",
                 "--out", str(tmp_path / "o"), "--no-corpus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and "no such file" in err
    assert main(["build", str(tmp_path), "--benchmarks", "nosuch", "--out",
                 str(tmp_path / "o"), "--no-corpus"]) == 2
    assert "unknown nosuch" in capsys.readouterr().err


def test_a_survey_with_no_placeable_paper_writes_no_instance(tmp_path, capsys):
    md = tmp_path / "s.md"
    md.write_text("# S\n\n## One\nUntitled [@doi:10.1000/nobib].\n", encoding="utf-8")
    rc = main(["build", str(md), "--benchmarks", "taxobench", "--out", str(tmp_path / "o"),
               "--no-corpus"])
    assert rc == 1 and "no task written for taxobench" in capsys.readouterr().err
    assert (tmp_path / "o" / "taxobench" / "taxobench.jsonl").read_text() == ""
    review = (tmp_path / "o" / "review.md").read_text()
    assert "No instance written" in review and "`doi:10.1000/nobib` (no title)" in review
