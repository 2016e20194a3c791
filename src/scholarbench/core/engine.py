"""The one generate → score → aggregate loop, for every benchmark.

`run_benchmark` resolves the agent (refusing one that does not fit, with the list of those that
do), loads the samples and builds the agent's context *before* any run directory exists — so a
set-up failure leaves nothing that blocks the retry — then, holding the run directory's lock:

1. checks an existing manifest agrees (benchmark, sub-task, agent, its config, data, models);
   a directory with no finished sample is simply taken over;
2. generates: one `SampleRecord` line per sample not yet finished (errored ones are retried),
   appended and fsync'ed — with `--epochs K`, per sample and epoch (`core.epochs`); anything the agent raises is `error` (only the user's Ctrl-C or
   SIGTERM stops the run), an answer that does not fit, or JSON cannot write, is `malformed`;
3. scores every sample (never skipping one) and writes scores.jsonl and summary.json atomically
   (each row's `unresolved` answer references and the summary's `n_unresolved`: `core.refs`);
4. records the usage of each stage's chat model in the manifest (`usage.<stage>.<role>`, and
   the running totals in `llm_usage`).

Exit status of `run`, `score` and `eval` (docs/agents.md): 0 complete; 3 some samples errored
or some judge calls failed after every retry (the run is incomplete: resume to retry them;
`core.judging`); 2 bad input, usage or a locked run directory.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm import tqdm

from scholarbench.core.agent import Agent, AgentContext
from scholarbench.core.benchmark import Benchmark, Sample, load_samples, summary_line
from scholarbench.core.concurrency import check_max_samples, in_flight, samples_at_once
from scholarbench.core.epochs import (EPOCHS_KEY, check_epochs, epochs_line, epochs_of,
                                      expand, manifest_block)
from scholarbench.core.judging import (FAILURES_KEY, JudgeWatch, check_judge_can_run, failed_calls,
                                       record_shortfalls, warning_lines as judge_warning_lines)
from scholarbench.core.limits import scored_as_missing, OutputLimits
from scholarbench.core.lookup import (  # noqa: F401  (re-exported: callers import them here)
    benchmark_class, engine_benchmarks, resolve_agent)
from scholarbench.core.manifest import (jsonable_options, package_versions, plain_options,
                                        recorded_argv)
from scholarbench.core.models import Models  # noqa: F401  (re-exported: callers import it from here)
from scholarbench.core.finished import BASIS_KEY, judge_basis, kept_summary, scoring_basis
from scholarbench.core.records import RUN_FORMAT, Manifest
from scholarbench.core.rundir import RunDir
from scholarbench.core.scoring import score_samples, settle_rows
from scholarbench.core.solving import add_tool_counts, solve_with_tools
from scholarbench.core.writing import SampleWriter, write_record
from scholarbench.core.summarise import summarise
from scholarbench.core.cost import cost_line
from scholarbench.core.usage import (  # noqa: F401  (add_stage_usage re-exported)
    add_stage_usage, add_usage_delta, judge_usage_lines, model_identity, usage_snapshot)
from scholarbench.errors import IncompleteRun, ScholarbenchError
from scholarbench.injection.unflagged import flagged_note
from scholarbench.leakage.unleaked import leak_lines
from scholarbench.llm.secrets import redact
from scholarbench.text.escape import neutralise
from scholarbench.procs import watch_stops

EXIT_OK, EXIT_USAGE, EXIT_INCOMPLETE = 0, 2, 3
# Manifest keys that must agree for a run directory to be resumed.
IDENTITY_KEYS = ("benchmark", "mode", "agent", "agent_config", "data", "agent_model")
SCORES, SUMMARY = "scores.jsonl", "summary.json"
# options of one scoring, never recorded as the run's (a judge is asked per `score`)
PER_SCORING = ("with_judge",)


# -- agents --------------------------------------------------------------------------------

def run_name(agent_spec: str, models: Models, explicit: str | None) -> str:
    """Runs are named `AGENT@MODEL` (not the endpoint's URL): two models are told apart."""
    if explicit:
        return explicit
    client = models.bound().get("agent")      # model_id is "BASE_URL|model": the model only
    return agent_spec if client is None else f"{agent_spec}@{client.model_id.rpartition('|')[2]}"


# -- running -------------------------------------------------------------------------------

@dataclass
class RunOutcome:
    run_dir: Path
    summary: dict[str, Any]
    n_errors: int
    error_reasons: dict[str, int] = field(default_factory=dict)
    # the manifest's `usage` when this invocation began: the terminal's judge usage line says
    # what this invocation sent, beside the directory's totals
    usage_before: dict[str, Any] | None = None
    judge_record: dict[str, Any] = field(default_factory=dict)   # the manifest's
    # `judge_failures` after this scoring (core.judging): the last judged scoring's

    @property
    def judge_failed(self) -> int:
        """Judge calls of the last judged scoring that failed after every retry."""
        return failed_calls(self.judge_record)

    @property
    def exit_code(self) -> int:
        return EXIT_INCOMPLETE if self.n_errors or self.judge_failed else EXIT_OK

    def warning_lines(self) -> list[str]:
        """One line per judge that fell short (failed calls, unusable replies)."""
        return judge_warning_lines(self.judge_record)

    def print_problems(self) -> None:
        """The judges' warning lines and the errored samples' line, on stderr."""
        for line in self.warning_lines():
            print(f"warning: {line}", file=sys.stderr)
        if line := self.error_line():
            print(f"error: {line}", file=sys.stderr)

    def error_line(self) -> str | None:
        if not self.n_errors:
            return None
        why = "; ".join(f"{n}× {reason}" for reason, n in
                        sorted(self.error_reasons.items(), key=lambda kv: -kv[1])[:3])
        return (f"{self.n_errors} sample(s) errored ({why}); the run is incomplete — run the "
                f"same command again to retry them")


def run_benchmark(bench: Benchmark, subtask: str, agent_spec: str, out: Path, *,
                  params: dict[str, Any] | None = None, models: Models | None = None,
                  limit: int | None = None, name: str | None = None,
                  progress: bool = True, max_samples: int | None = None,
                  ray: Any = None, epochs: int = 1) -> RunOutcome:
    """Run one agent on one sub-task into `out` (module docstring); `max_samples` samples are
    solved at once (None: sized to the agent's endpoint, `core.concurrency`) — in each Ray
    task when `ray` (`core.distributed.RayOptions`) spreads shards of samples over a
    cluster; each sample `epochs` times (`core.epochs`)."""
    if subtask not in bench.subtasks:
        raise ScholarbenchError(f"{bench.name} has no sub-task {subtask!r}; use one of "
                                f"{', '.join(bench.subtasks)}")
    if limit is not None and limit < 0:
        raise ScholarbenchError("--limit must be >= 0")
    epochs = check_epochs(epochs)
    models = models or Models()
    limits = OutputLimits.of(bench.options)   # a bad --max-output fails before anything
    bench.check(subtask)
    if bench.asks_judge(subtask):           # a judge that cannot run: before any stage
        check_judge_can_run(models, bench.title or bench.name)
    agent = resolve_agent(bench, agent_spec, dict(params or {}), subtask)
    for problem in getattr(agent, "problems", None) or ():     # each says what was done
        print(f"warning: {problem}", file=sys.stderr)
    loaded = load_samples(bench, subtask, limit, models)
    ctx = bench.context(agent, subtask, models)
    if agent.needs.tools and ray is None:
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.tools.provider import ToolProvider
        ctx.tools = ToolProvider(bench, subtask, ctx.embedder)
    agent_client = models.bound().get("agent")
    manifest = Manifest(
        benchmark=bench.name, mode=subtask, agent=agent_spec, agent_config=agent.config(),
        run_name=run_name(agent_spec + ("+tools" if agent_spec == "endpoint"
                                        and agent.needs.tools else ""), models, name),
        limit=limit,
        n_samples=len(loaded.samples), command=recorded_argv(), versions=package_versions(),
        data=loaded.data, options=jsonable_options(bench.options),
        agent_model=model_identity(agent_client)).model_dump(mode="json")
    manifest["output_limits"] = limits.model_dump()
    manifest.update(loaded.manifest)
    if epochs > 1:                          # K = 1 records nothing: runs as before
        manifest[EPOCHS_KEY] = manifest_block(epochs)
    at_once = samples_at_once(check_max_samples(max_samples), agent, ctx.llm)
    manifest["max_samples"] = at_once
    remote = None
    if ray is not None:
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.core.distributed import ray_solver
        remote = ray_solver(bench, subtask, agent_spec, params, limit, models, agent, at_once,
                            ray)
        manifest["ray"] = {"address": ray.address, "cpus": ray.cpus, "gpus": ray.gpus,
                           "retries": ray.retries}
    run = RunDir(out)
    created = not out.exists()
    try:
        with run.lock():
            before = _usage_now(run)
            earlier = run.read_manifest() if run.manifest_path.exists() else None
            _take_or_check(run, manifest, IDENTITY_KEYS + tuple(bench.identity_extra),
                           bench.generate_file, bench.id_key)
            if agent_client is not None:
                manifest.setdefault("models", {})["agent"] = {
                    **agent_client.config.public(), "model_id": agent_client.model_id}
            run.write_manifest(manifest)
            bench.prepare_run(run, loaded, manifest, progress=progress)
            samples = expand(loaded.samples, epochs)     # after: what it set (unscorable)
            new = generate(bench, run, samples, agent, ctx, progress, at_once, remote)
            judges = judge_basis(models, bench.asks_judge(subtask))
            kept = _kept(bench, run, earlier, judges) if new == 0 else None
            outcome = kept or _score_locked(bench, run, samples, models, progress, judges)
            outcome.usage_before = before
            return outcome
    except BaseException:
        if created and not run.manifest_path.exists():
            _remove_empty(out)
        raise


def _take_or_check(run: RunDir, manifest: dict[str, Any],
                   identity_keys: Sequence[str] = IDENTITY_KEYS,
                   generate_file: str = "generate.jsonl", id_key: str = "id") -> None:
    """Resume an agreeing run; take over a directory that holds no finished sample."""
    if not run.exists():
        return
    old = run.read_manifest()
    usage = {k: old[k] for k in ("usage", "llm_usage") if k in old}
    for key in identity_keys:
        if old.get(key) != manifest.get(key):
            if not run.stage(generate_file, id_key).finished():
                break           # nothing worth keeping: a failed set-up or an empty start
            raise ScholarbenchError(
                f"{run.path} holds a run with a different {key!r} ({old.get(key)!r} vs "
                f"{manifest.get(key)!r}); use another --out or delete it")
    else:
        manifest.update(usage)
        manifest["created"] = old.get("created", manifest["created"])


def generate(bench: Benchmark, run: RunDir, samples: Sequence[Sample], agent: Agent,
             ctx: AgentContext, progress: bool = True, max_samples: int = 1,
             remote: Any = None) -> int:
    """One line per sample that has no finished record, up to `max_samples` samples solved at
    once (`core.concurrency`), or by `remote` (`core.distributed.RaySolver`: shards of samples
    solved on a Ray cluster); returns how many were run. This thread is the only writer: each
    sample's tool trajectory, then its generate line, is appended as the sample finishes."""
    stage = run.stage(bench.generate_file, bench.id_key)
    for lineno, problem in stage.problems:
        print(f"warning: {run.file(bench.generate_file)}, line {lineno}: {problem}; "
              "its sample is redone")
    finished = stage.finished()
    todo = [s for s in samples if s.unscorable is None and s.id not in finished]
    before = usage_snapshot(ctx.llm)
    exclusive = max_samples <= 1
    results = remote.solve(todo) if remote is not None else in_flight(
        todo, lambda s: solve_with_tools(bench, agent, s, ctx, run.path, exclusive),
        max_samples)
    writer = SampleWriter(run, bench.generate_file, bench.id_key)
    try:
        with watch_stops(), tqdm(total=len(todo), desc=f"generate ({agent.name})",
                                 unit="sample", disable=not progress or not todo) as bar:
            for sample, (record, calls) in results:
                writer.write(sample.id, record, calls)
                bar.update()
    finally:
        results.close()
        writer.close()
        add_stage_usage(run, "generate", "agent", ctx.llm, before)
        if remote is not None:
            add_usage_delta(run, "generate", "agent", remote.usage)
        if agent.needs.tools:
            add_tool_counts(run)
    return len(todo)


def score_run(run_dir: Path, *, options: dict[str, Any] | None = None,
              models: Models | None = None, progress: bool = True,
              bench: Benchmark | None = None) -> RunOutcome:
    """Re-score a run directory from its files (no agent), holding its lock. The benchmark is
    the run's, with its recorded options and `options` on top (or `bench` as given)."""
    run = RunDir(run_dir)
    manifest = run.read_manifest()
    if bench is None:
        bench = benchmark_class(str(manifest.get("benchmark")))(
            {**(manifest.get("options") or {}), **(options or {})})
    models = models or Models()
    if bench.asks_judge(str(manifest.get("mode")), rescore=True):
        check_judge_can_run(models, bench.title or bench.name)
    with run.lock():
        before = _usage_now(run)
        recorded = {k: v for k, v in plain_options(options or {}).items() if k not in PER_SCORING}
        if recorded:       # what this scoring used: `aggregate` rebuilds with the same
            manifest = run.read_manifest()
            manifest["options"] = {**(manifest.get("options") or {}), **recorded}
            run.write_manifest(manifest)
        loaded = bench.load_for_rescore(run, manifest)
        judges = judge_basis(models, bench.asks_judge(str(manifest.get("mode")), rescore=True))
        outcome = _score_locked(bench, run, expand(loaded.samples, epochs_of(manifest)),
                                models, progress, judges)
        outcome.usage_before = before
        return outcome


def _usage_now(run: RunDir) -> dict[str, Any]:
    """The manifest's `usage` (stage → role → counts) as it is now; {} for a new directory."""
    import copy
    if not run.manifest_path.exists():
        return {}
    return copy.deepcopy(run.read_manifest().get("usage") or {})


def _kept(bench: Benchmark, run: RunDir, earlier: dict[str, Any] | None,
          judges: Any) -> RunOutcome | None:
    """The run as its last scoring left it, when that scoring stands (`core.finished`): its
    manifest back (with this invocation's usage), its summary as the outcome."""
    now = run.read_manifest()
    summary = kept_summary(run, earlier, scoring_basis(run, now, bench.generate_file, judges,
                                                       RUN_FORMAT))
    if summary is None or earlier is None:
        return None
    run.write_manifest({**earlier, **{k: now[k] for k in ("usage", "llm_usage") if k in now}})
    return RunOutcome(run.path, summary, 0, {})


def _score_locked(bench: Benchmark, run: RunDir, samples: Sequence[Sample], models: Models,
                  progress: bool, judges: Any = None) -> RunOutcome:
    """Score every sample, write scores.jsonl and summary.json; `judges` (`core.finished.
    judge_basis`): the judges this scoring asks, recorded in the basis it scored from."""
    manifest = run.read_manifest()
    basis = scoring_basis(run, manifest, bench.generate_file, judges, RUN_FORMAT)
    stage = run.stage(bench.generate_file, bench.id_key)
    generated = stage.records
    watch = JudgeWatch(models)                # every judge's failed calls (core.judging)
    try:
        rows = score_samples(bench, samples, scored_as_missing(generated), manifest, run,
                             models, progress=progress)
    except IncompleteRun:                     # a stage stopped on a judge that is down
        stopped = run.read_manifest()
        record_shortfalls(stopped, watch.shortfalls())
        run.write_manifest(stopped)
        for line in judge_warning_lines(stopped):
            print(f"warning: {line}", file=sys.stderr)
        raise
    shortfalls = watch.shortfalls()
    errors = settle_rows(bench, rows, generated)
    run.write_jsonl(SCORES, rows)
    manifest = run.read_manifest()
    before = dict(manifest)
    manifest["format"] = RUN_FORMAT               # rows and summary now of this format
    if basis is not None:
        manifest[BASIS_KEY] = basis               # what a later invocation may keep
    else:
        manifest.pop(BASIS_KEY, None)
    if watch.asked():          # a scoring without a judge keeps the last judged one's record
        record_shortfalls(manifest, shortfalls)   # the summary's `complete` reads it
    if manifest != before:
        run.write_manifest(manifest)
    summary = summarise(bench, rows, manifest)
    run.write_json(SUMMARY, summary)
    recorded = {FAILURES_KEY: manifest[FAILURES_KEY]} if manifest.get(FAILURES_KEY) else {}
    return RunOutcome(run.path, summary, sum(errors.values()), errors, judge_record=recorded)


def run_stage(run: RunDir, file: str, samples: Sequence[Sample],
              step: Callable[[Sample], dict[str, Any]], *, stage: str, role: str | None = None,
              client: Any = None, id_key: str = "id", progress: bool = True,
              redo: Callable[[dict[str, Any]], bool] | None = None) -> int:
    """A per-sample stage other than generate (an oracle context, a judge): one line per sample
    in `file` for each sample without a finished record (`error` ones are retried; `redo(rec)`
    may ask for others), appended and fsync'ed; `step(sample)` returns the record's fields
    (an exception makes that sample's record `error`); `client`'s usage is added to the
    manifest under `usage.<stage>.<role>`. Returns how many samples were run."""
    done = run.stage(file, id_key).finished()
    todo = [s for s in samples if s.unscorable is None
            and (s.id not in done or (redo is not None and redo(done[s.id])))]
    before = usage_snapshot(client)
    try:
        for sample in tqdm(todo, desc=stage, unit="sample", disable=not progress or not todo):
            start = time.perf_counter()
            record: dict[str, Any] = {id_key: sample.id}
            try:
                record.update(step(sample))
            except Exception as exc:
                record.update(status="error", error=redact(
                    f"{stage} raised {type(exc).__name__}: {exc}")[:2000])
            record["seconds"] = round(time.perf_counter() - start, 4)
            write_record(run, file, record, id_key)
    finally:
        if role is not None:
            add_stage_usage(run, stage, role, client, before)
    return len(todo)


# -- helpers -------------------------------------------------------------------------------

def _remove_empty(path: Path) -> None:
    """Remove a directory this invocation created and left without a manifest."""
    import shutil
    if path.is_dir() and all(p.name in (".lock",) or p.name.startswith(".")
                             for p in path.iterdir()):
        shutil.rmtree(path, ignore_errors=True)


def format_outcome(bench: Benchmark, outcome: RunOutcome) -> str:
    text = bench.format_summary(outcome.summary) or summary_line(outcome.summary)
    if n := outcome.summary.get("n_suspected_injection"):
        text += (f"\n  {n} sample(s) hold text aimed at the judge (`suspected_injection` in "
                 "scores.jsonl; docs/injection.md)")
    if note := flagged_note(outcome.summary):
        text += f"\n  {note}"
    if isinstance(block := outcome.summary.get(EPOCHS_KEY), dict):     # core.epochs
        text += "\n  " + epochs_line(block, bench.headline.get(outcome.summary.get("mode"))
                                      or None)
    for line in leak_lines(outcome.summary,
                           bench.headline.get(outcome.summary.get("mode")) or None):
        text += f"\n  {line}"
    run = RunDir(outcome.run_dir)
    for line in judge_usage_lines(run.read_manifest() if run.manifest_path.exists() else {},
                                  outcome.usage_before):
        text += f"\n  judge usage: {line}"       # every judge, per stage (core.usage)
    if cost := outcome.summary.get("cost"):
        text += f"\n  cost: {cost_line(cost)}"   # docs/cost.md
    return neutralise(text)      # names and reasons are untrusted: no escape sequence, no bidi
