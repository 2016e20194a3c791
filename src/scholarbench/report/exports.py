"""Exports: leaderboard tables (terminal, Markdown, CSV, LaTeX), TREC runs and BibTeX of an
agent's retrieved papers.

Tables go through each benchmark's report section (`report.sections`) and the shared renderers
of `report.tables`, so every format shows the same cells as the HTML report. CSV holds one
benchmark's runs (its columns are that benchmark's metrics).

TREC (`export_trec`):
- ResearchArena discovery/selection runs: the run's own run.trec (written when it was scored,
  canonical, identical rankings to generate.jsonl), validated and copied; `qrels_out` copies
  qrels.trec.
- a benchmark's registered "export" (`RetrievalExport`: retrieved lists and qrels), e.g.
  TaxoBench Deep Research runs (benchmarks/taxobench/exports.py): one query per sample (qid = the sample id), the agent's
  retrieved papers in its order (`retrieved_papers`, else the papers of its taxonomy). docid =
  the corpus paper_id of the title when the run's corpus is still there and the normalised title
  names exactly one corpus paper, else `title:<sha1 of the normalised title, 16 hex>` — the id
  scheme the corpus itself gives papers known only by title. Rank i of n gets score n − i + 1
  (ResearchArena's rule, so trec_eval never reorders the list); a docid repeated in one list
  keeps its first rank. Samples without a prediction get no lines (trec_eval -c scores them 0).
  `qrels_out` writes the expert papers (grade 1) with the same ids; note that trec_eval then
  matches ids exactly, while TaxoBench's own retrieval scores align titles fuzzily (A.5), so its
  recall can only be lower or equal.
- Bottom-Up and organisation runs retrieve nothing: a clear error.

BibTeX (`export_bibtex`): one `@misc` entry per distinct retrieved paper (first-seen order over
the samples, or one sample), with the title (LaTeX specials escaped, braces as \\textbraceleft{}
and \\textbraceright{} so BibTeX's brace counting never breaks, double-braced to keep its
capitalisation), year, arXiv eprint and DOI when the corpus knows them, and a note naming the
scholarbench id, the agent, how many samples retrieved it and its best rank.
"""
from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.corpus.merge import paper_id_for
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.errors import ScholarbenchError
from scholarbench.registry import REGISTRY
from scholarbench.report.corpus_lookup import corpus_dir_of, ids_for_titles, papers_by_id
from scholarbench.report.sections.base import (ReportRun, by_benchmark, load_report_run,
                                               load_report_runs)
from scholarbench.report.formats import TABLE_FORMATS
from scholarbench.report.cost import cost_groups
from scholarbench.report.epochs import epoch_groups
from scholarbench.report.judges import judge_groups
from scholarbench.report.tables import latex_escape, render_groups
from scholarbench.text.escape import latex_comment
from scholarbench.text.normalize import normalize_title
from scholarbench.injection.unflagged import report_notes
from scholarbench.leakage.unleaked import report_notes as leak_notes
from scholarbench.llm.secrets import redact
from scholarbench.data.trec import read_run, write_qrels, write_run

LATEX_PREAMBLE = ("% scholarbench leaderboard tables; needs \\usepackage{booktabs} "
                  "(and a UTF-8 input encoding)")


def leaderboard_text(runs: Sequence[ReportRun], fmt: str = "terminal",
                     published: bool = True) -> str:
    """The leaderboards of runs of any benchmarks, in one of TABLE_FORMATS."""
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(TABLE_FORMATS)}, not {fmt!r}")
    if not runs:
        return "No runs to report."
    grouped = by_benchmark(runs)
    if fmt == "csv":
        if len(grouped) > 1:
            raise ScholarbenchError("--format csv takes the runs of one benchmark (got "
                                    + ", ".join(s.benchmark for s, _ in grouped)
                                    + "); run it once per benchmark")
        section, section_runs = grouped[0]
        return section.csv(section_runs)
    groups, notes = [], []
    for section, section_runs in grouped:
        groups.extend(section.groups(section_runs, published))
        notes.extend(section.footnotes(section_runs, published))
        notes.extend(report_notes(section_runs))
        notes.extend(leak_notes(section_runs))
    groups.extend(judge_groups(runs))          # every judged run's judges, their rankings
    groups.extend(epoch_groups(runs))          # runs of K > 1 epochs: their spread
    groups.extend(cost_groups(runs))           # score and cost, the Pareto front (docs/cost.md)
    text = render_groups(groups, fmt, notes)
    return f"{LATEX_PREAMBLE}\n\n{text}" if fmt == "latex" else text


