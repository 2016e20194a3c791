"""What a benchmark defines for the engine.

A benchmark is a `Benchmark` subclass registered under its name (`@register_benchmark`), living
in one package `scholarbench.benchmarks.<name>` (or any installed package with an entry point in
group `scholarbench.benchmarks`). It says:

- `subtasks`: sub-task → task family (`core.families`), e.g. TaxoBench's modes;
- `add_options`: its own command-line options for `run` and `score` (they land in
  `self.options`, are recorded in the manifest and given back when a run is re-scored);
- `eval_defaults`: what `eval` runs and sets by default (`core.eval_defaults`);
- `load`: the samples of a sub-task (what the agent sees, the gold, unscorable ones) and a
  description of the data for the manifest — raising before any run directory is made; the
  run's chat models reach it only if it asks for them (`load_samples`);
- `agent`: its built-in agents (by name) — the engine adds the generic ways in;
- `record`: an agent's answer as the fields of its generate.jsonl line (`Malformed` if wrong);
- `tool_source`: what the literature tools serve, if it offers them (docs/tools.md);
- `judged_items`, `stages`, `prepare_scoring` and `score_sample`: what a judge is asked, the
  cross-sample work and one sample's score row (`core.scoring` runs them, one row per
  sample, never skipped);
- `measures` (narrowed by a run's rows) and `summary_extras`: the summary
  (`core.summary_metrics`);
- `format_summary`: the terminal lines.

Everything else — run directory, lock, resume, retries of errored samples, usage per stage,
atomic rewrites, exit status — is the engine's (`core.engine`).
"""
from __future__ import annotations

import argparse
import inspect
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

from scholarbench.core.agent import Agent, AgentContext, Task, agent_from_object
from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.core.families import parse_answer
from scholarbench.core.models import Models
from scholarbench.core.planning import PlannedCalls, planned_item_calls
from scholarbench.core.registry import REGISTRY
from scholarbench.tools.source import ToolSource


@dataclass
class Sample:
    id: str
    task: Task
    gold: Any = None
    unscorable: str | None = None      # the agent is not run; the row says why


@dataclass
class Loaded:
    samples: list[Sample]
    data: dict[str, Any] = field(default_factory=dict)   # the manifest's "data" (compared on
                                                         # resume: what changes the task set)
    manifest: dict[str, Any] = field(default_factory=dict)   # more manifest fields (corpus, …)


@dataclass
class ScoreContext:
    """What `Benchmark.score_sample` sees besides its sample and answer: the run's manifest and
    the records of the benchmark's stages (file name → sample id → record)."""
    manifest: dict[str, Any]
    stage_records: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    verdicts: dict[str, Any] = field(default_factory=dict)   # judged item → `Verdicts`
                                                             # (core.judge_stage)
    shared: dict[str, Any] = field(default_factory=dict)     # what `prepare_scoring` made
                                                             # once for every sample
    run_dir: Any = None                                      # the run's `RunDir`
    models: Any = None                                       # the run's `core.models.Models`
    progress: bool = True                                    # progress bars (not --quiet)


