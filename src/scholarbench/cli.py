"""The `scholarbench` command line."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from scholarbench.errors import ScholarbenchError

# Benchmarks still run by the handlers below; each one moved onto the engine leaves this list.
LEGACY_BENCHMARKS = ("deepsynth",)


def _agent_params(pairs: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ScholarbenchError(f"--agent-arg takes KEY=VALUE, got {pair!r}")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def _embedder():
    from scholarbench.embed import default_embedder
    return default_embedder()


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


def cmd_run_deepsynth(args: argparse.Namespace) -> int:
    from scholarbench.llm.commands import roles_from_args
    from scholarbench.paths import data_dir
    from scholarbench.runner.deepsynth import (DeepSynthRunConfig, format_run_summary,
                                               run_deepsynth)
    if not args.tasks:
        raise ScholarbenchError("run deepsynth needs --tasks FILE (upstream task JSON lines)")
    corpus = Path(args.corpus) if args.corpus else (
        None if args.agent == "replay" else _default_corpus(data_dir(args.data)))
    out = Path(args.out or f"runs/deepsynth-{args.agent}")
    summary = run_deepsynth(DeepSynthRunConfig(
        tasks_path=Path(args.tasks), out=out, agent=args.agent,
        agent_params=_agent_params(args.agent_arg),
        replay=Path(args.replay) if args.replay else None, limit=args.limit, corpus_dir=corpus,
        references=Path(args.references) if args.references else None, oracle=args.oracle,
        judge_prompt=args.judge_prompt, run_name=args.name),
        lambda **need: roles_from_args(args, **need))
    print(format_run_summary(summary))
    print(f"run directory: {out}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if args.benchmark == "deepsynth":
        return cmd_run_deepsynth(args)
    raise ScholarbenchError(f"unknown benchmark {args.benchmark!r}")


def cmd_score(args: argparse.Namespace) -> int:
    if args.with_judge and args.target in ("researcharena", "reportbench", "deepsynth"):
        raise ScholarbenchError("--with-judge re-scores a run directory: "
                                "scholarbench score RUN_DIR --with-judge")
    if args.target == "deepsynth":
        from scholarbench.deepsynth.judged import format_summary, score_deepsynth_judged
        if not (args.judged and args.out):
            raise ScholarbenchError("score deepsynth needs --judged F.jsonl --out S.jsonl")
        summary = score_deepsynth_judged(Path(args.judged), Path(args.out), variant=args.variant)
        print(format_summary(summary))
        print(f"scores: {args.out}")
        return 0
    run_dir = Path(args.target)
    if not run_dir.is_dir():
        raise ScholarbenchError(f"{run_dir}: not a run directory nor a benchmark name "
                                "(taxobench, researcharena, reportbench, deepsynth)")
    from scholarbench.runner.manifest import read_manifest
    if read_manifest(run_dir).get("benchmark") == "deepsynth":
        from scholarbench.runner import deepsynth as dse_runner
        if args.with_judge:
            from scholarbench.llm.commands import roles_from_args
            dse_runner.judge_run(run_dir, roles_from_args(args, need_agent=False,
                                                          need_judge=True).judge)
        print(dse_runner.format_run_summary(dse_runner.score_run(run_dir)))
        return 0
    raise ScholarbenchError(f"{run_dir}: a run of an unknown benchmark "
                            f"{read_manifest(run_dir).get('benchmark')!r}")


def cmd_demo(args: argparse.Namespace) -> int:
    from scholarbench.demo import run_demo
    run_demo(data=args.data, out=Path(args.out), limit=args.limit)
    return 0


def _llm_factory(args: argparse.Namespace):
    """Binds the agent role only when a run's agent turns out to use a chat model."""
    from scholarbench.llm.commands import roles_from_args
    return lambda: roles_from_args(args, need_agent=True, need_judge=False)


