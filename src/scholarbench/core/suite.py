"""`scholarbench eval`: one agent on every benchmark and sub-task it fits.

Every (benchmark, sub-task) pair is checked first: an explicitly listed benchmark the agent fits
in none of its sub-tasks is an error before anything runs. Then each pair runs into
`OUT/<benchmark>-<sub-task>/` (resumable like any run), and `OUT/eval.json` lists per run: the
benchmark, sub-task, status (complete / incomplete / skipped / failed), samples, the per-sample
counts of every status with each one's top reason (`core.status`: the same counts summary.json
and the report show) and the headline measures; one table is printed. A sub-task none of whose
samples can be scored on the data at hand is `skipped`, with why and how to enable it.
Exit status: 0 all complete (or skipped), 3 some samples errored, 2 a run could not start (its
reason is in eval.json and printed).
A run with samples flagged `suspected_injection` also gets, under the table and in eval.json
(`without_flagged`), its judge-scored means without them; one with samples flagged
`suspected_leak` its headline means without those (`without_leaked`, docs/leakage.md).

eval.json is built from each run directory's own files, read under that directory's lock
(waiting for another process that holds it), never from this process's memory: two `eval`s on
one `--out` each skip the runs the other holds (`RunLocked`), and whichever writes eval.json
last still lists every run as its directory records it.

`--agent replay` takes one answers file for the whole suite (`core.replay`): every (benchmark,
sub-task) the file has lines for runs; one it has none for is not run, said in one line, and
listed in eval.json as `no answers` with its samples counted as `missing`. A file that is not
JSON lines of objects stops the suite before anything runs.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarbench.core.agent import import_object
from scholarbench.core.args import agent_params, ray_options, run_params, slug
from scholarbench.core.benchmark import Benchmark
from scholarbench.core.cost import cost_line
from scholarbench.core.concurrency import check_max_samples
from scholarbench.core.epochs import EPOCHS_KEY, check_epochs, spread_cell
from scholarbench.core.dry_run import dry_run_suite
from scholarbench.core.engine import (EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, Models,
                                      benchmark_class, engine_benchmarks, resolve_agent,
                                      run_benchmark)
from scholarbench.core.replay import read_replay_file
from scholarbench.core.rundir import RunDir, RunLocked, atomic_write_json
from scholarbench.core.status import COLUMNS, LABELS, run_counts
from scholarbench.errors import IncompleteRun, ScholarbenchError
from scholarbench.injection.unflagged import flagged_note
from scholarbench.leakage.unleaked import leaked_note
from scholarbench.metrics.judge_panel import format_panel
from scholarbench.paths import data_dir
from scholarbench.registry import REGISTRY
from scholarbench.text.escape import terminal

EVAL_LOCK = ".eval.lock"       # held while eval.json is built and written


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
    flags = {a.dest for a in parser._actions
             if isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction))}
    given = {k: boolean_option(cls.name, k, v) if k in flags else v
             for k, v in overrides.items()}
    return {**{d: defaults.get(d) for d in dests}, **given}


TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def boolean_option(bench: str, key: str, value: Any) -> bool:
    """A boolean option's value from `--option B.KEY=VALUE`: true/false (yes/no, on/off,
    1/0); anything else is refused in one line (never read as "on" because it is text)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE or text in FALSE:
        return text in TRUE
    raise ScholarbenchError(f"--option {bench}.{key}={value}: {key} is a boolean option; "
                            "give true or false")


def judges_named(args: argparse.Namespace) -> bool:
    """Whether the user named judges (`--judge`, `--judge-panel`): then every judged measure
    of every benchmark in the suite is on (`Benchmark.judge_options`)."""
    return bool(getattr(args, "judge", None) or getattr(args, "judge_panel", None))


def judge_defaults(cls: type[Benchmark], args: argparse.Namespace,
                   given: dict[str, Any]) -> dict[str, Any]:
    """The options that turn on `cls`'s judged measures, on when judges are named and the
    user's `--option` did not set them."""
    if not judges_named(args):
        return {}
    return {key: True for key in cls.judge_options if key not in given}


