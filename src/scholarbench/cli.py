"""The `scholarbench` command line."""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Callable, NamedTuple, Sequence

from scholarbench.errors import ScholarbenchError
from scholarbench.failures import debug_requested, describe
from scholarbench.llm.secrets import redact, redacting_std_streams, remember_environment
from scholarbench.procs import exit_on_sigterm
from scholarbench.tools.commands import add_tools_parser


class Command(NamedTuple):
    """A command of the table: its line in `scholarbench --help`, and the function (as
    "module:function") that adds its parser to the sub-parsers, called as `function(sub)`."""
    help: str
    parser: str
    # function(sub, argv): given the argv it will parse, it builds only the benchmark parsers
    # that argv reaches (`core.commands.parsed_benchmarks`)
    reads_argv: bool = False
    # "module:function" rewriting argv before it is parsed (`score PATH` → `score RUN_DIR PATH`)
    normalise: str | None = None


# Every command, in the order `--help` lists them. A command's module is imported only when
# argv reaches the command (`_resolve`, the one place the command line imports them): `--help`
# and `tools serve` import no other command's module, `run taxobench` no other benchmark's.
COMMANDS: dict[str, Command] = {
    "demo": Command("run the main job: TaxoBench in both modes, then the leaderboard",
                    "scholarbench.demo:add_demo_parser"),
    "data": Command("import and list benchmark data", "scholarbench.data.commands:add_data_parser"),
    "corpus": Command("build the offline corpus from the imported data; resolve references "
                      "(ids, DOIs, arXiv ids, titles) to its papers",
                      "scholarbench.corpus.commands:add_corpus_parser"),
    "run": Command("generate → score → aggregate one agent on a benchmark",
                   "scholarbench.core.commands:add_run_parser", reads_argv=True),
    "score": Command("re-score RUN_DIR, or score files: score BENCHMARK …",
                     "scholarbench.core.commands:add_score_parser", reads_argv=True,
                     normalise="scholarbench.core.commands:normalise_argv"),
    "eval": Command("one agent on every benchmark and sub-task it fits",
                    "scholarbench.core.commands:add_eval_parser"),
    "aggregate": Command("rebuild a run's summary.json from its scores.jsonl alone (no agent, "
                         "judge or data); on an eval suite directory, every run's and then "
                         "eval.json", "scholarbench.core.aggregate:add_aggregate_parser"),
    "report": Command("leaderboard of finished runs beside the paper's rows",
                      "scholarbench.report.commands:add_report_parser"),
    "compare": Command("per-metric differences between two runs with paired bootstrap CIs and "
                       "a paired permutation test, on the samples both share",
                       "scholarbench.report.commands:add_compare_parser"),
    "export": Command("an agent's retrieved papers as a TREC run and/or BibTeX (export "
                      "RUN_DIR); runs as Inspect eval logs (export inspect RUN_DIR… --out DIR)",
                      "scholarbench.export.commands:add_export_parser",
                      normalise="scholarbench.export.commands:normalise_export_argv"),
    "pack": Command("pack finished runs or eval suites into one submission file that "
                    "`verify` checks (docs/leaderboard.md)",
                    "scholarbench.submission.commands:add_pack_parser"),
    "verify": Command("check a submission against this machine's data and code: hashes, "
                      "task set, summaries, re-scores, judge records, leakage and injection",
                      "scholarbench.submission.commands:add_verify_parser"),
    "leaderboard": Command("a static site ranking the verified submissions per benchmark and "
                           "sub-task, with JSON and CSV (docs/leaderboard.md)",
                           "scholarbench.leaderboard.commands:add_leaderboard_parser"),
    "llm": Command("check and serve chat models (ask, serve, config)",
                   "scholarbench.llm.commands:add_llm_parser"),
    "tools": Command("the offline literature tools as an MCP server (docs/tools.md)",
                     "scholarbench.cli:add_tools_command"),
    "judge-check": Command("measure how far injected text moves a run's LLM judge "
                           "(docs/injection.md)",
                           "scholarbench.core.judge_check:add_judge_check_parser"),
    "judge": Command("check LLM judges against human labels (docs/judges.md)",
                     "scholarbench.judges.commands:add_judge_parser"),
    "graph": Command("scientometrics on a citation graph: CD index, novelty, most influential "
                     "citation path", "scholarbench.graph.commands:add_graph_parser"),
    "build": Command("build benchmark tasks (TaxoBench, DeepSynth-Eval, ReportBench, "
                     "ResearchArena, SciNet) from survey sources (Manubot/Pandoc Markdown, "
                     "LaTeX + .bib)", "scholarbench.builder.commands:add_build_parser"),
    "list": Command("registered benchmarks, agents, measures or report sections",
                    "scholarbench.core.commands:add_list_parser"),
}


def _resolve(target: str) -> Callable[..., Any]:
    """`"module:function"` → the function, its module imported now."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def add_tools_command(sub: argparse._SubParsersAction) -> None:
    """`tools`: `tools serve` is started by an MCP client that waits for it, so the tools'
    command module is light and the engine (~0.4 s) is imported only to open a benchmark."""
    add_tools_parser(sub, _open_benchmark)


def _open_benchmark(args: argparse.Namespace) -> tuple[object, str]:
    """The engine's half of `tools serve --benchmark B` (`core.tool_benchmark`)."""
    return _resolve("scholarbench.core.tool_benchmark:open_benchmark")(args)


def _command(argv: Sequence[str] | None) -> str | None:
    """The command `argv` names (its first word that is not an option: the top-level options
    take no value), or None."""
    return next((a for a in argv or () if not a.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command. Given the `argv` it will parse, only the command argv
    reaches gets its parser (and, for `run` and `score`, only the benchmark parsers it
    reaches), imported from its module. When argv starts with that command nothing lists the
    others, so they are left out (the usage line still names them all, as it would); otherwise
    (`--help`, no command or an unknown one, an option first) each is listed by its help line."""
    parser = argparse.ArgumentParser(prog="scholarbench", description=__doc__)
    parser.add_argument("--version", action="version", version="scholarbench 0.1.0")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an error "
                        "(also SCHOLARBENCH_DEBUG=1); accepted anywhere on the line")
    reached = _command(argv)
    alone = bool(argv) and argv[0] == reached and reached in COMMANDS
    # a metavar names the argument in errors too: only where the command is given and known
    sub = parser.add_subparsers(dest="command", required=True,
                                **({"metavar": "{" + ",".join(COMMANDS) + "}"} if alone else {}))
    for name, command in COMMANDS.items():
        if argv is None or name == reached:
            _resolve(command.parser)(sub, *([argv] if command.reads_argv else []))
        elif not alone:
            sub.add_parser(name, help=command.help)
    return parser


def normalised(argv: list[str]) -> list[str]:
    """argv as its command reads it (`Command.normalise`: `score PATH` → `score RUN_DIR PATH`,
    `export PATH` → `export RUN_DIR PATH`)."""
    command = COMMANDS.get(_command(argv) or "")
    if command is not None and command.normalise:
        return _resolve(command.normalise)(argv)
    return argv


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
    exit_on_sigterm()          # SIGTERM ends like Ctrl-C: child servers are stopped
    debug, argv = debug_requested(list(sys.argv[1:] if argv is None else argv))
    argv = normalised(argv)
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