def export_tables(run_dirs: Sequence[Path | str], fmt: str, out_path: Path | str | None = None,
                  published: bool = True) -> str:
    """Load runs and render their tables; also written to `out_path` when given."""
    text = redact(leaderboard_text(load_report_runs(list(run_dirs)), fmt, published), prose=True)
    if out_path is not None:
        Path(out_path).write_text(text if text.endswith("\n") else text + "\n",
                                  encoding="utf-8")
    return text


# ------------------------------------------------------------------------------------- TREC

@dataclass(frozen=True)
class RetrievalExport:
    """What a benchmark registers (kind "export", under its name) for `export trec` and
    `export bibtex` of its runs: each sample's retrieved papers, and its qrels."""
    retrieved_lists: Callable[[ReportRun], list["RetrievedList"]]
    qrels: Callable[[ReportRun], dict[str, dict[str, int]]]


@dataclass(frozen=True)
class RetrievedList:
    """One sample's retrieved papers in rank order: (docid, title or None)."""
    sample_id: str
    papers: list[tuple[str, str | None]]
    duplicates_dropped: int = 0


def title_docids(run: ReportRun, titles: Sequence[str]) -> dict[str, str]:
    """normalised title → docid (corpus paper_id when unambiguous, else title:<sha1>)."""
    found = ids_for_titles(corpus_dir_of(run.manifest), titles)
    return {normalize_title(t): found.get(normalize_title(t)) or paper_id_for(t)
            for t in titles if normalize_title(t)}


def retrieved_lists(run: ReportRun) -> list[RetrievedList]:
    """Each sample's retrieved papers, for the benchmarks and modes that retrieve."""
    if run.benchmark == "researcharena":
        if run.mode == "organisation":
            raise ScholarbenchError(f"{run.run_dir}: an organisation run retrieves no papers")
        out = []
        for rec in read_jsonl_tolerant(run.run_dir / "generate.jsonl"):
            ranking = rec.get("ranking")
            if not isinstance(ranking, list):
                continue
            seen: set[str] = set()
            papers, dropped = [], 0
            for entry in ranking:
                pid = entry[0] if isinstance(entry, list) and entry else None
                if not isinstance(pid, str):
                    continue
                if pid in seen:
                    dropped += 1
                    continue
                seen.add(pid)
                papers.append((pid, None))
            out.append(RetrievedList(str(rec.get("id")), papers, dropped))
        return out
    export = REGISTRY.find("export", run.benchmark)
    if export is not None:
        return export.retrieved_lists(run)
    raise ScholarbenchError(f"no retrieved-paper export for {run.benchmark} runs yet")


def _tag(run: ReportRun) -> str:
    return re.sub(r"\s+", "_", run.name) or "run"


@dataclass(frozen=True)
class TrecExport:
    path: Path
    queries: int
    lines: int
    duplicates_dropped: int
    qrels_path: Path | None = None


def export_trec(run_dir: Path | str, out_path: Path | str,
                qrels_out: Path | str | None = None) -> TrecExport:
    """Write the run's retrieved papers as a TREC run (see the module docstring)."""
    run = load_report_run(run_dir)
    out = Path(out_path)
    if run.benchmark == "researcharena" and run.mode != "organisation":
        source = run.run_dir / "run.trec"
        if not source.is_file():
            raise ScholarbenchError(f"{source} is missing; re-score the run "
                                    f"(scholarbench score {run.run_dir})")
        parsed = read_run(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        if source.resolve() != out.resolve():
            shutil.copyfile(source, out)
        qrels_path = None
        if qrels_out is not None:
            qrels_path = Path(qrels_out)
            shutil.copyfile(run.run_dir / "qrels.trec", qrels_path)
        return TrecExport(out, len(parsed), sum(len(d) for d in parsed.scores.values()), 0,
                          qrels_path)
    lists = retrieved_lists(run)
    scores = {r.sample_id: {docid: float(len(r.papers) - i)
                            for i, (docid, _) in enumerate(r.papers)} for r in lists}
    write_run(out, scores, _tag(run))
    qrels_path = None
    if qrels_out is not None:
        qrels_path = Path(qrels_out)
        write_qrels(qrels_path, REGISTRY.get("export", run.benchmark).qrels(run))
    return TrecExport(out, sum(1 for s in scores.values() if s),
                      sum(len(s) for s in scores.values()),
                      sum(r.duplicates_dropped for r in lists), qrels_path)


# ----------------------------------------------------------------------------------- BibTeX

_BIB = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}


