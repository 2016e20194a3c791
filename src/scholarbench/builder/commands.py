"""`scholarbench build SOURCE… --benchmarks taxobench,deepsynth,… --out DIR`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scholarbench.benchmarks.reportbench.construct import GRANULARITIES
from scholarbench.llm.commands import add_model_flags, roles_from_args
from scholarbench.paths import data_dir
from scholarbench.builder.api import build, check_benchmarks
from scholarbench.builder.unarxive import unarxive_source
from scholarbench.errors import ScholarbenchError


def cmd_build(args: argparse.Namespace) -> int:
    names = check_benchmarks(args.benchmarks.split(","))
    corpus = None
    if not args.no_corpus:
        # deferred: pulls in DuckDB and pyarrow, only with a corpus
        from scholarbench.corpus.store import Corpus
        folder = Path(args.corpus) if args.corpus else data_dir(args.data) / "corpus" / "default"
        if args.corpus or (folder / "manifest.json").is_file():
            corpus = Corpus.open(folder)
    client = None
    if "deepsynth" in names or "reportbench" in names:
        client = roles_from_args(args, need_agent=False, need_judge=True).judge
    graph = _graph_loader(args) if "scinet" in names else None
    sources = [unarxive_source(s, Path(args.unarxive) if args.unarxive else None, corpus,
                               data_dir(args.data)) for s in args.sources]
    result = build(sources, names, Path(args.out), corpus=corpus, client=client,
                   bibliographies=args.bib or (), arxiv_ids=args.arxiv_id or (),
                   survey_dates=args.survey_date or (), granularity=args.granularity,
                   graph=graph, concurrency=args.concurrency)
    for name, path in result.files.items():
        folder = path.parent if path.is_file() else path
        print(f"{name}: {result.written[name]} task(s) in {path}  ({_use(name, path, folder)})")
    print(f"review: {Path(args.out) / 'review.md'}; manifest: {Path(args.out) / 'manifest.json'}"
          f"{'' if corpus else '; no corpus: abstracts from the bibliographies only'}")
    kept = len(result.units) - result.built
    print(f"units: {result.built} built, {kept} kept from an earlier build into {args.out}"
          + (f" ({result.changed} built again: their source or options changed)"
             if result.changed else ""))
    empty = [name for name, n in result.written.items() if n == 0]
    if result.errors:
        first = result.errors[0]
        print(f"error: {len(result.errors)} unit(s) not built ({first}: "
              f"{result.reasons.get(first)}{'; …' if len(result.errors) > 1 else ''}); run the "
              "same build again: done units are kept, these are built again", file=sys.stderr)
        return 3
    if empty:
        print(f"error: no task written for {', '.join(empty)} (see the review file)",
              file=sys.stderr)
        return 1
    return 0


def _use(name: str, path: Path, folder: Path) -> str:
    if name == "researcharena":
        return f"run with `scholarbench run researcharena --tasks-from {path} --corpus …`"
    if name == "scinet":
        return f"run with `scholarbench run scinet --task pair|path --tasks {path} --graph …`"
    return f"import with `scholarbench data import {name} {folder}`"


def _graph_loader(args: argparse.Namespace):
    """SciNet's citation graph as `run scinet` opens it: --graph, else the imported arxiv2023;
    contexts from --unarxive, else the imported unarxive when present. Opened when needed."""
    data = data_dir(args.data)
    graph = Path(args.graph) if args.graph else data / "arxiv2023"
    unarxive = Path(args.unarxive) if args.unarxive else data / "unarxive"
    if not graph.exists():
        raise ScholarbenchError(f"scinet: no citation graph at {graph}: scholarbench data "
                                "import arxiv2023 PATH, or pass --graph DIR")

    def load():
        # deferred: pulls in pyarrow and SciNet's graph, only for scinet
        from scholarbench.benchmarks.scinet.env import SciNetEnv
        return SciNetEnv.from_arxiv2023(graph, unarxive if unarxive.exists() else None)
    load.identity = {"graph": str(graph),                          # type: ignore[attr-defined]
                     "unarxive": str(unarxive) if unarxive.exists() else None}
    return load


def add_build_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build benchmark tasks (TaxoBench, DeepSynth-Eval, "
                       "ReportBench, ResearchArena, SciNet) from survey sources "
                       "(Manubot/Pandoc Markdown, LaTeX + .bib)")
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="a Manubot folder (content/*.md), a .md file, a .tex file or a LaTeX "
                   "folder; or a paper with unarXive full text: unarxive:FILE_OR_DIR#ARXIV_ID, "
                   "or an arXiv id or corpus paper id (read from --unarxive)")
    p.add_argument("--benchmarks", required=True,
                   help="comma-separated: taxobench, deepsynth, reportbench, "
                   "researcharena, scinet")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--bib", action="append", metavar="FILE",
                   help="bibliography (.bib, .bbl, CSL .json) for the sources; repeatable")
    p.add_argument("--arxiv-id", action="append", metavar="ID",
                   help="the survey's arXiv id, one per SOURCE in order (`none` for a "
                   "survey not on arXiv): reportbench keys its task by it (without it: "
                   "local-<slug>), researcharena finds the survey in the corpus by it")
    p.add_argument("--survey-date", action="append", metavar="YYYY-MM-DD",
                   help="the date of the survey's latest version, one per SOURCE in order: "
                   "reportbench (required; the prompt's cut-off month), researcharena "
                   "(optional; the leakage cut-off)")
    p.add_argument("--granularity", choices=GRANULARITIES, default="sentence",
                   help="reportbench: the constructed prompt's granularity (paper §2.1.2)")
    p.add_argument("--graph", help="scinet: the citation graph folder (arxiv2023 format; "
                   "default: the imported arxiv2023), as `run scinet --graph`")
    p.add_argument("--unarxive", help="unArXive folder: full text of SOURCEs given as arXiv or "
                   "corpus ids (default: the corpus's unarXive input, else the imported "
                   "unarxive); scinet: citation contexts (default: the imported unarxive, "
                   "when present)")
    p.add_argument("--corpus", help="corpus folder (default: the data dir's default corpus "
                   "when it exists)")
    p.add_argument("--no-corpus", action="store_true", help="resolve nothing in a corpus")
    p.add_argument("--data", help="data directory (default: $SCHOLARBENCH_DATA, then the "
                   "per-user data dir)")
    p.add_argument("--concurrency", type=int, default=1, metavar="N",
                   help="(survey, benchmark) units built at once (default 1); the files are "
                   "the same as one at a time")
    add_model_flags(p, agent=False)          # DeepSynth's generation steps use the judge role
    p.set_defaults(func=cmd_build)
