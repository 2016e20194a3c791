"""`scholarbench eval`: one agent on every benchmark and sub-task it fits.

Every (benchmark, sub-task) pair is checked first: an explicitly listed benchmark the agent fits
in none of its sub-tasks is an error before anything runs. Then each pair runs into
`OUT/<benchmark>-<sub-task>/` (resumable like any run), and `OUT/eval.json` lists per run: the
benchmark, sub-task, status (complete / incomplete / failed), samples, scored, errors, malformed
and the headline measures; one table is printed. Exit status: 0 all complete, 3 some samples
errored, 2 a run could not start (its reason is in eval.json and printed).

`--agent replay` takes one answers file for the whole suite (`core.replay`): every (benchmark,
sub-task) the file has lines for runs; one it has none for is not run, said in one line, and
listed in eval.json as `no answers` with its samples counted as `missing`. A file that is not
JSON lines of objects stops the suite before anything runs.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarbench.core.agent import import_object
from scholarbench.core.benchmark import Benchmark
from scholarbench.core.engine import (EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, Models,
                                      benchmark_class, engine_benchmarks, resolve_agent,
                                      run_benchmark)
from scholarbench.core.rundir import atomic_write_json
from scholarbench.errors import ScholarbenchError


def default_options(cls: type[Benchmark], overrides: dict[str, Any]) -> dict[str, Any]:
    """A benchmark's `run` options at their defaults, with `--option B.KEY=VALUE` applied."""
    parser = argparse.ArgumentParser(add_help=False)
    before = {a.dest for a in parser._actions}
    cls.add_options(parser, "run")
    dests = [a.dest for a in parser._actions if a.dest not in before]
    defaults = vars(parser.parse_args([]))
    unknown = set(overrides) - set(dests)
    if unknown:
        raise ScholarbenchError(f"--option: {cls.name} has no option "
                                f"{', '.join(sorted(unknown))}; it has: {', '.join(dests) or 'none'}")
    return {**{d: defaults.get(d) for d in dests}, **overrides}


def _parse_overrides(pairs: list[str]) -> dict[str, dict[str, Any]]:
    from scholarbench.core.commands import agent_params
    out: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        bench, dot, option = key.partition(".")
        if not (sep and dot and bench and option):
            raise ScholarbenchError(f"--option takes BENCHMARK.KEY=VALUE, got {pair!r}")
        out.setdefault(bench, {}).update(agent_params([f"{option.replace('-', '_')}={value}"]))
    return out


@dataclass
class Plan:
    pairs: list[tuple[Benchmark, str]]               # to run
    unanswered: list[tuple[Benchmark, str]] = field(default_factory=list)   # replay: no lines
    order: list[tuple[Benchmark, str]] = field(default_factory=list)        # both, as listed
    replay: Any = None                               # --agent replay: its `ReplayFile`


def plan(args: argparse.Namespace, models: Models) -> Plan:
    from scholarbench.core.commands import run_params
    names = engine_benchmarks()
    listed = None if args.benchmarks in ("all", "", None) else \
        [b.strip() for b in args.benchmarks.split(",") if b.strip()]
    for name in listed or []:
        if name not in names:
            raise ScholarbenchError(f"unknown benchmark {name!r}; known: {', '.join(names)}")
    overrides = _parse_overrides(args.option)
    for name in overrides:
        if name not in names:
            raise ScholarbenchError(f"--option for unknown benchmark {name!r}")
    out = Plan([])
    params = run_params(args)
    if ":" in args.agent:               # a module that does not import fails here, in one line
        import_object(args.agent)
    replay = out.replay = _replay_file(args.agent, params)
    with_data, needs_model = [], False
    for name in sorted(listed or names, key=lambda n: (getattr(benchmark_class(n), "order", 100), n)):
        cls = benchmark_class(name)
        options = default_options(cls, overrides.get(name, {}))
        options["data"] = args.data
        if getattr(args, "max_output", None):
            options["max_output"] = list(args.max_output)
        bench = cls(options)
        fitting, reasons = [], []
        subtasks = bench.available_subtasks()
        with_data += subtasks
        for subtask in subtasks:
            out.order.append((bench, subtask))
            if replay is not None:      # the pairs the file answers; an unreadable line stops
                if not replay.applies(name, subtask):
                    out.unanswered.append((bench, subtask))
                    continue
                resolve_agent(bench, args.agent, dict(params), subtask)
                fitting.append(subtask)
                continue
            try:
                agent = resolve_agent(bench, args.agent, dict(params), subtask)
                fitting.append(subtask)
                needs_model = needs_model or agent.needs.llm
            except ScholarbenchError as exc:
                reasons.append(str(exc))
        if listed is not None and not fitting and replay is None:
            raise ScholarbenchError(f"agent {args.agent!r} fits no sub-task of {name}: "
                                    + (reasons[0] if reasons else "no sub-task has data"))
        out.pairs.extend((bench, s) for s in fitting)
    if not with_data:
        from scholarbench.paths import data_dir
        raise ScholarbenchError(f"no benchmark data in {data_dir(args.data)}: import some "
                                "(scholarbench data import NAME PATH) or run scholarbench demo")
    if replay is not None:
        _warn_unknown_tags(replay)
        if not out.pairs:
            raise ScholarbenchError(f"{replay.path} has no answers for "
                                    f"{', '.join(listed or names)}: tag lines with "
                                    "\"benchmark\" and \"subtask\" (docs/agents.md)")
    if not out.pairs:
        raise ScholarbenchError(f"agent {args.agent!r} fits no benchmark")
    if needs_model:         # a missing key (an unset --api-key-env) fails here, in one line
        models.bind(agent=True)
    return out


