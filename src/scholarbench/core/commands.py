"""`scholarbench run | score | eval | list`, dispatched through the registry.

Each registered benchmark gets its own `run B` and `score B` sub-command with its own options
(`Benchmark.add_options`); the options every run shares (agent, limit, output, models) are added
here once. `score RUN_DIR` re-scores any run directory.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.core.concurrency import check_max_samples
from scholarbench.core.epochs import check_epochs
from scholarbench.core.dry_run import dry_run, dry_run_rescore
from scholarbench.core.suite import run_suite
from scholarbench.embed.threads import check_setting
from scholarbench.errors import ScholarbenchError
from scholarbench.paths import DATA_HELP
from scholarbench.llm.commands import (add_model_flags, judge_panel_flags, judge_samples,
                                       model_recipe, roles_from_args)
from scholarbench.llm.config import check_base_url
from scholarbench.core.engine import (Models, benchmark_class, engine_benchmarks, format_outcome,
                                      run_benchmark, score_run)
from scholarbench.core.measure import Measure
from scholarbench.core.registry import REGISTRY
from scholarbench.core.rundir import RunDir
from scholarbench.core.args import (  # noqa: F401  (re-exported)
    agent_params, ray_options, run_params, slug)

RUN_DIR_TOKEN = "RUN_DIR"


def add_agent_options(p: argparse.ArgumentParser, *, out_help: str) -> None:
    p.add_argument("--agent", required=True, help="a built-in agent, package.module:attr, "
                   "endpoint, or replay (docs/agents.md)")
    p.add_argument("--agent-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="agent parameter (JSON value or string), e.g. path=answers.jsonl")
    p.add_argument("--tools", action="store_true",
                   help="with --agent endpoint: give the model the literature tools (OpenAI "
                   "function calling; budgets as --agent-arg max_steps=, max_calls=, "
                   "max_loop_tokens=; docs/tools.md)")
    p.add_argument("--limit", type=int, help="the first N samples only")
    p.add_argument("--epochs", type=int, default=1, metavar="K",
                   help="solve each sample K times (epoch e with seed e-1); per-sample values "
                   "are the means over epochs, intervals a bootstrap by sample (default 1; "
                   "docs/scores.md)")
    p.add_argument("--max-samples", type=int, metavar="N",
                   help="solve up to N samples at once (default: the agent model's "
                   "concurrency — 4 for an endpoint, 1 for the local model — or 1 for an agent "
                   "with no model of ours; docs/scaling.md)")
    add_max_output(p)
    add_ray_options(p)
    p.add_argument("--out", help=out_help)
    p.add_argument("--name", help="the run's name in reports (default: AGENT[@MODEL])")
    p.add_argument("--data", help=DATA_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_dry_run(p)


def add_dry_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true",
                   help="print how many judge (and agent) calls this would make, per judge and "
                   "stage, then exit: no model called, nothing written (docs/judges.md)")


def add_ray_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("Ray (docs/scaling.md; pip install 'scholarbench[ray]')")
    g.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                   help="solve shards of samples as Ray tasks: on a private cluster bound to "
                   "127.0.0.1 (no ADDRESS), or on the cluster at ADDRESS (host:port)")
    g.add_argument("--ray-cpus", type=float, default=1.0, metavar="N",
                   help="CPUs per task (default 1)")
    g.add_argument("--ray-gpus", type=float, default=0.0, metavar="N",
                   help="GPUs per task (default 0; 1 for an agent serving a local model)")
    g.add_argument("--ray-shard-size", type=int, metavar="N",
                   help="samples per task (default: about four tasks per task slot)")
    g.add_argument("--ray-retries", type=int, default=3, metavar="N",
                   help="re-runs of a task whose worker died (default 3)")


def add_max_output(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-output", action="append", default=[], metavar="KEY=N",
                   help="raise or lower a size limit on agent outputs (nodes, depth, "
                   "label_chars, papers, report_bytes); over one is `oversized` "
                   "(docs/limits.md)")


def _option_dests(parser: argparse.ArgumentParser, add: Callable[[], None]) -> list[str]:
    before = {a.dest for a in parser._actions}
    add()
    return [a.dest for a in parser._actions if a.dest not in before]


def parsed_benchmarks(argv: Sequence[str] | None) -> list[str] | None:
    """The benchmarks whose `run`/`score` parsers `argv` needs (their classes are imported to
    build them, and a benchmark module imports its whole package): the one `run X` / `score X`
    names; every one for `run --help` / `score --help` (their titles); none for another
    command. None (no argv: a caller building the whole parser): every one."""
    if argv is None:
        return None
    names = REGISTRY.names("benchmark")
    if not argv or argv[0] not in ("run", "score"):
        return []
    named = [a for a in argv[1:2] if a in names]
    return named or (names if {"-h", "--help"} & set(argv[1:2]) else [])


def add_run_parser(sub: Any, argv: Sequence[str] | None = None) -> None:
    """`run BENCHMARK`: a benchmark's own parser only for the benchmarks `argv` reaches
    (`parsed_benchmarks`; no argv: every one) — the others are listed by name and never reached
    by this parse."""
    wanted = parsed_benchmarks(argv)
    run = sub.add_parser("run", help="generate → score → aggregate one agent on a benchmark")
    run_sub = run.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for name in _benchmark_names(wanted):
        if wanted is not None and name not in wanted:
            run_sub.add_parser(name, help=f"run {name} --help")
            continue
        cls = benchmark_class(name)
        p = run_sub.add_parser(name, help=cls.title or name)
        # checked in cmd_run, not by argparse: a missing sub-task is a usage error (exit 2)
        # like any other, reported through main's error line rather than a SystemExit
        p.add_argument(cls.subtask_flag, dest="subtask", choices=list(cls.subtasks),
                       default=next(iter(cls.subtasks)) if len(cls.subtasks) == 1 else None,
                       help="the sub-task" + (" (required)" if len(cls.subtasks) > 1 else ""))
        add_agent_options(p, out_help="run directory (default runs/BENCHMARK-SUBTASK-AGENT); "
                          "an existing one resumes")
        dests = _option_dests(p, lambda: cls.add_options(p, "run"))
        add_model_flags(p, judge=True)
        p.set_defaults(func=cmd_run, bench_cls=cls, bench_dests=dests)


def add_score_parser(sub: Any, argv: Sequence[str] | None = None) -> None:
    """`score RUN_DIR` and `score BENCHMARK` (a benchmark's own parser only for the benchmarks
    `argv` reaches, as for `run`); `normalise_argv` turns `score PATH` into `score RUN_DIR PATH`."""
    wanted = parsed_benchmarks(argv)
    score = sub.add_parser("score", help="re-score RUN_DIR, or score files: score BENCHMARK …")
    score_sub = score.add_subparsers(dest="target", required=True, metavar="RUN_DIR|BENCHMARK")
    rescore = score_sub.add_parser(RUN_DIR_TOKEN, help="re-score a run directory")
    rescore.add_argument("run_dir")
    rescore.add_argument("--with-judge", action="store_true",
                         help="add or redo the LLM-judge scores (judge role: --judge, else "
                         "the local model)")
    rescore.add_argument("--data", help=DATA_HELP)
    rescore.add_argument("--quiet", action="store_true", help="no progress bars")
    add_dry_run(rescore)
    add_model_flags(rescore, agent=False, judge=True)
    rescore.set_defaults(func=cmd_rescore)
    for name in _benchmark_names(wanted):
        if wanted is not None and name not in wanted:
            score_sub.add_parser(name, help=f"score {name} files")
            continue
        cls = benchmark_class(name)
        sp = score_sub.add_parser(name, help=f"score {name} files")
        sdests = _option_dests(sp, lambda: cls.add_options(sp, "score"))
        if not any(a.dest == "with_judge" for a in sp._actions):
            sp.add_argument("--with-judge", action="store_true", help=argparse.SUPPRESS)
            sdests.append("with_judge")
        sp.add_argument("--data", help=DATA_HELP)
        add_max_output(sp)
        add_model_flags(sp, agent=False, judge=True)
        sp.set_defaults(func=cmd_score_files, bench_cls=cls, bench_dests=sdests)


def _benchmark_names(wanted: Sequence[str] | None) -> list[str]:
    """Every benchmark a parser lists: the engine's (their classes imported) when every parser
    is built, else the registered names alone."""
    return engine_benchmarks() if wanted is None else REGISTRY.names("benchmark")


def add_eval_parser(sub: Any) -> None:
    ev = sub.add_parser("eval", help="one agent on every benchmark and sub-task it fits")
    ev.add_argument("--benchmarks", default="all", help="all, or a comma-separated list")
    add_agent_options(ev, out_help="the suite's directory: one run directory per "
                      "benchmark/sub-task, and eval.json (default runs/eval-AGENT)")
    ev.add_argument("--option", action="append", default=[], metavar="BENCHMARK.KEY=VALUE",
                    help="a benchmark option, e.g. taxobench.gold=gold.jsonl")
    add_model_flags(ev, judge=True)
    ev.set_defaults(func=cmd_eval)


def add_list_parser(sub: Any) -> None:
    lst = sub.add_parser("list", help="registered benchmarks, agents, measures or report sections")
    lst.add_argument("kind", choices=["benchmark", "agent", "measure", "metric", "section"])
    lst.set_defaults(func=cmd_list)


def normalise_argv(argv: list[str]) -> list[str]:
    """`score PATH …` → `score RUN_DIR PATH …` (a path is not a sub-command name)."""
    if len(argv) >= 2 and argv[0] == "score" and not argv[1].startswith("-"):
        known = set(REGISTRY.names("benchmark")) | {RUN_DIR_TOKEN}
        if argv[1] not in known:
            return [argv[0], RUN_DIR_TOKEN, *argv[1:]]
    return argv


def check_usage(args: argparse.Namespace) -> None:
    """Usage errors found before any run starts (models bind later, when first needed, and a
    failure there would be a sample's): endpoint URLs given as flags or in the environment,
    the torch thread count."""
    for dest in ("base_url", "judge_base_url"):
        urls = getattr(args, dest, None)
        for url in (urls if isinstance(urls, list) else [urls] if urls is not None else []):
            check_base_url(url, "--" + dest.replace("_", "-"))
    for var in ("SCHOLARBENCH_MODEL_BASE_URL", "SCHOLARBENCH_JUDGE_BASE_URL"):
        if os.environ.get(var):
            check_base_url(os.environ[var], f"${var}")
    check_setting()


def _models(args: argparse.Namespace):
    check_usage(args)
    models = Models(lambda need_agent, need_judge: roles_from_args(
        args, need_agent=need_agent, need_judge=need_judge))
    models.recipe = model_recipe(args)        # to bind the same models on Ray workers
    models.judge_samples = judge_samples(args)
    return models


def _options(args: argparse.Namespace) -> dict[str, Any]:
    opts = {d: getattr(args, d) for d in getattr(args, "bench_dests", [])}
    opts["data"] = getattr(args, "data", None)
    if getattr(args, "max_output", None):
        opts["max_output"] = list(args.max_output)
    return opts


def single_judge(cls: Any) -> bool:
    """A benchmark with an LLM judge that scores with one judge (a benchmark with no judge,
    such as ResearchArena, is neither)."""
    return not getattr(cls, "judge_panel", False) and bool(
        getattr(cls, "judge_scored", ()) or getattr(cls, "judge_reads", None))


def panel_size(args: argparse.Namespace) -> tuple[int, int]:
    """(judges, samples per judge) the model flags ask for."""
    return len(judge_panel_flags(args)), judge_samples(args)


def check_panel(args: argparse.Namespace, cls: Any) -> None:
    """A panel or repeats on a benchmark that scores with one judge is refused (one line),
    never silently reduced to the first judge."""
    judges, samples = panel_size(args)
    if (judges > 1 or samples > 1) and not getattr(cls, "judge_panel", False):
        if not single_judge(cls):
            raise ScholarbenchError(f"{cls.name} has no LLM judge: judge panels and "
                                    "--judge-samples do not apply to it (docs/judges.md)")
        able = [b for b in engine_benchmarks() if getattr(benchmark_class(b), "judge_panel",
                                                          False)]
        raise ScholarbenchError(f"{cls.name} scores with one judge: judge panels and "
                                f"--judge-samples are built for {', '.join(able) or 'none'} "
                                "so far; give one --judge (docs/judges.md)")


def cmd_run(args: argparse.Namespace) -> int:
    check_panel(args, args.bench_cls)
    if args.subtask is None:
        cls = args.bench_cls
        raise ScholarbenchError(f"run {cls.name} needs {cls.subtask_flag} "
                                f"{'|'.join(cls.subtasks)}")
    check_max_samples(args.max_samples)
    check_epochs(args.epochs)
    bench = args.bench_cls(_options(args))
    if args.dry_run:
        check_usage(args)
        return dry_run(args, bench, args.subtask)
    label = args.agent + ("-tools" if args.tools else "")
    out = Path(args.out or f"runs/{bench.name}-{args.subtask}-{slug(label)}")
    outcome = run_benchmark(bench, args.subtask, args.agent, out,
                            params=run_params(args), models=_models(args),
                            limit=args.limit, name=args.name, progress=not args.quiet,
                            max_samples=args.max_samples, ray=ray_options(args),
                            epochs=args.epochs)
    print(format_outcome(bench, outcome))
    print(f"run directory: {out}")
    outcome.print_problems()      # judges' warnings, errored samples
    return outcome.exit_code


def cmd_rescore(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        raise ScholarbenchError(f"{run_dir}: not a run directory nor a benchmark name")
    manifest = RunDir(run_dir).read_manifest()
    bench = benchmark_class(str(manifest.get("benchmark")))
    check_panel(args, bench)
    options = {"with_judge": bool(args.with_judge)}     # a judge is per scoring, not per run
    if args.dry_run:
        check_usage(args)
        return dry_run_rescore(args, run_dir, bench({**(manifest.get("options") or {}),
                                                     **options}))
    outcome = score_run(run_dir, options=options, models=_models(args),
                        progress=not getattr(args, "quiet", False))
    print(format_outcome(bench(manifest.get("options")), outcome))
    outcome.print_problems()      # judges' warnings, errored samples
    return outcome.exit_code


def cmd_score_files(args: argparse.Namespace) -> int:
    check_panel(args, args.bench_cls)
    bench = args.bench_cls(_options(args))
    if bench.options.get("with_judge") and not getattr(bench, "judges_files", False):
        raise ScholarbenchError(f"--with-judge re-scores a {bench.title or bench.name} run "
                                "directory: scholarbench score RUN_DIR --with-judge")
    score_files = getattr(bench, "score_files", None)
    if score_files is None:
        raise ScholarbenchError(f"{bench.name} scores run directories only: scholarbench "
                                "score RUN_DIR")
    return int(score_files(_models(args)) or 0)


def cmd_eval(args: argparse.Namespace) -> int:
    judges, samples = panel_size(args)
    if judges > 1 or samples > 1:
        one = [b for b in engine_benchmarks() if single_judge(benchmark_class(b))]
        if one:
            print(f"warning: judge panel of {judges} judge(s) × {samples} sample(s): "
                  f"{', '.join(one)} score with the first judge only (panels: "
                  "docs/judges.md)", file=sys.stderr)
    return run_suite(args, _models(args))


GENERIC_FITS = {
    "endpoint": "every benchmark and sub-task (an OpenAI-compatible endpoint is the agent: "
                "--model, --base-url)",
    "replay": "every benchmark and sub-task (answers from a file: --agent replay --agent-arg path=FILE)",
    "package.module:attr": "every benchmark and sub-task whose answer family it returns (your "
                           "function or class; docs/agents.md)",
}


def agent_fits() -> dict[str, list[str]]:
    """Agent name (as `--agent` takes it) → "benchmark: sub-task, …" for each benchmark it
    fits, from each benchmark's own `agent_names`."""
    fits: dict[str, dict[str, list[str]]] = {}
    for name in sorted(engine_benchmarks(),
                       key=lambda n: (getattr(benchmark_class(n), "order", 100), n)):
        cls = benchmark_class(name)
        try:
            bench = cls({})
            per = {s: bench.agent_names(s) for s in cls.subtasks}
        except Exception as exc:              # a plug-in that cannot list: say so, go on
            print(f"warning: {name}: cannot list its agents ({exc})", file=sys.stderr)
            continue
        for subtask, agents in per.items():
            for agent in agents:
                fits.setdefault(agent, {}).setdefault(name, []).append(subtask)
    return {a: [f"{b}: {', '.join(s)}" for b, s in by.items()] for a, by in fits.items()}


def cmd_list(args: argparse.Namespace) -> int:
    if args.kind == "agent":
        fits = agent_fits()
        rows = [(a, "; ".join(fits[a])) for a in sorted(fits) if a not in GENERIC_FITS]
        covered = {f"{b.split(':')[0]}/{a}" for a in fits for b in fits[a]} | set(fits)
        rows += [(a, "a plug-in (its fit is checked when it runs)")
                 for a in REGISTRY.names("agent") if a not in covered]
        rows += list(GENERIC_FITS.items())
        width = max(len(a) for a, _ in rows)
        print(f"{'agent':<{width}}  fits (benchmark: sub-tasks)")
        print("\n".join(f"{a:<{width}}  {text}" for a, text in rows))
    elif args.kind in ("measure", "metric"):
        print(measure_listing(REGISTRY.items("measure")))
    else:
        print("\n".join(REGISTRY.names(args.kind)))
    for problem in REGISTRY.load_problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 0


def measure_listing(items: Sequence[tuple[str, Any]]) -> str:
    """`list measure`: every benchmark's measures, grouped under the benchmark, each with its
    direction, provenance and description (`core.measure.Measure`)."""
    groups: dict[str, list[str]] = {}
    for name, obj in items:
        if isinstance(obj, Measure):
            arrow = {"higher": "↑", "lower": "↓"}.get(obj.direction, " ")
            judge = " [LLM judge]" if obj.judge else ""
            where = f" ({obj.provenance})" if obj.provenance else ""
            text = f"  {obj.key:<26} {arrow} {obj.description}{judge}{where}"
            groups.setdefault(obj.benchmark, []).append(text)
        else:
            bench, _, key = name.rpartition("/")
            groups.setdefault(bench or "(shared)", []).append(f"  {key}")
    return "\n".join(f"{bench}\n" + "\n".join(lines) for bench, lines in sorted(groups.items()))
