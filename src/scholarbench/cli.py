"""The `scholarbench` command line."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.secrets import redact, redacting_std_streams, remember_environment
from scholarbench.paths import data_dir
from scholarbench.tools.commands import add_tools_parser

def cmd_data(args: argparse.Namespace) -> int:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.data.store import import_dataset, list_datasets
    data = data_dir(args.data)
    if args.data_cmd == "import":
        entry = import_dataset(args.name, Path(args.path), data)
        print(f"imported {args.name} into {data / args.name}: {entry['files']}")
        for name, source in entry["replaced"].items():
            print(f"replaced {args.name}/{name} (imported earlier from {source})")
    else:
        print("\n".join(list_datasets(data)))
    return 0


def _default_corpus(data: Path, rebuild: bool = False) -> Path:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.corpus.build import default_corpus
    return default_corpus(data, rebuild)


def cmd_corpus(args: argparse.Namespace) -> int:
    if args.action == "resolve":
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.corpus.resolve import resolve_command
        corpus = Path(args.corpus) if args.corpus else data_dir(args.data) / "corpus" / "default"
        text, unresolved = resolve_command(corpus, args.refs, args.file)
        print(text)
        if unresolved:
            print(f"{unresolved} reference(s) did not resolve (marked -)", file=sys.stderr)
        return 0
    if args.action == "dense":
        return _build_dense(Path(args.corpus) if args.corpus else
                            _default_corpus(data_dir(args.data)), args.fields)
    _default_corpus(data_dir(args.data), rebuild=True)
    return 0


def _build_dense(corpus_dir: Path, fields: str) -> int:
    """Build (or find up to date) the MiniLM dense indices the tools' dense search reads."""
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.corpus.dense import DENSE_DIRS
    from scholarbench.corpus.store import Corpus
    from scholarbench.embed.minilm import default_embedder
    corpus, embedder = Corpus.open(corpus_dir), default_embedder()
    try:
        for name in (sorted(DENSE_DIRS) if fields == "all" else [fields]):
            index = corpus.dense_index(name, embedder)
            state = "built" if index.rebuilt else "up to date"
            print(f"dense index {corpus_dir / DENSE_DIRS[name]}: {state} ({index.count} papers, "
                  f"{embedder.model_id})")
    finally:
        corpus.close()
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.demo import run_demo
    run_demo(data=args.data, out=Path(args.out), limit=args.limit)
    return 0


def _top_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog="scholarbench", description=__doc__)
    parser.add_argument("--version", action="version", version="scholarbench 0.1.0")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an error "
                        "(also SCHOLARBENCH_DEBUG=1); accepted anywhere on the line")
    return parser, parser.add_subparsers(dest="command", required=True)


def _open_benchmark(args: argparse.Namespace) -> tuple[object, str]:
    # imported here, not at the top: `tools serve` starts without the engine (~0.4 s)
    from scholarbench.core.tool_benchmark import open_benchmark
    return open_benchmark(args)


def tools_serve_parser() -> argparse.ArgumentParser:
    """The parser with only `tools`: `tools serve` is started by an MCP client that waits for
    it, and the other commands' parsers import most of the package (~0.4 s)."""
    parser, sub = _top_parser()
    add_tools_parser(sub, _open_benchmark)
    return parser


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser; given the `argv` it will parse, only the benchmark parsers
    that argv reaches are built (`core.commands.parsed_benchmarks`), so a command that names
    no benchmark imports none."""
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.llm.commands import add_llm_parser
    parser, sub = _top_parser()
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
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.data.store import datasets
    imp.add_argument("name", choices=datasets())
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
    dense = csub.add_parser("dense", help="build the dense (MiniLM) indices that dense and "
                            "hybrid search read; the tools refuse those modes until they exist")
    dense.add_argument("--corpus", help="corpus directory (default: the data dir's default "
                       "corpus)")
    dense.add_argument("--fields", choices=["title", "title+abstract", "all"], default="all",
                       help="which index (default: both)")
    dense.add_argument("--data", help=data_help)
    corpus.set_defaults(func=cmd_corpus)

    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.core.commands import add_engine_parsers, parsed_benchmarks
    add_engine_parsers(sub, parsed_benchmarks(argv))
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.core.aggregate import add_aggregate_parser
    add_aggregate_parser(sub)

    report = sub.add_parser("report", help="leaderboard of finished runs beside the paper's rows")
    report.add_argument("run_dirs", nargs="+")
    report.add_argument("--format", choices=["terminal", "markdown", "csv"], default="terminal")
    report.add_argument("--no-published", action="store_true", help="leave out the paper's rows")
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.report.commands import add_compare_parser, add_report_arguments
    add_report_arguments(report)
    export_forms = add_compare_parser(sub)
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.export.commands import add_inspect_parser
    add_inspect_parser(export_forms)

    add_llm_parser(sub)
    add_tools_parser(sub, _open_benchmark)
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.core.judge_check import add_judge_check_parser
    add_judge_check_parser(sub)
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.judges.commands import add_judge_parser
    add_judge_parser(sub)
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.graph.commands import add_graph_parser
    add_graph_parser(sub)
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.builder.commands import add_build_parser
    add_build_parser(sub)

    # deferred: loaded only by the path that needs it (a light CLI start)
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
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.procs import exit_on_sigterm
    exit_on_sigterm()          # SIGTERM ends like Ctrl-C: child servers are stopped
    from scholarbench.failures import debug_requested, describe
    debug, argv = debug_requested(list(sys.argv[1:] if argv is None else argv))
    if argv[:2] == ["tools", "serve"]:
        args = tools_serve_parser().parse_args(argv)
    else:
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.core.commands import normalise_argv
        argv = normalise_argv(argv)
        args = build_parser(argv).parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:        # one line each; the traceback only with --debug
        if debug:
            import traceback
            print(redact(traceback.format_exc()), end="", file=sys.stderr)
        if isinstance(exc, ScholarbenchError):
            line, status = f"error: {exc}", getattr(exc, "exit_status", 2)
        elif isinstance(exc, KeyError):  # unknown registry names
            line, status = f"error: {exc.args[0] if exc.args else exc}", 2
        else:
            line, status = describe(exc)
        print(redact(line), file=sys.stderr)
        return status
    except KeyboardInterrupt:     # the user's Ctrl-C: finished samples are on disk
        print("error: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