def _replay_file(agent: str, params: dict[str, Any]) -> Any:
    """The suite's answers file of `--agent replay` (read once; a file that is not JSON lines
    of objects is refused here), else None."""
    if agent != "replay" or not params.get("path"):    # no file: DeepSynth replays its tasks'
        return None                                    # own reports; the others do not fit
    from scholarbench.core.replay import read_replay_file
    return read_replay_file(params["path"])


def _warn_unknown_tags(replay: Any) -> None:
    known = {(n, s) for n in engine_benchmarks() for s in benchmark_class(n).subtasks}
    for (bench, subtask), n in sorted(replay.tagged().items(), key=str):
        if not any((bench in (None, b)) and (subtask in (None, s)) for b, s in known):
            print(f"warning: {replay.path}: {n} line(s) tagged {bench or '*'}/{subtask or '*'}, "
                  "which is no benchmark's sub-task: ignored", file=sys.stderr)


def _count_samples(bench: Benchmark, subtask: str, limit: int | None) -> int | None:
    try:
        return len(bench.load(subtask, limit).samples)
    except ScholarbenchError:
        return None


def run_suite(args: argparse.Namespace, models: Models) -> int:
    from scholarbench.core.commands import _slug, ray_options, run_params
    from scholarbench.core.concurrency import check_max_samples
    out = Path(args.out or f"runs/eval-{_slug(args.agent + ('-tools' if args.tools else ''))}")
    check_max_samples(args.max_samples)
    ray = ray_options(args)
    planned = plan(args, models)
    entries = []
    for bench, subtask in planned.order:
        if (bench, subtask) in planned.unanswered:    # --agent replay: the file has no line
            n = _count_samples(bench, subtask, args.limit)
            print(f"no answers for {bench.name}/{subtask} in {planned.replay.path}: its "
                  f"{'' if n is None else f'{n} '}samples are missing (not run)",
                  file=sys.stderr)
            entries.append({"benchmark": bench.name, "subtask": subtask, "status": "no answers",
                            "reason": "no line in the answers file", "samples": n,
                            "missing": n})
            continue
        if (bench, subtask) not in planned.pairs:
            continue
        run_dir = out / f"{bench.name}-{subtask}"
        print(f"== {bench.name} {subtask} → {run_dir}")
        entry: dict[str, Any] = {"benchmark": bench.name, "subtask": subtask,
                                 "run_dir": str(run_dir)}
        try:
            outcome = run_benchmark(bench, subtask, args.agent, run_dir,
                                    params=run_params(args), models=models,
                                    limit=args.limit, name=args.name, progress=not args.quiet,
                                    max_samples=args.max_samples, ray=ray)
        except ScholarbenchError as exc:
            entry.update(status="failed", reason=str(exc))
            print(f"error: {bench.name} {subtask}: {exc}", file=sys.stderr)
            entries.append(entry)
            continue
        s = outcome.summary
        counts = s.get("status", {})
        headline = bench.headline.get(subtask, ()) or tuple(s.get("metrics", {}))[:3]
        entry.update(status="complete" if not outcome.n_errors else "incomplete",
                     run_name=s.get("run_name"), samples=s["n_samples"],
                     scored=counts.get("scored", 0), errors=counts.get("error", 0),
                     malformed=counts.get("malformed", 0),
                     oversized=counts.get("oversized", 0),
                     headline={k: s["metrics"][k]["mean"] for k in headline
                               if k in s.get("metrics", {})})
        if line := outcome.error_line():
            print(f"error: {line}", file=sys.stderr)
        entries.append(entry)
    atomic_write_json(out / "eval.json", {"agent": args.agent, "runs": entries})
    print()
    print(format_table(entries))
    print(f"suite: {out / 'eval.json'}")
    if any(e["status"] == "failed" for e in entries):
        return EXIT_USAGE
    return EXIT_INCOMPLETE if any(e["status"] == "incomplete" for e in entries) else EXIT_OK


def format_table(entries: list[dict[str, Any]]) -> str:
    head = f"{'benchmark':<14} {'sub-task':<14} {'status':<11} {'n':>4} {'scored':>6} " \
           f"{'err':>4} {'malf':>4}  headline"
    lines = [head, "-" * len(head)]
    for e in entries:
        if e["status"] in ("failed", "no answers"):
            lines.append(f"{e['benchmark']:<14} {e['subtask']:<14} {e['status']:<11}  "
                         f"{e['reason']}")
            continue
        hl = "  ".join(f"{k} {'—' if v is None else f'{v:.4f}'}"
                       for k, v in e["headline"].items())
        lines.append(f"{e['benchmark']:<14} {e['subtask']:<14} {e['status']:<11} "
                     f"{e['samples']:>4} {e['scored']:>6} {e['errors']:>4} {e['malformed']:>4}  {hl}")
    return "\n".join(lines)