def bibtex_escape(text: str) -> str:
    """Text for a braced BibTeX field: LaTeX specials escaped, braces never left unbalanced."""
    return "".join(_BIB.get(ch) or latex_escape(ch) for ch in str(text))


def _key(paper_id: str, title: str | None, year: Any, used: set[str]) -> str:
    kind, _, value = paper_id.partition(":")
    if kind == "title" or not value:
        words = [w for w in normalize_title(title or "").split() if len(w) > 3] or ["paper"]
        base = f"{words[0]}{year or ''}{value[:6] if kind == 'title' else ''}"
    else:
        base = f"{kind}{value}"
    base = re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_") or "paper"
    key, suffix = base, 0
    while key in used:
        suffix += 1
        key = f"{base}_{suffix}"
    used.add(key)
    return key


def bibtex_entries(run: ReportRun, sample: str | None = None) -> list[str]:
    lists = retrieved_lists(run)
    if sample is not None:
        lists = [r for r in lists if r.sample_id == sample]
        if not lists:
            raise ScholarbenchError(f"{run.run_dir}: no retrieved papers for sample {sample!r}")
    order: dict[str, dict[str, Any]] = {}
    for r in lists:
        for rank, (docid, title) in enumerate(r.papers, start=1):
            info = order.setdefault(docid, {"title": title, "samples": [], "best": rank})
            info["samples"].append(r.sample_id)
            info["best"] = min(info["best"], rank)
            if info["title"] is None and title:
                info["title"] = title
    corpus = papers_by_id(corpus_dir_of(run.manifest), list(order))
    used: set[str] = set()
    entries = []
    for docid, info in order.items():
        row = corpus.get(docid, {})
        title = info["title"] or row.get("title")
        year = row.get("year")
        ids = list(row.get("ids") or []) + [docid]
        fields = [("title", "{" + bibtex_escape(title) + "}" if title else bibtex_escape(docid))]
        if year:
            fields.append(("year", str(int(year))))
        arxiv = next((i.split(":", 1)[1] for i in ids if i.startswith("arxiv:")), None)
        doi = next((i.split(":", 1)[1] for i in ids if i.startswith("doi:")), None)
        if arxiv:
            fields += [("eprint", bibtex_escape(arxiv)), ("archivePrefix", "arXiv")]
        if doi:
            fields.append(("doi", bibtex_escape(doi)))
        n = len(info["samples"])
        where = (f"sample {info['samples'][0]}" if n == 1 else f"{n} samples")
        note = (f"scholarbench id {docid}; retrieved by {run.name} ({run.benchmark} "
                f"{run.mode}) for {where}, best rank {info['best']}"
                + ("" if title else "; title unknown (the run's corpus is not available)"))
        fields.append(("note", bibtex_escape(note)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@misc{{{_key(docid, title, year, used)},\n{body}\n}}")
    return entries


def export_bibtex(run_dir: Path | str, out_path: Path | str, sample: str | None = None) -> int:
    """Write the BibTeX of the run's retrieved papers; returns the number of entries."""
    run = load_report_run(run_dir)
    entries = bibtex_entries(run, sample)
    about = (f"Papers retrieved by {run.name} ({run.benchmark} {run.mode}), {len(entries)} "
             f"entries; exported by scholarbench from {run.run_dir}")
    header = f"% {latex_comment(about)}\n\n"      # a name's newline never ends the comment
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(header + "\n\n".join(entries) + "\n",
                   encoding="utf-8")
    return len(entries)