class Benchmark:
    name: ClassVar[str]
    title: ClassVar[str] = ""
    subtasks: ClassVar[dict[str, str]] = {}
    subtask_flag: ClassVar[str] = "--mode"            # how the CLI names the sub-task
    headline: ClassVar[dict[str, tuple[str, ...]]] = {}   # sub-task → its headline measures
    unresolved_effect: ClassVar[str] = "scored as misses"   # what an unresolved reference is
    generate_file: ClassVar[str] = "generate.jsonl"
    id_key: ClassVar[str] = "id"                      # the sample id's key in its files
    order: ClassVar[int] = 100                        # position in `eval` and reports
    identity_extra: ClassVar[tuple[str, ...]] = ()    # manifest keys that must also agree to
                                                      # resume (besides engine.IDENTITY_KEYS)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A benchmark that declares judged items scores with panels: the engine's judge
        stage asks every judge (`core.judge_stage`), so it need not say so."""
        super().__init_subclass__(**kwargs)
        if "judged_items" in cls.__dict__ and "judge_panel" not in cls.__dict__:
            cls.judge_panel = True

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.options: dict[str, Any] = dict(options or {})


    # -- command line ------------------------------------------------------------------------
    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser, command: str) -> None:
        """Add this benchmark's options to `run` / `score` / `eval` (command names it)."""

    def eval_defaults(self) -> EvalDefaults:
        """What `eval` does with this benchmark by default (`core.eval_defaults.EvalDefaults`:
        the sub-tasks it runs, the options it sets per sub-task, the hint beside a skipped
        one). Default: every sub-task, no extra options, no hint."""
        return EvalDefaults(tuple(self.subtasks))

    # -- samples and agents ------------------------------------------------------------------
    def check(self, subtask: str) -> None:
        """Cheap checks that the inputs exist (raise with how to get them); called first."""

    def load(self, subtask: str, limit: int | None) -> Loaded:
        """The samples of `subtask` (the first `limit`). A benchmark whose samples are built
        with a chat model (SciNet's `--sentiment judge`) declares a keyword `models=None`: the
        engine then passes the run's `core.models.Models` (`load_samples`)."""
        raise NotImplementedError

    def load_for_rescore(self, run: Any, manifest: dict[str, Any]) -> Loaded:
        """The samples of a finished run (default: `load` again with the recorded options; a
        benchmark that saved its task set in the run directory reads it from there)."""
        return self.load(manifest["mode"], manifest.get("limit"))

    def prepare_run(self, run: Any, loaded: Loaded, manifest: dict[str, Any], *,
                    progress: bool = True) -> None:
        """Called with the lock held, after the manifest is written and before generating:
        write the task set into the run directory, run stages that come before the agent
        (an oracle context, constructed prompts — see `engine.run_stage`); `progress`: their
        progress bars (off with --quiet)."""

    def agent(self, name: str, params: dict[str, Any], subtask: str) -> Agent | None:
        """A built-in agent of this benchmark by name (registered with
        `benchmarks=(<this name>, …)`, as `NAME` or `<benchmark>/NAME`), or None."""
        for key in (f"{self.name}/{name}", name):
            if self.name in (REGISTRY.meta("agent", key).get("benchmarks") or ()):
                return agent_from_object(REGISTRY.get("agent", key), name, params)
        return None

    def agent_names(self, subtask: str) -> list[str]:
        """Built-in agents that fit `subtask` (for `list` and error messages)."""
        family = self.subtasks.get(subtask, "")
        out = []
        for key, obj in REGISTRY.items("agent"):
            meta = REGISTRY.meta("agent", key)
            if self.name not in (meta.get("benchmarks") or ()):
                continue
            fits = meta.get("fits")
            if fits is None or fits(subtask, family):
                out.append(key.removeprefix(f"{self.name}/"))
        return out

    def context(self, agent: Agent, subtask: str, roles: Any) -> AgentContext:
        """The agent's context; `roles.agent()` binds the agent's chat model (only if needed)."""
        llm = roles.agent() if agent.needs.llm else None
        return AgentContext(benchmark=self.name, subtask=subtask, llm=llm)

    # -- the literature tools (docs/tools.md) -------------------------------------------------
    def tool_source(self, subtask: str) -> ToolSource | None:
        """What the literature tools serve for `subtask` (`tools.source.ToolSource`: the
        corpus, opened only when a tool is used; each sample's rules; how `tools serve --task`
        finds a sample), or None (the default): this benchmark offers no tools."""
        return None

    def record(self, sample: Sample, answer: Any) -> dict[str, Any]:
        """The generate.jsonl fields of an answer; raise `families.Malformed` if it is wrong."""
        return {"answer": parse_answer(self.subtasks[sample.task.subtask or ""], answer)
                .model_dump(mode="json")}

    # -- the judge-injection check (docs/injection.md) ----------------------------------------
    judge_reads: ClassVar[str | None] = None    # where the agent's text reaches its LLM judge;
                                                # None: no LLM judge reads agent text
    judge_measure: ClassVar[str | None] = None  # the judge score `judge-check` compares
    # the measures an LLM judge scores (a base name covers its parameterised keys): reported
    # also without the samples flagged `suspected_injection` (injection/unflagged.py)
    judge_scored: ClassVar[tuple[str, ...]] = ()
    # scores with every judge of a panel (`--judge` repeated) and `--judge-samples K` repeats;
    # a benchmark without it refuses a panel rather than silently using one judge
    judge_panel: ClassVar[bool] = False
    # the boolean options that turn on its judged measures: `eval` with judges named
    # (`--judge`, `--judge-panel`) turns each on unless `--option B.KEY=false` says otherwise
    judge_options: ClassVar[tuple[str, ...]] = ()

    def asks_judge(self, subtask: str, rescore: bool = False) -> bool:
        """Whether this run (or re-score) of `subtask` asks an LLM judge, under its options;
        the engine then checks the judge can run before any stage (`core.judging`)."""
        return (any(self.options.get(o) for o in self.judge_options)
                or bool(self.judged_items(subtask)))

    def judged_items(self, subtask: str | None) -> tuple[Any, ...]:
        """What the engine's judge stage asks for `subtask` under this benchmark's options
        (`core.judge_stage.JudgedItem`s; their verdicts reach `score_sample` as
        `ctx.verdicts[item.name]`). Default: none."""
        return ()

    def judge_with_probe(self, sample: Sample, record: dict[str, Any],
                         probe: str | None, judge: Any) -> float | None:
        """`judge`'s `judge_measure` for `record`'s answer with `probe` added where the judge
        reads the agent's text (`probe=None`: the answer as it is); None when the judge's
        reply was unusable. Only called for records of status ok."""
        raise NotImplementedError

    def planned_judge_calls(self, subtask: str, samples: Sequence[Sample],
                            generated: dict[str, dict[str, Any]] | None = None
                            ) -> list[Any]:
        """The judge calls a run of `subtask` on `samples` (unscorable ones included: a stage
        may make them scorable) would make with ONE judge asked once, per stage
        (`core.planning.PlannedCalls`: exact, a bound, or the rule), under this benchmark's
        options; `generated`: the answers when known (a re-score), None before a run. The
        `--dry-run` printout multiplies a panel stage by its judges and K. Default: the
        engine's count of each judged item; with none, no judge call — unless `asks_judge`
        says this run asks a judge of its own (in a stage of the benchmark's): then one stage
        whose count is not known before the answers."""
        items = self.judged_items(subtask)
        if items:
            return [planned_item_calls(item, samples, generated) for item in items]
        if self.asks_judge(subtask, rescore=generated is not None):
            return [PlannedCalls("score")]
        return []

    # -- scoring -----------------------------------------------------------------------------
    def stages(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
               run_dir: Any) -> tuple[str, ...]:
        """Cross-sample stages that come between the answers and the scores (an LLM judge):
        each writes its own file in the run directory (`engine.run_stage`); returns the
        file names, whose records `score_sample` then reads from its `ScoreContext`."""
        return ()

    def prepare_scoring(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                        ctx: "ScoreContext") -> None:
        """Cross-sample work before `score_sample` (a batched encoder over every answer, a
        corpus opened once): put what it needs into `ctx.shared`. Default: nothing."""

    def score_sample(self, sample: Sample, record: dict[str, Any] | None,
                     ctx: "ScoreContext") -> Any:
        """One sample's score row (a `core.records.ScoreRecord` or its dict): its measure
        values, and a status and reason where the benchmark decides them (`unscored`,
        `unscorable`); `record` is its generate line (None: no answer)."""
        raise NotImplementedError

    def measures(self, subtask: str | None,
                 rows: Sequence[dict[str, Any]] | None = None) -> tuple[Any, ...]:
        """The `core.measure.Measure`s this benchmark reports for `subtask`: their aggregators
        give the summary's confidence intervals (`core.summarise`); a summary key not declared
        gets the interval of a plain mean only where that is what it is. `rows` None: every
        declared measure; `rows` given (a run's score rows): those the summary's `metrics`
        holds for them — a benchmark whose rows may lack some (a scoring variant per run:
        DeepSynth-Eval; an LLM judge's measures only judged runs score: TaxoBench) narrows
        them by the rows. One that never narrows may leave `rows` out of its signature
        (`summary_measures`)."""
        return ()

    def summary_extras(self, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                       ) -> dict[str, Any]:
        """The summary's blocks that are this benchmark's own, beside `metrics` (a judge
        panel's agreement, the variant it was scored under), from the rows and the manifest
        alone. Default: none."""
        return {}

    def format_summary(self, summary: dict[str, Any]) -> str:
        lines = [summary_line(summary)]
        for key, m in summary.get("metrics", {}).items():
            value = "—" if m["mean"] is None else f"{m['mean']:.4f}"
            null = f"  ({m['n_null']} undefined, excluded)" if m.get("n_null") else ""
            lines.append(f"  {key:<24} {value:>8}{null}")
        return "\n".join(lines)


