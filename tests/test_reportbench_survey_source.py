"""Ground truth from a survey's source: LaTeX cite commands + .bib/.bbl, Pandoc Markdown
citations + CSL-JSON, and the deep-review sources, whose 635 cited works (citations.tsv) must
come back exactly."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import shared_path
from scholarbench.errors import DataError
from scholarbench.benchmarks.reportbench import (from_latex, from_markdown, read_gt_file,
                                                 write_gt_jsonl)
from scholarbench.benchmarks.reportbench.bibliography import read_bbl, read_bibtex, read_csl_json
from scholarbench.benchmarks.reportbench.latex_cites import latex_citations
from scholarbench.benchmarks.reportbench.latex_text import braced, group_end, strip_comments
from scholarbench.benchmarks.reportbench.pandoc_cites import aliases, citations
from scholarbench.benchmarks.reportbench.survey_gt import persistent_id

DATA = Path(__file__).parent / "data" / "reportbench"


def _keys(tex: str, tmp_path: Path) -> list[str]:
    path = tmp_path / "main.tex"
    path.write_text(tex, encoding="utf-8")
    return [c.key for c in latex_citations(path).citations]


# ---- LaTeX -------------------------------------------------------------------------------

def test_latex_project_main_text_citations():
    gt = from_latex(DATA / "latex_survey")
    assert gt.keys() == ["vaswani2017", "hochreiter1997", "devlin2019", "liu2019",
                         "radford2019", "brown2020", "kaplan2020", "kipf2017", "nobody2099",
                         "raffel2020"]
    by_key = {w.key: w for w in gt.works}
    assert by_key["vaswani2017"].n_citations == 2           # \citep and \parencites
    assert by_key["brown2020"].n_citations == 2             # \citeauthor + \citeyear
    assert by_key["kipf2017"].first[0].endswith("sections/intro.tex")   # \input followed
    assert gt.missing == ["nobody2099"]                     # cited, no entry: kept, counted
    assert gt.nocite == ["uncited_but_listed"]              # \nocite is not a main-text cite
    assert gt.uncited == 1
    # titles decoded from LaTeX, ids read from the entry
    assert by_key["devlin2019"].title == ("BERT: Pre-training of Deep Bidirectional "
                                          "Transformers for Language Understanding")
    assert by_key["vaswani2017"].ids == ("arxiv:1706.03762",)     # eprint + archivePrefix
    assert by_key["hochreiter1997"].ids == ("doi:10.1162/neco.1997.9.8.1735",)
    assert by_key["liu2019"].ids == ("arxiv:1907.11692",)         # "arXiv preprint arXiv:…"
    assert by_key["kaplan2020"].ids == ("arxiv:2001.08361",)      # CoRR abs/…
    assert by_key["vaswani2017"].fields["booktitle"].startswith("Advances in Neural")  # @string
    problems = "\n".join(gt.problems)
    assert "sections/missing.tex: cannot read" in problems
    assert "refs.bib:39: duplicate key 'vaswani2017'" in problems
    assert "refs.bib:40: unparsable BibTeX block" in problems


@pytest.mark.parametrize("tex,expected", [
    (r"\cite{a}", ["a"]),
    (r"\citep{a,b} \citet{c}", ["a", "b", "c"]),
    (r"\citep[see][p.~3]{a, b}", ["a", "b"]),
    (r"\citep[{nested [x]}][]{a}", ["a"]),
    (r"\citet*{a} \Citep{b} \citealp{c} \citeauthor{d} \citeyear{e} \citenum{f}",
     ["a", "b", "c", "d", "e", "f"]),
    (r"\parencite{a} \textcite[42]{b} \autocite{c} \footcite{d} \fullcite{e} \citetitle{f}",
     ["a", "b", "c", "d", "e", "f"]),
    (r"\cites(global)(note)[pre][post]{a}[p.~5]{b,c} text {not a key}", ["a", "b", "c"]),
    (r"\cite {spaced} \cite{}", ["spaced"]),
    ("\\cite{a} % \\cite{b}\n\\cite{c}", ["a", "c"]),
    (r"50\% \cite{a}", ["a"]),
    ("\\\\% \\cite{b}\n\\cite{c}", ["c"]),              # \\ then a comment
    (r"\nocite{a} \nocite{*}", []),
    (r"\citestyle{plain} \cite{a}", ["a"]),
    (r"\mycite{x} \citation{y} \cite{a}", ["a"]),
    ("\\begin{comment}\n\\cite{x}\n\\end{comment}\\cite{a}", ["a"]),
    ("\\iffalse \\cite{x} \\ifdim a \\fi \\cite{y} \\fi \\cite{a}", ["a"]),
    (r"\verb|\cite{x}| \cite{a}", ["a"]),
])
def test_latex_cite_commands(tmp_path, tex, expected):
    assert _keys(tex, tmp_path) == expected


def test_latex_main_text_only(tmp_path):
    tex = ("\\documentclass{article}\n\\cite{preamble}\n\\begin{document}\n\\cite{body}\n"
           "\\begin{thebibliography}{1}\\bibitem{x} \\cite{inside}\\end{thebibliography}\n"
           "\\end{document}\n\\cite{after}")
    assert _keys(tex, tmp_path) == ["body"]


def test_latex_line_numbers_and_nocite(tmp_path):
    path = tmp_path / "main.tex"
    path.write_text("\\begin{document}\n\n  x \\cite{a}\n\\nocite{b,c}\n\\end{document}",
                    encoding="utf-8")
    found = latex_citations(path)
    assert [(c.key, c.line) for c in found.citations] == [("a", 3)]
    assert found.nocite == ["b", "c"]


def test_strip_comments_keeps_lines():
    text = "a % x\n\\iffalse\nb\n\\fi\nc"
    out = strip_comments(text)
    assert out.count("\n") == text.count("\n")
    assert out.split("\n")[0].strip() == "a" and "b" not in out and out.endswith("c")


def test_bbl_thebibliography(tmp_path):
    path = tmp_path / "main.bbl"
    path.write_text(r"""\begin{thebibliography}{2}