def _parse_overrides(pairs: list[str]) -> dict[str, dict[str, Any]]:
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
    names = REGISTRY.names("benchmark")     # names only: a listed benchmark's module alone loads
    listed = None if args.benchmarks in ("all", None) else \
        [b.strip() for b in args.benchmarks.split(",") if b.strip()]
    if listed == []:
        raise ScholarbenchError(f"--benchmarks {args.benchmarks!r} names no benchmark; give "
                                f"'all' or a comma-separated list of: {', '.join(names)}")
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
        options.update(judge_defaults(cls, args, overrides.get(name, {})))
        options["data"] = args.data
        if getattr(args, "max_output", None):
            options["max_output"] = list(args.max_output)
        bench = cls(options)
        fitting, reasons = [], []
        defaults = bench.eval_defaults()
        with_data += defaults.subtasks
        for subtask in defaults.subtasks:
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
        for subtask in fitting:
            extra = defaults.options(subtask, overrides.get(name, {}))
            out.pairs.append((cls({**bench.options, **extra}) if extra else bench, subtask))
    if not with_data:
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
    if needs_model and not getattr(args, "dry_run", False):   # a missing key (an unset
        models.bind(agent=True)      # --api-key-env) fails here, in one line; a dry run binds none
    return out


def _replay_file(agent: str, params: dict[str, Any]) -> Any:
    """The suite's answers file of `--agent replay` (read once; a file that is not JSON lines
    of objects is refused here), else None."""
    if agent != "replay" or not params.get("path"):    # no file: DeepSynth replays its tasks'
        return None                                    # own reports; the others do not fit
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
    out = Path(args.out or f"runs/eval-{slug(args.agent + ('-tools' if args.tools else ''))}")
    check_max_samples(args.max_samples)
    check_epochs(getattr(args, "epochs", 1))
    ray = ray_options(args)
    planned = plan(args, models)
    if getattr(args, "dry_run", False):          # nothing run, no suite directory written
        return dry_run_suite(args, planned)
    runnable = {(b.name, s): b for b, s in planned.pairs}
    unanswered = {(b.name, s) for b, s in planned.unanswered}
    listed: dict[tuple[str, str], dict[str, Any]] = {}
    failures: dict[Path, ScholarbenchError] = {}
    for bench, subtask in planned.order:
        key = (bench.name, subtask)
        if key in unanswered:    # --agent replay: the file has no line
            n = _count_samples(bench, subtask, args.limit)
            print(f"no answers for {bench.name}/{subtask} in {planned.replay.path}: its "
                  f"{'' if n is None else f'{n} '}samples are missing (not run)",
                  file=sys.stderr)
            listed[key] = {"benchmark": bench.name, "subtask": subtask, "status": "no answers",
                           "reason": "no line in the answers file", "samples": n, "missing": n}
            continue
        if key not in runnable:
            continue
        bench = runnable[key]
        run_dir = out / f"{bench.name}-{subtask}"
        print(f"== {bench.name} {subtask} → {run_dir}")
        try:
            outcome = run_benchmark(bench, subtask, args.agent, run_dir,
                                    params=run_params(args), models=models,
                                    limit=args.limit, name=args.name, progress=not args.quiet,
                                    max_samples=args.max_samples, ray=ray,
                                    epochs=getattr(args, "epochs", 1))
        except ScholarbenchError as exc:
            failures[run_dir] = exc
            print(f"error: {bench.name} {subtask}: {exc}", file=sys.stderr)
            continue
        outcome.print_problems()      # judges' warnings, errored samples
    from filelock import FileLock
    out.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out / EVAL_LOCK)):       # one eval.json writer at a time
        entries = [listed[(b.name, s)] if (b.name, s) in listed else
                   run_entry(runnable[(b.name, s)], s, out / f"{b.name}-{s}",
                             failures.get(out / f"{b.name}-{s}"))
                   for b, s in planned.order if (b.name, s) in listed or (b.name, s) in runnable]
        atomic_write_json(out / "eval.json", {"agent": args.agent, "runs": entries})
    print()
    print(format_table(entries))
    print(f"suite: {out / 'eval.json'}")
    if any(e["status"] == "failed" for e in entries):
        return EXIT_USAGE
    return EXIT_INCOMPLETE if any(e["status"] == "incomplete" for e in entries) else EXIT_OK


