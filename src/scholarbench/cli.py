"""The `scholarbench` command line."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from scholarbench.errors import ScholarbenchError

# Benchmarks still run by the handlers below; each one moved onto the engine leaves this list.
LEGACY_BENCHMARKS = ("taxobench", "researcharena", "reportbench", "scinet")


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


def _print_summary(summary: dict[str, Any]) -> None:
    from scholarbench.metrics.taxobench import METRICS
    print(f"{summary.get('run_name') or summary['agent']}: {summary['n_samples']} samples, "
          f"{summary['n_missing']} missing, {summary['n_malformed']} malformed")
    for info in METRICS:
        m = summary["metrics"][info.key]
        value = "—" if m["mean"] is None else (f"{100 * m['mean']:.2f}%" if info.percent
                                              else f"{m['mean']:.4f}")
        null = f"  ({m['n_null']} undefined, excluded)" if m["n_null"] else ""
        print(f"  {info.key:<14} {value:>10}{null}")


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
    from scholarbench.corpus.build import build_default_corpus
    target = data / "corpus" / "default"
    if rebuild or not (target / "manifest.json").exists():
        info = build_default_corpus(target, data)
        print(f"built corpus {target}: {info.n_papers} papers; per source {info.counts}")
    return target


def cmd_corpus(args: argparse.Namespace) -> int:
    from scholarbench.paths import data_dir
    _default_corpus(data_dir(args.data), rebuild=True)
    return 0


def _taxobench_instances_file(data: Path, explicit: str | None, required: bool) -> Path | None:
    """--taxobench, else the one TaxoBench instance file in the data dir (toy fixtures and
    prediction files left out); None when there is none and it is not required."""
    from scholarbench.data.sources.taxobench import taxobench_files
    if explicit:
        return Path(explicit)
    folder = data / "taxobench"
    files = taxobench_files(folder) if folder.is_dir() else []
    if len(files) == 1:
        return files[0]
    if required or len(files) > 1:
        raise ScholarbenchError(f"{'several' if files else 'no'} TaxoBench instance files in "
                                f"{folder}; pass one with --taxobench FILE")
    return None


def cmd_run_researcharena(args: argparse.Namespace) -> int:
    from scholarbench.paths import data_dir
    from scholarbench.runner.researcharena import ArenaRunConfig, format_summary, run
    if args.mode:
        raise ScholarbenchError("--mode is for taxobench; researcharena takes --task "
                                "discovery|selection|organisation")
    if not args.task:
        raise ScholarbenchError("run researcharena needs --task discovery|selection|organisation")
    data = data_dir(args.data)
    corpus = Path(args.corpus) if args.corpus else None
    if corpus is None and (args.tasks_from in ("corpus", "taxobench") or args.agent != "replay"):
        corpus = _default_corpus(data)
    taxobench = _taxobench_instances_file(
        data, args.taxobench, required=args.tasks_from == "taxobench") \
        if args.task == "organisation" or args.tasks_from == "taxobench" or args.taxobench else None
    out = Path(args.out or f"runs/researcharena-{args.task}-{args.agent}")
    summary = run(ArenaRunConfig(task=args.task, agent=args.agent, out=out, corpus_dir=corpus,
                                 tasks_from=args.tasks_from, task_set=args.task_set,
                                 taxobench_file=taxobench, qrels=args.qrels, limit=args.limit,
                                 agent_params=_agent_params(args.agent_arg), run_name=args.name,
                                 llm=_llm_factory(args)),
                  _embedder)
    print(format_summary(summary))
    print(f"run directory: {out}")
    return 0


def cmd_run_reportbench(args: argparse.Namespace) -> int:
    from scholarbench.llm.commands import roles_from_args
    from scholarbench.paths import data_dir
    from scholarbench.reportbench.statements import StatementConfig
    from scholarbench.runner.reportbench import (ReportBenchRunConfig, format_summary,
                                                 run_reportbench)
    data = data_dir(args.data) / "reportbench"
    needs_corpus = args.agent != "replay" or args.statements or args.llm_titles
    corpus = Path(args.corpus) if args.corpus else (
        _default_corpus(data_dir(args.data)) if needs_corpus else None)
    out = Path(args.out or f"runs/reportbench-{args.granularity}-{args.agent}")
    summary = run_reportbench(ReportBenchRunConfig(
        data=data, agent=args.agent, out=out, agent_params=_agent_params(args.agent_arg),
        granularity=args.granularity, statements=args.statements, llm_titles=args.llm_titles,
        limit=args.limit, corpus_dir=corpus, allow_network=args.allow_network,
        statement_config=StatementConfig(samples=args.samples), run_name=args.name),
        lambda need_agent, need_judge: roles_from_args(args, need_agent=need_agent,
                                                       need_judge=need_judge))
    print(format_summary(summary))
    print(f"run directory: {out}")
    return 0


def _scinet_dirs(args: argparse.Namespace) -> tuple[Path, Path]:
    """The citation graph and unArXive folders: flags, else the imported datasets."""
    from scholarbench.paths import data_dir
    data = data_dir(args.data)
    graph = Path(args.graph) if args.graph else data / "arxiv2023"
    unarxive = Path(args.unarxive) if args.unarxive else data / "unarxive"
    if not graph.exists():
        raise ScholarbenchError(f"no citation graph at {graph}: scholarbench data import "
                                "arxiv2023 PATH, or pass --graph DIR")
    return graph, unarxive


def cmd_run_scinet(args: argparse.Namespace) -> int:
    from scholarbench.llm.commands import roles_from_args
    from scholarbench.runner.scinet import SciNetRunConfig, format_summary, run_scinet
    if args.task not in ("ego", "pair", "path"):
        raise ScholarbenchError("run scinet needs --task ego|pair|path")
    graph, unarxive = _scinet_dirs(args)
    out = Path(args.out or f"runs/scinet-{args.task}-{args.agent.replace('/', '-')}")
    summary = run_scinet(SciNetRunConfig(
        family=args.task, agent=args.agent, out=out, graph_dir=graph, unarxive_dir=unarxive,
        tasks=Path(args.tasks) if args.tasks else None, limit=args.limit,
        agent_params=_agent_params(args.agent_arg), run_name=args.name,
        with_judge=args.with_judge),
        lambda need_agent=True, need_judge=False: roles_from_args(
            args, need_agent=need_agent, need_judge=need_judge))
    print(format_summary(summary))
    print(f"run directory: {out}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if args.benchmark == "scinet":
        return cmd_run_scinet(args)
    if args.benchmark == "reportbench":
        return cmd_run_reportbench(args)
    if args.benchmark == "researcharena":
        if args.with_judge:
            raise ScholarbenchError("--with-judge is for taxobench runs (ResearchArena has no "
                                    "LLM judge)")
        return cmd_run_researcharena(args)
    from scholarbench.data.store import taxobench_gold_file
    from scholarbench.judges.taxobench import format_judge_summary
    from scholarbench.llm.commands import roles_from_args
    from scholarbench.paths import data_dir
    from scholarbench.runner.taxobench import RunConfig, run
    if not args.mode:
        raise ScholarbenchError("run taxobench needs --mode bottom-up|deep-research")
    data = data_dir(args.data)
    gold = Path(args.gold) if args.gold else taxobench_gold_file(data, args.gold_name)
    corpus = None
    if args.mode == "deep-research":
        corpus = Path(args.corpus) if args.corpus else _default_corpus(data)
    out = Path(args.out or f"runs/{args.mode}-{args.agent}")
    judge = (roles_from_args(args, need_agent=False, need_judge=True).judge
             if args.with_judge else None)
    summary = run(RunConfig(gold_path=gold, mode=args.mode, agent=args.agent, out=out,
                            limit=args.limit, corpus_dir=corpus,
                            agent_params=_agent_params(args.agent_arg), run_name=args.name,
                            llm=_llm_factory(args), judge=judge),
                  _embedder())
    _print_summary(summary)
    if judge_lines := format_judge_summary(summary):
        print(judge_lines)
    print(f"run directory: {out}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from scholarbench.runner.taxobench import score_files, score_run
    if args.with_judge and args.target in ("taxobench", "researcharena", "reportbench"):
        raise ScholarbenchError("--with-judge re-scores a TaxoBench run directory: "
                                "scholarbench score RUN_DIR --with-judge")
    if args.target == "taxobench":
        if not (args.gold and args.pred and args.out):
            raise ScholarbenchError("score taxobench needs --gold G.jsonl --pred P.jsonl --out S.jsonl")
        summary = score_files(Path(args.gold), Path(args.pred), Path(args.out), _embedder(),
                              on_problem=lambda msg: print(f"warning: {msg}", file=sys.stderr))
        _print_summary(summary)
        print(f"scores: {args.out}")
        return 0
    if args.target == "researcharena":
        from scholarbench.runner.researcharena_files import (format_summary,
                                                             score_researcharena_files)
        if not (args.qrels and args.run_file and args.out):
            raise ScholarbenchError("score researcharena needs --qrels Q.trec --run R.trec --out S.jsonl")
        summary = score_researcharena_files(Path(args.qrels), Path(args.run_file), Path(args.out),
                                            on_duplicate=args.on_duplicate)
        print(format_summary(summary))
        print(f"scores: {args.out}")
        return 0
    if args.target == "reportbench":
        from scholarbench.reportbench import format_summary, score_reportbench_files
        if not (args.gt_dir and args.pred and args.out):
            raise ScholarbenchError("score reportbench needs --gt-dir D --pred P.jsonl --out S.jsonl")
        summary = score_reportbench_files(Path(args.gt_dir), Path(args.pred), Path(args.out),
                                          corpus=Path(args.corpus) if args.corpus else None,
                                          match=args.match, unresolved=args.unresolved)
        print(format_summary(summary))
        print(f"scores: {args.out}")
        return 0
    if args.target == "scinet":
        from scholarbench.runner.scinet import format_summary, score_scinet_files
        if not (args.tasks and args.answers and args.out):
            raise ScholarbenchError("score scinet needs --tasks T.jsonl --answers A.jsonl "
                                    "--out S.jsonl")
        graph, unarxive = _scinet_dirs(args)
        judge = None
        if args.with_judge:
            from scholarbench.llm.commands import roles_from_args
            judge = roles_from_args(args, need_agent=False, need_judge=True).judge
        print(format_summary(score_scinet_files(Path(args.tasks), Path(args.answers),
                                                Path(args.out), graph_dir=graph,
                                                unarxive_dir=unarxive, judge=judge)))
        print(f"scores: {args.out}")
        return 0
    run_dir = Path(args.target)
    if not run_dir.is_dir():
        raise ScholarbenchError(f"{run_dir}: not a run directory nor a benchmark name "
                                "(taxobench, researcharena, reportbench)")
    from scholarbench.runner.manifest import read_manifest
    if read_manifest(run_dir).get("benchmark") == "scinet":
        raise ScholarbenchError(f"{run_dir} is a SciNet run: re-score it with `scholarbench "
                                f"score scinet --tasks {run_dir / 'tasks.jsonl'} --answers "
                                f"{run_dir / 'generate.jsonl'} --out S.jsonl` (or run it again "
                                "with the same --out: finished tasks are kept and re-scored)")
    if read_manifest(run_dir).get("benchmark") == "reportbench":
        from scholarbench.runner import reportbench as rb_runner
        judge = None
        if args.with_judge:
            from scholarbench.llm.commands import roles_from_args
            judge = roles_from_args(args, need_agent=False, need_judge=True).judge
        print(rb_runner.format_summary(rb_runner.score_run(run_dir, judge=judge,
                                                           statements=args.with_judge)))
        return 0
    if read_manifest(run_dir).get("benchmark") == "researcharena":
        if args.with_judge:
            raise ScholarbenchError(f"{run_dir}: --with-judge is for TaxoBench runs "
                                    "(ResearchArena has no LLM judge)")
        from scholarbench.runner.researcharena import format_summary
        from scholarbench.runner.researcharena import score_run as score_arena
        task = read_manifest(run_dir).get("mode")
        print(format_summary(score_arena(run_dir, _embedder() if task == "organisation"
                                         else None)))
        return 0
    from scholarbench.judges.taxobench import format_judge_summary
    from scholarbench.llm.commands import roles_from_args
    judge = (roles_from_args(args, need_agent=False, need_judge=True).judge
             if args.with_judge else None)
    summary = score_run(run_dir, _embedder(), judge=judge)
    _print_summary(summary)
    if judge_lines := format_judge_summary(summary):
        print(judge_lines)
    return 0


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
    from scholarbench.llm.commands import add_llm_parser, add_model_flags
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

    corpus = sub.add_parser("corpus", help="build the offline corpus from the imported data")
    corpus.add_argument("action", choices=["build"])
    corpus.add_argument("--data", help=data_help)
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