\bibitem[{Vaswani et~al.(2017)}]{vaswani}
A.~Vaswani, N.~Shazeer.
\newblock Attention is all you need.
\newblock In \emph{NeurIPS}, 2017. arXiv:1706.03762.

\bibitem{kipf} T.~N. Kipf.
\newblock Semi-supervised classification with graph convolutional networks.
\newblock \url{https://doi.org/10.48550/arXiv.1609.02907}
\bibitem{solo} Just one block without newblock.
\end{thebibliography}""", encoding="utf-8")
    bib = read_bbl(path)
    assert bib.entries["vaswani"].title == "Attention is all you need"
    assert bib.entries["vaswani"].ids == ("arxiv:1706.03762",)
    assert bib.entries["kipf"].ids == ("arxiv:1609.02907",)       # arXiv DOI -> arXiv key
    assert bib.entries["solo"].title == ""
    assert any("solo" in p for p in bib.problems)


def test_bbl_biblatex(tmp_path):
    path = tmp_path / "main.bbl"
    path.write_text(r"""\entry{vaswani}{inproceedings}{}
  \field{title}{Attention is {All} You Need}
  \field{eprinttype}{arxiv}
  \field{eprint}{1706.03762}
  \verb{doi}
  \verb 10.5555/3295222.3295349
  \endverb
\endentry
\entry{notitle}{misc}{}
\endentry""", encoding="utf-8")
    bib = read_bbl(path)
    assert bib.entries["vaswani"].title == "Attention is All You Need"
    assert "arxiv:1706.03762" in bib.entries["vaswani"].ids
    assert bib.entries["notitle"].title == ""


def test_from_latex_falls_back_to_bbl(tmp_path):
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{k}\\end{document}", encoding="utf-8")
    (tmp_path / "paper.bbl").write_text(
        "\\begin{thebibliography}{1}\\bibitem{k} A. B.\n\\newblock A title here.\n"
        "\\end{thebibliography}", encoding="utf-8")
    gt = from_latex(tmp_path)
    assert [(w.key, w.title) for w in gt.works] == [("k", "A title here")]


def test_from_latex_without_main_file(tmp_path):
    with pytest.raises(DataError):
        from_latex(tmp_path)


def test_bibtex_strict_raises(tmp_path):
    path = tmp_path / "x.bib"
    path.write_text("@article{a, title={ok}}\n@article{b, title = {Unclosed\n", encoding="utf-8")
    assert list(read_bibtex(path).entries) == ["a"]
    with pytest.raises(DataError) as err:
        read_bibtex(path, strict=True)
    assert err.value.line == 2


def test_gt_written_in_reportbench_format_reads_back(tmp_path):
    gt = from_latex(DATA / "latex_survey")
    out = tmp_path / "2101.00001.jsonl"
    written, untitled = write_gt_jsonl(gt, out)
    back = read_gt_file(out)
    assert (written, untitled) == (9, 1)                      # nobody2099 has no title
    assert [r.title for r in back][:2] == ["Attention Is All You Need", "Long Short-Term Memory"]
    assert back[0].ids == ("arxiv:1706.03762",)


# ---- Pandoc Markdown ---------------------------------------------------------------------

@pytest.mark.parametrize("md,expected", [
    ("Text [@a].", ["a"]),
    ("Text [@a; @b, p. 3; see @c, chap. 2].", ["a", "b", "c"]),
    ("@smith2020 says so, and [-@lee2021] agrees.", ["smith2020", "lee2021"]),
    ("Ends a sentence @doi:10.1038/nature14539.", ["doi:10.1038/nature14539"]),
    # Manubot's key pattern (as Pandoc's) has no "=": such URLs need braces or an alias
    ("[@url:https://a.org/x/y?q=1]", ["url:https://a.org/x/y?q"]),
    ("[@{url:https://a.org/x/y?q=1}]", ["url:https://a.org/x/y?q=1"]),
    ("[@{weird key!}]", ["weird key!"]),
    ("mail me: name@example.com, or @user", ["user"]),
    ("Figure @fig:one, Table @tbl:two, Eq. @eq:three [@sec:four]", []),
    ("see https://medium.com/@author/post [@a]", ["a"]),
    ("`@code` and\n```\n[@fenced]\n```\n<!-- [@commented] -->\n[@a]", ["a"]),
    ("escaped \\@notacite [@a]", ["a"]),
    ("---\ntitle: x\nnocite: |\n  @nocited\n---\n[@a]", ["a"]),
    ("[@tag:X]: doi:10.1/x\n[@tag:X]", ["tag:X"]),
])
def test_pandoc_citations(md, expected):
    assert [c.key for c in citations(md)] == expected


def test_pandoc_line_numbers_and_aliases():
    md = "# T\n\nA [@a]\nB [@b; @tag:x]\n\n[@tag:x]: doi:10.1/ABC\n<!-- [@tag:y]: doi:1 -->"
    assert [(c.key, c.line) for c in citations(md)] == [("a", 3), ("b", 4), ("tag:x", 4)]
    assert aliases(md) == {"tag:x": "doi:10.1/ABC"}


@pytest.mark.parametrize("key,expected", [
    ("doi:10.1038/NATURE14539", "doi:10.1038/nature14539"),
    ("arxiv:1411.2581v1", "arxiv:1411.2581"),
    ("pmcid:PMC5119627", "pmcid:PMC5119627"),
    ("pmc:PMC5119627", "pmcid:PMC5119627"),
    ("pmid:28604789", "pmid:28604789"),
    ("url:https://arxiv.org/abs/1706.03762", "arxiv:1706.03762"),
    ("url:https://github.com/x/y", "url:https://github.com/x/y"),
    ("doi:10.48550/arXiv.1706.03762", "arxiv:1706.03762"),
    ("smith2020", None),
    ("tag:Smith2020", None),
])
def test_persistent_ids(key, expected):
    assert persistent_id(key) == expected


def test_markdown_with_csl_json(tmp_path):
    md = tmp_path / "a.md"
    md.write_text("Cited [@k1; @doi:10.1000/XYZ] and [@tag:t].\n\n[@tag:t]: @k2\n",
                  encoding="utf-8")
    csl = tmp_path / "refs.json"
    csl.write_text('[{"id": "k1", "title": "One"}, {"id": "h", "title": "Two", '
                   '"DOI": "10.1000/xyz"}, {"id": "k2", "title": "Three"}, '
                   '{"id": "unused", "title": "Four"}]', encoding="utf-8")
    gt = from_markdown([md], [csl])
    assert [(w.key, w.target, w.title) for w in gt.works] == [
        ("k1", "k1", "One"), ("doi:10.1000/XYZ", "doi:10.1000/XYZ", "Two"),
        ("tag:t", "k2", "Three")]
    assert gt.uncited == 1 and gt.missing == []
    assert read_csl_json(csl).entries["h"].ids == ("doi:10.1000/xyz",)


def test_deep_review_recovers_the_635_cited_works():
    root = shared_path("data", "survey_source_deep_review")
    gt = from_markdown(sorted((root / "content").glob("*.md")), [root / "output/references.json"])
    with (root / "output/citations.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert len(rows) == 635
    # exactly the citation keys of the tsv: nothing missed, nothing extra (tag definitions,
    # @fig/@tbl cross-references, e-mail addresses and commented text are not citations)
    assert set(gt.keys()) == {r["input_id"] for r in rows}
    assert len(gt.works) == 635 and gt.missing == []
    # every key resolves (through the tag aliases of 90.back-matter.md) to the tsv's work
    by_key = {w.key: w for w in gt.works}
    for row in rows:
        assert persistent_id(row["standard_id"]) in by_key[row["input_id"]].ids, row
        assert persistent_id(row["dealiased_id"]) in by_key[row["input_id"]].ids, row
    # 635 keys name 615 distinct works, as the tsv's 615 standard ids
    groups = gt.distinct_works()
    assert len(groups) == len({r["standard_id"] for r in rows}) == 615
    # the bibliography entry each key finds is the one Manubot used (short_id)
    short = {r["input_id"]: r["short_id"] for r in rows}
    linked = [w for w in gt.works if w.entry_key]
    assert all(w.entry_key == short[w.key] for w in linked)
    # 18 keys (web pages whose URL Manubot rewrote: redirects, a dropped ".pdf") find no CSL
    # entry by id; they stay works of the GT (with their url: id) but have no title
    assert len(linked) == 617


def test_braced_groups_count_nesting_skip_escapes_and_refuse_an_unclosed_one():
    text = r"\title{A {nested} \} title} rest"
    assert braced(text, text.index("{")) == r"A {nested} \} title"
    assert group_end(text, text.index("{")) == text.index(" rest")
    assert braced("{never closed", 0) is None
    assert group_end(r"[opt {]} x]{k}", 0, "[", "]") == len(r"[opt {]} x]")