def _legacy_run_options(p: argparse.ArgumentParser) -> None:
    """Options of the benchmarks not yet moved onto the engine (each move drops its own)."""
    p.add_argument("--mode", choices=["bottom-up", "deep-research"],
                     help="taxobench (required): bottom-up or deep-research")
    p.add_argument("--task", choices=["discovery", "selection", "organisation", "ego", "pair",
                                        "path"],
                     help="researcharena (required): discovery, selection or organisation; "
                     "scinet (required): ego, pair or path")
    p.add_argument("--graph", help="scinet: citation graph folder (default: the imported "
                     "arxiv2023 dataset)")
    p.add_argument("--unarxive", help="scinet: unArXive folder for citation contexts (default: "
                     "the imported unarxive dataset)")
    p.add_argument("--gold", help="a TaxoBench instance file (default: the imported one)")
    p.add_argument("--gold-name", help="which imported TaxoBench file, when several")
    p.add_argument("--corpus", help="corpus directory for deep-research mode and "
                     "researcharena (default: built from data)")
    p.add_argument("--tasks-from", default="corpus", metavar="corpus|taxobench|FILE",
                     help="researcharena: tasks from the corpus's surveys (default), from "
                     "TaxoBench instances (organisation), or an upstream survey.jsonl")
    p.add_argument("--task-set", default="reference-lists", choices=["reference-lists", "all"],
                     help="researcharena corpus tasks: surveys with a full reference list "
                     "(default) or every survey with citation edges")
    p.add_argument("--qrels", default="searchable", choices=["searchable", "all"],
                     help="researcharena: judge only references an agent may find (default) or "
                     "every reference (upstream's qrels)")
    p.add_argument("--taxobench", help="researcharena: TaxoBench instances for mind-maps "
                     "(default: the one imported file, if any)")
    p.add_argument("--with-judge", action="store_true",
                     help="taxobench: add the LLM-judge scores (the judge role: --judge, else "
                     "the local model; never the agent's model)")
    p.add_argument("--tasks", help="deepsynth: upstream task file (JSON lines with checklists); "
                     "scinet: a task file instead of the tasks built from the graph")
    p.add_argument("--replay", help="deepsynth: judge and score reports from a file of "
                     "{task_id, report} lines instead of running a writer")
    p.add_argument("--references", help="deepsynth: reference lists per task for the oracle "
                     "context (default: the survey's references in the corpus)")
    p.add_argument("--oracle", choices=["summary", "abstract", "none"], default="summary",
                     help="deepsynth: oracle context per reference (default: LLM summary)")
    p.add_argument("--judge-prompt", default="checklist_judge_v1",
                     choices=["checklist_judge_v1", "checklist_judge_upstream"],
                     help="deepsynth: our quoted judge prompt (default) or upstream's verbatim")
    p.add_argument("--granularity", choices=["shipped", "sentence", "paragraph", "detail"],
                     default="shipped", help="reportbench: the shipped prompts, or prompts "
                     "constructed from each survey at this granularity")
    p.add_argument("--statements", action="store_true", help="reportbench: also judge cited "
                     "and non-cited statements (cited_match_rate, noncited_accuracy)")
    p.add_argument("--llm-titles", action="store_true", help="reportbench: let the judge model "
                     "extract titles of references nothing else resolves")
    p.add_argument("--allow-network", action="store_true", help="reportbench: fetch cited URLs "
                     "not in the corpus (public http(s) only; off by default)")
    p.add_argument("--samples", type=int, default=3, help="reportbench: votes per judge for "
                     "non-cited statements")


def _legacy_score_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", help="taxobench: gold instance file")
    p.add_argument("--pred", help="taxobench: prediction file")
    p.add_argument("--qrels", help="researcharena: TREC qrels")
    p.add_argument("--run", dest="run_file", help="researcharena: TREC run")
    p.add_argument("--on-duplicate", choices=["keep_first", "error"], default="keep_first",
                       help="researcharena: a docid twice for one query (trec_eval refuses: error)")
    p.add_argument("--gt-dir", help="reportbench: ground-truth folder (one <arxiv_id> "
                       "JSON-lines file of reference titles per survey)")
    p.add_argument("--corpus", help="reportbench: corpus directory to resolve report "
                       "references by id/title (default: none, titles as written)")
    p.add_argument("--match", choices=["exact", "aligned"], default="exact",
                       help="reportbench: normalised-title equality (default) or the TaxoBench "
                       "title alignment rule")
    p.add_argument("--unresolved", choices=["exclude", "miss"], default="exclude",
                       help="reportbench: references without a title leave the precision "
                       "denominator (default, as upstream) or count as misses (lower bound)")
    p.add_argument("--tasks", help="scinet: task file (JSON lines)")
    p.add_argument("--answers", help="scinet: answers, {task_id, papers: [...]} lines")
    p.add_argument("--graph", help="scinet: citation graph folder (default: imported arxiv2023)")
    p.add_argument("--unarxive", help="scinet: unArXive folder (default: imported unarxive)")
    p.add_argument("--judged", help="deepsynth: judged task file (upstream format, "
                       "eval_result per sub-group)")
    p.add_argument("--variant", choices=["paper", "upstream"], default="paper",
                       help="deepsynth: the paper's scoring rules or upstream score.py's")
    p.add_argument("--out")
    p.add_argument("--with-judge", action="store_true",
                       help="RUN_DIR (taxobench): add the LLM-judge scores (judge role: --judge, "
                       "else the local model); cached replies are reused")


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
    add_engine_parsers(sub, legacy_run=(LEGACY_BENCHMARKS, _legacy_run_options, cmd_run),
                       legacy_score=(LEGACY_BENCHMARKS, _legacy_score_options, cmd_score))

    report = sub.add_parser("report", help="leaderboard of finished runs beside the paper's rows")
    report.add_argument("run_dirs", nargs="+")
    report.add_argument("--format", choices=["terminal", "markdown", "csv"], default="terminal")
    report.add_argument("--no-published", action="store_true", help="leave out the paper's rows")
    from scholarbench.report.commands import add_compare_parser, add_report_arguments
    add_report_arguments(report)
    add_compare_parser(sub)

    add_llm_parser(sub)
    from scholarbench.graph.commands import add_graph_parser
    add_graph_parser(sub)

    from scholarbench.core.commands import cmd_list
    lst = sub.add_parser("list", help="registered benchmarks, agents, measures or report sections")
    lst.add_argument("kind", choices=["benchmark", "agent", "measure", "metric", "section"])
    lst.set_defaults(func=cmd_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from scholarbench.core.commands import normalise_argv
    argv = normalise_argv(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ScholarbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:  # unknown registry names
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