def run_entry(bench: Benchmark, subtask: str, run_dir: Path,
              failure: ScholarbenchError | None = None) -> dict[str, Any]:
    """eval.json's entry for one run, from its directory's own files read under its lock: its
    status, the per-sample counts of `core.status.run_counts` (the same counts summary.json and
    the report show) and the headline means. `failure`: why this process could not run it — the
    entry unless the run was only held by another process (`RunLocked`), whose result the
    directory then records. A run whose every sample is unscorable is `skipped`, with why and how
    to enable it."""
    entry: dict[str, Any] = {"benchmark": bench.name, "subtask": subtask, "run_dir": str(run_dir)}
    summary = counts = None
    if failure is None or isinstance(failure, RunLocked):
        run = RunDir(run_dir)
        if failure is not None:
            print(f"waiting for {run_dir} (another process holds it) to list it in eval.json",
                  file=sys.stderr)
        with run.lock(wait=True):
            try:
                summary = json.loads(run.file("summary.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                summary = None
            if isinstance(summary, dict) and isinstance(summary.get("status"), dict):
                counts = run_counts(run_dir, bench.name)
    if isinstance(failure, IncompleteRun):      # a judge down: resumable, not a bad input
        return {**entry, "status": "incomplete", "reason": str(failure)}
    if counts is None or not isinstance(summary, dict):
        reason = str(failure) if failure is not None else f"{run_dir} holds no summary.json"
        return {**entry, "status": "failed", "reason": reason}
    metrics = summary.get("metrics") or {}
    headline = bench.headline.get(subtask, ()) or tuple(metrics)[:3]
    status = "complete" if summary.get("complete", True) else "incomplete"
    entry["tasks"] = tasks = task_set(_manifest(run_dir),
                                       (getattr(bench, "options", None) or {}).get("data"))
    if counts.n_samples == 0:
        status = "skipped"
        entry["reason"] = f"no {subtask} task in the task set ({tasks})"
    elif counts.get("unscorable") == counts.n_samples:
        status = "skipped"
        entry["reason"] = (f"every sample unscorable ({counts.reasons.get('unscorable', '')})"
                           + (f"; {hint}" if (hint := bench.eval_defaults().hint(subtask)) else ""))
    c = counts.counts
    entry.update(status=status, run_name=summary.get("run_name"), samples=counts.n_samples,
                 counts=c, reasons=counts.reasons,
                 scored=c["scored"], errors=c["error"], malformed=c["malformed"],
                 oversized=c["oversized"],
                 headline={k: metrics[k]["mean"] for k in headline if k in metrics},
                 headline_ci95={k: metrics[k].get("ci95") for k in headline if k in metrics})
    if isinstance(summary.get(EPOCHS_KEY), dict):      # --epochs K > 1 (core.epochs)
        entry[EPOCHS_KEY] = {"k": summary[EPOCHS_KEY].get("k"), "spread": {
            k: v for k, v in (summary[EPOCHS_KEY].get("spread") or {}).items()
            if k in entry["headline"]}}
    entry["headline_shown"] = headline_cells(bench, subtask, entry)
    if summary.get("cost"):                     # docs/cost.md
        entry["cost"] = summary["cost"]
    if summary.get("without_flagged"):
        entry["without_flagged"] = summary["without_flagged"]
    if summary.get("without_leaked"):           # docs/leakage.md
        entry["n_suspected_leak"] = summary.get("n_suspected_leak")
        entry["without_leaked"] = summary["without_leaked"]
    notes = {k: v for k, v in (summary.get("measure_notes") or {}).items()
             if k in entry["headline"] and isinstance(v, str)}
    if notes:                                   # e.g. ResearchArena HER's NER model, caveat
        entry["measure_notes"] = notes
    if summary.get("judge_panel"):              # a judge panel or repeats: docs/judges.md
        entry["judge_panel"] = summary["judge_panel"]
        entry["judge_agreement"] = summary.get("judge_agreement") or {}
    return entry


def _manifest(run_dir: Path) -> dict[str, Any]:
    try:
        obj = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def task_set(manifest: dict[str, Any], data: str | None = None) -> str:
    """Which tasks a run used, in a few words, from its manifest's `data`: a task file (named
    as `<kind>/<file>` when it is in the data directory) or what the tasks were built from."""
    info = manifest.get("data") if isinstance(manifest.get("data"), dict) else {}
    source = info.get("tasks_source") or info.get("tasks_from") or info.get("path")
    if source == "built":
        return "built from the citation graph"
    if source == "corpus":
        return f"built from the corpus ({info.get('task_set') or 'reference lists'})"
    if source == "taxobench":
        file = (info.get("taxobench") or {}).get("path") if isinstance(
            info.get("taxobench"), dict) else None
        return "TaxoBench instances" + (f" ({Path(file).name})" if file else "")
    if not isinstance(source, str) or not source:
        return "—"
    path = Path(str(info.get("path") or source))
    try:
        return str(path.resolve().relative_to(data_dir(data).resolve()))
    except (ValueError, OSError):
        return str(path)


_SHORT = {"scored": "scored", "missing": "miss", "malformed": "malf", "oversized": "over",
          "unresolved": "unres", "unscored": "unsc", "unscorable": "unsb", "error": "err"}


def format_table(entries: list[dict[str, Any]]) -> str:
    """The eval table: one row per sub-task with every status column (`core.status`), the
    headline means, and under it one line with the top reason of each non-empty column."""
    cols = "".join(f" {_SHORT[c]:>{max(4, len(_SHORT[c]))}}" for c in COLUMNS)
    head = f"{'benchmark':<14} {'sub-task':<14} {'status':<11} {'n':>4}{cols}  headline"
    lines = [head, "-" * len(head)]
    for e in entries:
        if e["status"] in ("failed", "no answers") or "counts" not in e:
            lines.append(f"{e['benchmark']:<14} {e['subtask']:<14} {e['status']:<11} "
                         f"{terminal(e.get('reason', ''))}")
            continue
        shown, ci95 = e.get("headline_shown") or {}, e.get("headline_ci95") or {}
        spreads = (e.get(EPOCHS_KEY) or {}).get("spread") or {}
        hl = "  ".join(f"{k} {shown.get(k) or _mean_cell(v, ci95.get(k))}"
                       f"{spread_cell(spreads.get(k))}" for k, v in e["headline"].items())
        nums = "".join(f" {_cell(e['counts'].get(c)):>{max(4, len(_SHORT[c]))}}"
                       for c in COLUMNS)
        lines.append(f"{e['benchmark']:<14} {e['subtask']:<14} {e['status']:<11} "
                     f"{e['samples']:>4}{nums}  {hl}")
        why = "; ".join(f"{LABELS.get(k, k)}: {v}" for k, v in e.get("reasons", {}).items())
        if e["status"] == "skipped":
            why = e["reason"]
        if e.get("tasks") not in (None, "—"):
            lines.append(f"{'':<30}tasks: {e['tasks']}")
        if why:
            lines.append(f"{'':<30}{terminal(why)}")     # reasons are the agent's own text
        if e.get("cost"):
            lines.append(f"{'':<30}cost: {cost_line(e['cost'])}")
    lines.append("columns: " + ", ".join(f"{_SHORT[c]} = {LABELS.get(c, c)}" for c in COLUMNS
                                         if _SHORT[c] != c)
                 + "; headline: mean ±half its 95% bootstrap interval, as the report prints it "
                 "(a % measure ×100)"
                 + ("; epoch sd = the SD of the epoch means (--epochs K)"
                    if any(e.get(EPOCHS_KEY) for e in entries) else ""))
    notes = [f"  {e['benchmark']} {e['subtask']}: {k}: {v}" for e in entries
             for k, v in (e.get("measure_notes") or {}).items()]
    return "\n".join(lines + notes + flagged_lines(entries) + judge_lines(entries))


def judge_lines(entries: list[dict[str, Any]]) -> list[str]:
    """Under the table, per run scored by a judge panel or with repeats: one line per judged
    measure — α between the judges, each judge's mean and repeat spread (docs/judges.md)."""
    return [f"  {e['benchmark']} {e['subtask']}: {line.strip()}" for e in entries
            if e.get("judge_panel") for line in format_panel(e)]


def flagged_lines(entries: list[dict[str, Any]]) -> list[str]:
    """Under the table, per run with samples flagged `suspected_injection`: its judge-scored
    means without them (docs/injection.md); with samples flagged `suspected_leak`: its
    headline means without them (docs/leakage.md)."""
    return [f"  {e['benchmark']} {e['subtask']}: {note}" for e in entries
            for note in (flagged_note(e), leaked_note(e, list(e.get("headline") or ()) or None))
            if note]


def headline_cells(bench: Benchmark, subtask: str, entry: dict[str, Any]) -> dict[str, str]:
    """Each headline mean as its `Measure` prints it (decimals, ×100 with a sign where the
    measure is a percentage) with ± half its 95% interval — the report's cell; a headline key
    the benchmark declares no measure for falls back to four decimals."""
    measures = {m.key: m for m in bench.measures(subtask)}
    out = {}
    for key, mean in entry["headline"].items():
        ci95 = (entry.get("headline_ci95") or {}).get(key)
        measure = measures.get(key)
        out[key] = (measure.format_with_interval(mean, tuple(ci95) if ci95 else None)
                    if measure is not None else _mean_cell(mean, ci95))
    return out


def _mean_cell(mean: float | None, ci95: list[float] | None) -> str:
    """'0.4000 ±0.0500': the mean and half its 95% interval's width (core.measure)."""
    if mean is None:
        return "—"
    if not ci95:
        return f"{mean:.4f}"
    return f"{mean:.4f} ±{(ci95[1] - ci95[0]) / 2:.4f}"


def _cell(value: int | None) -> str:
    return "—" if value is None else str(value)