def summary_line(summary: dict[str, Any]) -> str:
    counts = summary.get("status", {})
    parts = [f"{n} {status}" for status, n in counts.items() if n]
    name = summary.get("run_name") or summary.get("agent")
    mode = f" ({summary['mode']})" if summary.get("mode") else ""
    why = "errored samples" if counts.get("error") else "judge calls failed"
    done = "" if summary.get("complete", True) else f"  [INCOMPLETE: {why}]"
    return f"{name}{mode}: {summary['n_samples']} samples: {', '.join(parts) or 'none'}{done}"


def summary_measures(bench: Benchmark, subtask: str | None, rows: Sequence[dict[str, Any]]
                     ) -> tuple[Any, ...]:
    """The measures the summary's `metrics` holds for `rows`: `bench.measures(subtask, rows)`
    when its `measures` takes the rows (a keyword `rows`), else every declared one."""
    if "rows" in inspect.signature(bench.measures).parameters:
        return bench.measures(subtask, rows=rows)
    return bench.measures(subtask)


def load_samples(bench: Benchmark, subtask: str, limit: int | None, models: Models) -> Loaded:
    """`bench.load(subtask, limit)`, with the run's `models` when its `load` takes them (a
    keyword `models`): a benchmark whose samples need no chat model never names one, and
    none is kept on the benchmark."""
    if "models" in inspect.signature(bench.load).parameters:
        return bench.load(subtask, limit, models=models)       # type: ignore[call-arg]
    return bench.load(subtask, limit)
