"""Exports: Markdown / CSV / LaTeX tables, TREC runs of retrieved papers, BibTeX; the CLI wiring
of `report`, `compare` and `export` (cli.py is wired by hand: see report/commands.py)."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest

from scholarbench import cli
from scholarbench.corpus.merge import paper_id_for
from scholarbench.data.trec import read_qrels, read_run
from scholarbench.errors import ScholarbenchError
from scholarbench.report.exports import (bibtex_escape, export_bibtex, export_tables,
                                         export_trec, leaderboard_text)
from scholarbench.report.sections import load_report_runs
from scholarbench.benchmarks.taxobench.tables import leaderboard, load_runs
from scholarbench.report.tables import latex_escape
from scholarbench.benchmarks.researcharena.files import score_researcharena_files

from test_report_html import (arena_runs, flat_prediction, make_taxobench_run,  # noqa: F401
                              taxo_runs)
from scholarbench.data.demo import demo_records


def wired_main(argv) -> int:
    """The real command line (cli.py wires the report, compare and export commands)."""
    return cli.main(argv)


@pytest.mark.parametrize("text, expected", [
    ("a & b", r"a \& b"), ("100%", r"100\%"), ("$x$", r"\$x\$"), ("#1", r"\#1"),
    ("snake_case", r"snake\_case"), ("{x}", r"\{x\}"), ("~", r"\textasciitilde{}"),
    ("^", r"\textasciicircum{}"), ("a\\b", r"a\textbackslash{}b"),
    ("ARI∩↑", r"ARI\ensuremath{\cap}\ensuremath{\uparrow}"), ("—", "---"),
])
def test_latex_escape(text, expected):
    assert latex_escape(text) == expected


def test_latex_tables_escape_specials_and_mark_published(tmp_path):
    from test_report import make_run
    d = make_run(tmp_path, "r", mode="deep-research", agent="x", run_name="my_agent & 100% #1 {v2}")
    text = leaderboard_text(load_report_runs([d]), "latex")
    assert text.startswith("% scholarbench leaderboard tables; needs \\usepackage{booktabs}")
    assert r"my\_agent \& 100\% \#1 \{v2\}" in text
    assert "\\textit{o3 (published)}" in text
    for line in text.splitlines():
        if line.startswith("%"):
            continue
        body = re.sub(r"\\[a-zA-Z]+|\\[&%$#_{}]", "", line)   # drop commands and escapes
        assert not re.search(r"[&%$#_]", body.replace(" & ", " ")), line
        assert body.count("{") == body.count("}"), line
    assert text.count("\\begin{table}") == text.count("\\end{table}") == 3
    assert text.count("\\begin{tabular}{lrrrr}") == 2           # Tables 2 and 5: 2 + 3 columns
    assert text.count("\\begin{tabular}{lrrrrrrrr}") == 1       # Table 3: 2 + 7


def test_markdown_and_csv_reuse_the_existing_tables(taxo_runs):
    runs = load_report_runs(taxo_runs)
    summaries = load_runs(taxo_runs)
    assert leaderboard_text(runs, "markdown") == leaderboard(summaries, fmt="markdown")
    assert leaderboard_text(runs, "terminal") == leaderboard(summaries)
    rows = list(csv.DictReader(io.StringIO(leaderboard_text(runs, "csv"))))
    assert [r["system"] for r in rows] == ["flat-bu", "flat-dr"]


def test_researcharena_tables_and_csv(arena_runs, tmp_path):
    a, b, _ = arena_runs
    text = export_tables([a, b], "markdown", tmp_path / "t.md")
    assert (tmp_path / "t.md").read_text().startswith(text[:50])
    assert "### Table 1 layout — Information discovery" in text
    assert "| Title (BM25) (published) |" in text
    rows = list(csv.DictReader(io.StringIO(export_tables([a, b], "csv"))))
    summary = json.loads((a / "summary.json").read_text())
    assert float(rows[0]["R@100"]) == summary["metrics"]["R@100"]["mean"]
    assert rows[0]["n_unscorable"] == "1" and rows[1]["n_missing"] == "1"
    mixed = load_report_runs([a, make_taxobench_run(tmp_path, "t-bu")])
    with pytest.raises(ScholarbenchError, match="one benchmark"):
        leaderboard_text(mixed, "csv")


def test_trec_export_of_a_taxobench_deep_research_run(taxo_runs, tmp_path):
    dr = taxo_runs[1]
    info = export_trec(dr, tmp_path / "run.trec", tmp_path / "qrels.trec")
    preds = [json.loads(x) for x in (dr.parent / "flat-dr.pred.jsonl").read_text().splitlines()]
    run = read_run(tmp_path / "run.trec")
    assert info.queries == len(preds) and run.tags == ("flat-dr",)
    for pred in preds:
        lines = [x.split() for x in (tmp_path / "run.trec").read_text().splitlines()
                 if x.split()[0] == str(pred["id"])]
        assert [x[2] for x in lines] == [paper_id_for(t) for t in pred["retrieved_papers"]]
        assert [int(x[3]) for x in lines] == list(range(1, len(lines) + 1))
    qrels = read_qrels(tmp_path / "qrels.trec")
    assert set(qrels.query_ids) == {str(p["id"]) for p in preds}
    # exact titles: trec_eval's recall over the whole list equals our title-aligned recall
    scored = score_researcharena_files(tmp_path / "qrels.trec", tmp_path / "run.trec",
                                       tmp_path / "s.jsonl", measures=["R@100"])
    ours = json.loads((dr / "summary.json").read_text())["metrics"]["recall"]["mean"]
    assert scored["means"]["R@100"] == pytest.approx(ours)


def test_trec_export_of_a_researcharena_run_is_its_run_trec(arena_runs, tmp_path):
    a = arena_runs[0]
    info = export_trec(a, tmp_path / "a.trec", tmp_path / "a.qrels")
    assert (tmp_path / "a.trec").read_text() == (a / "run.trec").read_text()
    assert (tmp_path / "a.qrels").read_text() == (a / "qrels.trec").read_text()
    assert info.queries == 2


def test_exports_refuse_runs_that_retrieve_nothing(taxo_runs, arena_runs, tmp_path):
    with pytest.raises(ScholarbenchError, match="Bottom-Up run retrieves nothing"):
        export_trec(taxo_runs[0], tmp_path / "x.trec")
    with pytest.raises(ScholarbenchError, match="organisation run retrieves no papers"):
        export_bibtex(arena_runs[2], tmp_path / "x.bib")


def _braces_balanced(text: str) -> bool:
    depth = 0
    for ch in text:                     # BibTeX counts every brace, escaped or not
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_bibtex_of_retrieved_papers_escapes_specials(tmp_path):
    records = demo_records()
    nasty = "Braces {unbalanced & 100% $x_1$ #1 ~tilde^ back\\slash"
    preds = [flat_prediction(r, [nasty] + [p["title"] for p in r["pdfs"][:2]]
                             + ([nasty] if i == 0 else []))
             for i, r in enumerate(records)]
    dr = make_taxobench_run(tmp_path, "bib-dr", mode="deep-research", preds=preds,
                            records=records)
    n = export_bibtex(dr, tmp_path / "out.bib")
    text = (tmp_path / "out.bib").read_text()
    entries = re.findall(r"^@misc\{([^,]+),$", text, re.M)
    distinct = {nasty} | {p["title"] for r in records for p in r["pdfs"][:2]}
    assert n == len(entries) == len(distinct)             # repeats across samples merged
    assert len(set(entries)) == len(entries)              # unique keys
    assert all(re.fullmatch(r"[A-Za-z0-9_]+", k) for k in entries)
    assert (r"title = {{Braces \textbraceleft{}unbalanced \& 100\% \$x\_1\$ \#1 "
            r"\textasciitilde{}tilde\textasciicircum{} back\textbackslash{}slash}}") in text
    assert f"for {len(records)} samples, best rank 1" in text
    for entry in text.split("\n\n")[1:]:
        assert _braces_balanced(entry), entry
    one = export_bibtex(dr, tmp_path / "one.bib", sample=str(records[0]["id"]))
    assert one == 3
    assert bibtex_escape("{") == r"\textbraceleft{}"


def test_cli_compare_and_export(taxo_runs, arena_runs, tmp_path, capsys):
    a, b, _ = arena_runs
    assert wired_main(["compare", str(a), str(b), "--n-boot", "500", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "paired bootstrap" in out and "permutation" in out and "R@100" in out
    assert wired_main(["compare", str(a), str(b), "--metric", "R@10", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [m["metric"] for m in result["metrics"]] == ["R@10"]
    assert wired_main(["export", str(taxo_runs[1]), "--trec", str(tmp_path / "r.trec"),
                       "--bibtex", str(tmp_path / "r.bib")]) == 0
    assert "BibTeX entries" in capsys.readouterr().out
    assert wired_main(["export", str(taxo_runs[1])]) == 2
    assert "--trec OUT and/or --bibtex OUT" in capsys.readouterr().err
