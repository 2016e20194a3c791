"""Command-line entry points of the report layer: `report`, `compare`, `export`.

The command line (`cli.COMMANDS`) adds each with its own function: `add_report_parser`,
`add_compare_parser`; `export RUN_DIR` is the form `add_export_run_dir_form` that
`export.commands.add_export_parser` adds beside `export inspect`. `add_report_arguments` adds the report options to
any parser, also one that already has `run_dirs`, `--format` and `--no-published` (it widens
--format's choices and adds the rest), and sets `func=cmd_report`.
Errors are ScholarbenchError / DataError, which `cli.main` prints as `error: ...` with exit 2.
What `report` writes goes through `llm.secrets.redact(prose=True)` (runs recorded before URLs were
redacted, a key echoed into an answer).
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.secrets import redact
from scholarbench.files import require_regular
from scholarbench.report.formats import TABLE_FORMATS

EXPORT_RUN_DIR = "RUN_DIR"        # `export RUN_DIR …`: the TREC / BibTeX form
_SUFFIX_FORMAT = {".md": "markdown", ".markdown": "markdown", ".csv": "csv", ".tex": "latex",
                  ".txt": "terminal"}


def add_report_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """`report RUN_DIR …`: the leaderboards, HTML report and table exports of finished runs."""
    report = sub.add_parser("report", help="leaderboard of finished runs beside the paper's rows")
    report.add_argument("run_dirs", nargs="+")
    report.add_argument("--format", choices=["terminal", "markdown", "csv"], default="terminal")
    report.add_argument("--no-published", action="store_true", help="leave out the paper's rows")
    return add_report_arguments(report)


def add_report_arguments(report_parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the report options to the `report` sub-command's parser (see the module docstring)."""
    options = report_parser._option_string_actions     # argparse keeps no public view
    if not any(a.dest == "run_dirs" for a in report_parser._actions):
        report_parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                                   help="finished run directories (any benchmark), or an "
                                   "eval suite directory (its eval.json: a suite overview "
                                   "first, then its runs)")
    table_format = {"choices": [*TABLE_FORMATS, "html"], "default": None,
                    "help": "leaderboard table format (default: terminal; from --out's suffix "
                            ".md/.csv/.tex/.html when given); html: the HTML report written "
                            "to --out, the same as --html OUT"}
    if "--format" in options:
        for key, value in table_format.items():
            setattr(options["--format"], key, value)
    else:
        report_parser.add_argument("--format", **table_format)
    if "--no-published" not in options:
        report_parser.add_argument("--no-published", action="store_true",
                                   help="leave out the papers' published rows")
    report_parser.add_argument("--html", metavar="OUT.html",
                               help="write the self-contained HTML report (plots, drill-down, "
                               "taxonomy views, run metadata) to this file")
    report_parser.add_argument("--out", metavar="FILE",
                               help="write the leaderboard tables to FILE instead of stdout")
    report_parser.add_argument("--title", default="scholarbench report",
                               help="HTML report title")
    report_parser.add_argument("--max-samples", type=int, metavar="N",
                               help="HTML drill-down: at most N samples per benchmark and mode")
    report_parser.add_argument("--include-incomplete", action="store_true",
                               help="also show runs whose samples errored (marked incomplete); "
                               "by default they are left out of the leaderboards")
    report_parser.add_argument("--no-tree-papers", action="store_true",
                               help="HTML taxonomy views: categories only, no paper titles")
    report_parser.set_defaults(func=cmd_report, format=None)
    return report_parser


def complete_runs(runs: list, include_incomplete: bool) -> list:
    """Runs whose summary says they are incomplete (samples errored: no result) are left out,
    with one line each on stderr; with `include_incomplete` they stay, named as incomplete."""
    kept = []
    for run in runs:
        if run.raw_summary.get("complete") is False:
            errors = (run.raw_summary.get("status") or {}).get("error", 0)
            if not include_incomplete:
                print(f"note: {run.run_dir} left out: incomplete ({errors} errored sample(s); "
                      "resume the run, or pass --include-incomplete)", file=sys.stderr)
                continue
            run.summary = replace(run.summary, run_name=f"{run.name} [incomplete]")
        kept.append(run)
    if not kept:
        raise ScholarbenchError("no complete run to report (pass --include-incomplete to show "
                                "incomplete ones)")
    return kept


