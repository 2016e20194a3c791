"""The `scholarbench` command line."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.secrets import redact, redacting_std_streams, remember_environment

def cmd_data(args: argparse.Namespace) -> int:
    from scholarbench.data.store import import_dataset, list_datasets
    from scholarbench.paths import data_dir
    data = data_dir(args.data)
    if args.data_cmd == "import":
        entry = import_dataset(args.name, Path(args.path), data)
        print(f"imported {args.name} into {data / args.name}: {entry['files']}")
    else:
        print("\n".join(list_datasets(data)))
    return 0


def _default_corpus(data: Path, rebuild: bool = False) -> Path:
    from scholarbench.corpus.build import default_corpus
    return default_corpus(data, rebuild)


def cmd_corpus(args: argparse.Namespace) -> int:
    from scholarbench.paths import data_dir
    if args.action == "resolve":
        from scholarbench.corpus.resolve import resolve_command
        corpus = Path(args.corpus) if args.corpus else data_dir(args.data) / "corpus" / "default"
        text, unresolved = resolve_command(corpus, args.refs, args.file)
        print(text)
        if unresolved:
            print(f"{unresolved} reference(s) did not resolve (marked -)", file=sys.stderr)
        return 0
    _default_corpus(data_dir(args.data), rebuild=True)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from scholarbench.demo import run_demo
    run_demo(data=args.data, out=Path(args.out), limit=args.limit)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from scholarbench.llm.commands import add_llm_parser
    parser = argparse.ArgumentParser(prog="scholarbench", description=__doc__)
    parser.add_argument("--version", action="version", version="scholarbench 0.1.0")
    sub = parser.add_subparsers(dest="command", required=True)
    data_help = "data directory (default: $SCHOLARBENCH_DATA, then the per-user data dir)"

    demo = sub.add_parser("demo", help="run the main job: TaxoBench in both modes, then the leaderboard")
    demo.add_argument("--data", help=data_help)
    demo.add_argument("--out", default="runs/demo", help="where the demo's run directories go")
    demo.add_argument("--limit", type=int)
    demo.set_defaults(func=cmd_demo)

    data = sub.add_parser("data", help="import and list benchmark data")
    data.add_argument("--data", help=data_help)
    dsub = data.add_subparsers(dest="data_cmd", required=True)
    imp = dsub.add_parser("import", help="validate a dataset and copy it into the data directory")
    from scholarbench.data.store import DATASETS
    imp.add_argument("name", choices=DATASETS)
    imp.add_argument("path")
    dsub.add_parser("list", help="what is in the data directory")
    data.set_defaults(func=cmd_data)

    corpus = sub.add_parser("corpus", help="build the offline corpus from the imported data; "
                            "resolve references (ids, DOIs, arXiv ids, titles) to its papers")
    csub = corpus.add_subparsers(dest="action", required=True)
    build = csub.add_parser("build", help="build the default corpus from the imported data")
    build.add_argument("--data", help=data_help)
    resolve = csub.add_parser("resolve", help="print REF<TAB>paper_id for each reference, or "
                              "REF<TAB>- when it names no corpus paper")
    resolve.add_argument("refs", nargs="*", metavar="REF",
                         help="corpus ids, DOIs, arXiv ids or titles")
    resolve.add_argument("--file", help="a file of references, one a line")
    resolve.add_argument("--corpus", help="corpus directory (default: the data dir's default "
                         "corpus)")
    resolve.add_argument("--data", help=data_help)
    corpus.set_defaults(func=cmd_corpus)

    from scholarbench.core.commands import add_engine_parsers
    add_engine_parsers(sub)

    report = sub.add_parser("report", help="leaderboard of finished runs beside the paper's rows")
    report.add_argument("run_dirs", nargs="+")
    report.add_argument("--format", choices=["terminal", "markdown", "csv"], default="terminal")
    report.add_argument("--no-published", action="store_true", help="leave out the paper's rows")
    from scholarbench.report.commands import add_compare_parser, add_report_arguments
    add_report_arguments(report)
    add_compare_parser(sub)

    add_llm_parser(sub)
    from scholarbench.tools.commands import add_tools_parser
    add_tools_parser(sub)
    from scholarbench.injection.commands import add_judge_check_parser
    add_judge_check_parser(sub)
    from scholarbench.judges.commands import add_judge_parser
    add_judge_parser(sub)
    from scholarbench.graph.commands import add_graph_parser
    add_graph_parser(sub)

    from scholarbench.core.commands import cmd_list
    lst = sub.add_parser("list", help="registered benchmarks, agents, measures or report sections")
    lst.add_argument("kind", choices=["benchmark", "agent", "measure", "metric", "section"])
    lst.set_defaults(func=cmd_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI; everything it prints goes through `llm.secrets.redact(prose=True)`, and the
    keys it could send are known to the redaction from the start (`remember_environment`)."""
    remember_environment(list(sys.argv[1:] if argv is None else argv))
    restore_streams = redacting_std_streams()
    try:
        return _main(argv)
    finally:
        restore_streams()


def _main(argv: Sequence[str] | None = None) -> int:
    from scholarbench.core.commands import normalise_argv
    from scholarbench.procs import exit_on_sigterm
    exit_on_sigterm()          # SIGTERM ends like Ctrl-C: child servers are stopped
    argv = normalise_argv(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ScholarbenchError as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return 2
    except KeyError as exc:  # unknown registry names
        print(f"error: {redact(str(exc.args[0]))}", file=sys.stderr)
        return 2
