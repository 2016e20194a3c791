"""The `export` command: `export RUN_DIR --trec/--bibtex …` (`report.commands`) and
`export inspect RUN_DIR… --out DIR [--format eval|json] [--max-chars N]`.

`cli.COMMANDS` adds it with `add_export_parser`, and names `normalise_export_argv`, which reads
`export X …` as `export RUN_DIR X …` unless X is a form (`inspect`), as `score RUN_DIR` is read.
inspect-ai is the optional extra `scholarbench[inspect]`: without it `export inspect` is one
error line saying so.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.report.commands import EXPORT_RUN_DIR, add_export_run_dir_form
from scholarbench.report.suite import expand

INSTALL = "pip install 'scholarbench[inspect]'"


FORMS = ("inspect",)          # `export FORM …`; any other first word is `export RUN_DIR …`


def add_export_parser(sub: Any) -> None:
    """`export`, with its two forms."""
    export = sub.add_parser(
        "export", help="an agent's retrieved papers as a TREC run and/or BibTeX (export "
        "RUN_DIR); runs as Inspect eval logs (export inspect RUN_DIR… --out DIR)")
    forms = export.add_subparsers(dest="export_form", required=True, metavar="RUN_DIR|inspect")
    add_export_run_dir_form(forms)
    add_inspect_parser(forms)


def normalise_export_argv(argv: list[str]) -> list[str]:
    """`export PATH …` → `export RUN_DIR PATH …` unless PATH names a form (`export inspect`)."""
    if argv[:1] == ["export"]:
        first = argv[1] if len(argv) > 1 else ""
        if first not in (*FORMS, EXPORT_RUN_DIR, "-h", "--help"):
            return [argv[0], EXPORT_RUN_DIR, *argv[1:]]
    return argv


def add_inspect_parser(forms: Any) -> None:
    p = forms.add_parser("inspect", help="write each run directory as an Inspect eval log "
                         "(inspect-ai; open with `inspect view --log-dir DIR`; docs/inspect.md)")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                   help="finished run directories, or an eval suite directory (its runs)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder the logs are written to "
                   "(<run folder>.eval each)")
    p.add_argument("--format", choices=["eval", "json"], default="eval",
                   help="Inspect's log format (default eval; json: one JSON file per run)")
    p.add_argument("--max-chars", type=int, default=None, metavar="N",
                   help="cut a prompt or an answer beyond N characters, with a note counting "
                   "the rest (default 20000; 0: never)")
    p.add_argument("--trust-content", action="store_true",
                   help="let `inspect view` render the answers richly (markdown, links, media "
                   "they point to); by default it shows them as plain text, since agents' "
                   "answers are untrusted")
    p.set_defaults(func=cmd_export_inspect)


def cmd_export_inspect(args: argparse.Namespace) -> int:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise ScholarbenchError(f"export inspect needs inspect-ai: {INSTALL}") from None
    # deferred: inspect-ai is an optional extra (and ~4 s to import)
    from scholarbench.export.inspect_log import MAX_CHARS, export_inspect
    if args.max_chars is not None and args.max_chars < 0:
        raise ScholarbenchError("--max-chars must be >= 0")
    run_dirs, _ = expand([Path(p) for p in args.run_dirs])
    written = export_inspect(run_dirs, Path(args.out), args.format,
                             MAX_CHARS if args.max_chars is None else args.max_chars,
                             args.trust_content)
    for w in written:
        state = "" if w.status == "success" else f" [{w.status}: incomplete run]"
        print(f"wrote {w.path} ({w.task}, {w.samples} samples){state}")
        if w.missing_inputs:
            print(f"note: {w.path}: no prompts or gold in the log: {w.missing_inputs}",
                  file=sys.stderr)
    return 0


__all__ = ["INSTALL", "add_inspect_parser", "cmd_export_inspect"]