def cmd_report(args: argparse.Namespace) -> int:
    """Tables to stdout (or --out), and/or the HTML report (--html)."""
    # deferred: pulls in pydantic, numpy and DuckDB (`report --help` loads none of them)
    from scholarbench.report.exports import leaderboard_text
    from scholarbench.report.sections import load_report_runs
    from scholarbench.report.suite import expand, overview_group
    from scholarbench.report.tables import render_groups
    run_dirs, suites = expand([Path(p) for p in args.run_dirs])
    loaded = load_report_runs(run_dirs)
    overview = [overview_group(suite, loaded) for suite in suites]
    try:
        runs = complete_runs(loaded, getattr(args, "include_incomplete", False))
    except ScholarbenchError:
        if not overview:
            raise
        runs = []                      # a suite with no complete run: its overview only
    published = not getattr(args, "no_published", False)
    html = getattr(args, "html", None)
    out = getattr(args, "out", None)
    max_samples = getattr(args, "max_samples", None)
    if max_samples is not None and max_samples < 0:
        raise ScholarbenchError("--max-samples must be >= 0")
    fmt = getattr(args, "format", None)
    if fmt is None and out and Path(out).suffix.lower() in (".html", ".htm") and not html:
        fmt = "html"
    if fmt == "html":                  # the form users try: the HTML report, to --out
        if not out or html:
            raise ScholarbenchError("--format html writes the HTML report to a file: give "
                                    "--out REPORT.html (or --html REPORT.html), not both")
        html, out, fmt = out, None, None
    if fmt is None and out:
        fmt = _SUFFIX_FORMAT.get(Path(out).suffix.lower(), "terminal")
    if fmt is None and not html:
        fmt = "terminal"
    tables_to_stdout = fmt is not None and not out
    if html:
        # deferred: the HTML report's own module, only with --html
        from scholarbench.report.html import render_html_report, side_page, write_side_files
        path = Path(html)
        title = getattr(args, "title", None) or "scholarbench report"
        page = side_page(path)
        text = redact(render_html_report(runs, published=published, overview=overview,
                                         title=title, max_samples=max_samples,
                                         tree_papers=not getattr(args, "no_tree_papers", False),
                                         page=page),
                      prose=True)
        require_regular(path, output=True)     # never rename over a device or a FIFO
        path.parent.mkdir(parents=True, exist_ok=True)
        write_side_files(path, page, title)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        pages = (f"; drill-down pages in {path.parent / str(page.side_folder)}/"
                 if page.side_pages else "")
        print(f"wrote {path} ({len(text.encode('utf-8')) / 1024:.0f} KB, {len(runs)} run"
              f"{'' if len(runs) == 1 else 's'}{pages})",
              file=sys.stderr if tables_to_stdout else sys.stdout)
    if fmt is None:
        return 0
    text = leaderboard_text(runs, fmt, published) if runs else ""
    if overview and fmt != "csv":          # CSV is one benchmark's table: no overview
        text = render_groups(overview, fmt) + ("\n\n" + text if text else "")
    text = redact(text, prose=True)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"wrote {out} ({fmt})")
    elif fmt == "csv":
        print(text, end="")
    else:
        print(text)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    # deferred: pulls in pydantic and numpy (the runs' records)
    from scholarbench.report.compare import compare_runs, format_comparison
    result = compare_runs(Path(args.run_a), Path(args.run_b), n_boot=args.n_boot,
                          seed=args.seed, metrics=args.metrics or None)
    if args.format == "json":
        print(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(format_comparison(result, args.format))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    # deferred: pulls in DuckDB, pyarrow, pydantic and numpy
    from scholarbench.report.exports import export_bibtex, export_trec
    if not (args.trec or args.bibtex):
        raise ScholarbenchError("export needs --trec OUT and/or --bibtex OUT")
    if args.qrels and not args.trec:
        raise ScholarbenchError("--qrels goes with --trec")
    if args.trec:
        info = export_trec(Path(args.run_dir), Path(args.trec),
                           Path(args.qrels) if args.qrels else None)
        print(f"wrote {info.path}: {info.lines} lines for {info.queries} queries"
              + (f", {info.duplicates_dropped} repeated papers dropped"
                 if info.duplicates_dropped else "")
              + (f"; qrels {info.qrels_path}" if info.qrels_path else ""))
    if args.bibtex:
        n = export_bibtex(Path(args.run_dir), Path(args.bibtex), sample=args.sample)
        print(f"wrote {args.bibtex}: {n} BibTeX entries")
    return 0


def add_compare_parser(subparsers) -> None:
    """Add the `compare` sub-command to the CLI's sub-parsers."""
    cmp = subparsers.add_parser(
        "compare", help="per-metric differences between two runs with paired bootstrap CIs "
        "and a paired permutation test, on the samples both share")
    cmp.add_argument("run_a", metavar="RUN_A")
    cmp.add_argument("run_b", metavar="RUN_B")
    cmp.add_argument("--metric", action="append", dest="metrics", metavar="M",
                     help="compare only this metric (repeatable; default: all)")
    cmp.add_argument("--n-boot", type=int, default=10000,
                     help="bootstrap resamples (and permutation resamples) (default 10000)")
    cmp.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    cmp.add_argument("--format", choices=["terminal", "markdown", "json"], default="terminal")
    cmp.set_defaults(func=cmd_compare)


def add_export_run_dir_form(forms: Any) -> None:
    """`export RUN_DIR …`, the TREC / BibTeX form, among the `export` command's forms
    (`export.commands.add_export_parser`)."""
    exp = forms.add_parser(EXPORT_RUN_DIR, help="an agent's retrieved papers as a TREC run "
                           "and/or BibTeX")
    exp.add_argument("run_dir", metavar="RUN_DIR")
    exp.add_argument("--trec", metavar="OUT", help="write a TREC run file")
    exp.add_argument("--qrels", metavar="OUT", help="with --trec: also write the qrels")
    exp.add_argument("--bibtex", metavar="OUT", help="write a BibTeX file")
    exp.add_argument("--sample", metavar="ID", help="BibTeX: only this sample's papers")
    exp.set_defaults(func=cmd_export)
