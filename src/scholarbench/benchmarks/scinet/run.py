"""SciNet runs from Python (tests, notebooks, `bench/bench_scinet.py`): `run_scinet` is
`scholarbench run scinet` — the engine's run (`core.engine.run_benchmark`) with SciNet's options,
plus what the command line cannot pass: an environment already open, an embedder, build
settings, a judge client.

Run directory (the engine's, with SciNet's files):

tasks.jsonl     the tasks of the run, with their ground truth (built from the graph, or read
                from --tasks)
generate.jsonl  one line per task attempt: {"task_id", "status", "papers": [...], "info":
                {..., "refs", "unresolved"}, "seconds"} (status ok | malformed | error, with
                "error"); appended and fsynced, so a killed run resumes (finished tasks are kept,
                errored ones retried, a torn last line redone)
scores.jsonl    one line per task: `metrics.score_task` (metrics, null where undefined, and the
                counts: not_in_graph, empty, missing_answer, unresolved_refs, ...) and `status`
summary.json    the engine's summary (status counts, `complete`, `metrics`) and SciNet's
                `families.<family>`: macro (and micro) means with n / n_null, counts; with a
                judge the LLM metrics and `judge` counts; with an LLM agent `agent_llm`
judge.<item>.jsonl  (with a judge: ego, path, review) the engine's judge stage's verdicts, one
                per request, judge and repeat; reused when the run is scored again
manifest.json   the engine's manifest (benchmark, mode = the family, agent and its config,
                data = tasks checksum, count, source and environment, options, models, usage
                per stage); `embedder`, and after judging `judged.<item>` (the prompt
                version, the judges, their seeds and repeats)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from scholarbench.benchmarks.scinet.measures import K
from scholarbench.errors import ScholarbenchError
from scholarbench.core.engine import Models, run_benchmark
from scholarbench.benchmarks.scinet.benchmark import SciNet


@dataclass
class SciNetRunConfig:
    family: str                          # ego | pair | path
    agent: str                           # scinet/<name>, <name>, module:attr, endpoint, replay
    out: Path
    graph_dir: Path | None = None        # arxiv-2023 folder (default: the imported dataset)
    unarxive_dir: Path | None = None     # citation contexts
    tasks: Path | None = None            # a tasks JSONL; default: build from the graph
    env: Any = None                      # an environment already open (tests, notebooks)
    build: Any = None                    # tasks.BuildSettings
    agent_params: dict[str, Any] | None = None
    limit: int | None = None
    embedder: Any = None                 # for scinet/embedding (default: MiniLM)
    run_name: str | None = None
    with_judge: bool = False             # LLM metrics through the judge role
    judge_k: int = K                     # ego: papers judged per task (the first distinct ones)
    judge_samples: int | None = None     # each judge asked this many times (default 1)
    data: Path | None = None             # data directory (default: $SCHOLARBENCH_DATA, ...)
    progress: bool = False


def run_scinet(config: SciNetRunConfig, roles_factory: Callable[..., Any] | None = None,
               *, judge: Any = None) -> dict[str, Any]:
    """Run (or resume) generate → score (→ judge) → aggregate; returns summary.json's content.

    `roles_factory(need_agent=…, need_judge=…)` returns the run's `LLMRoles`; it is called once
    per role a run needs (the agent's model when the agent uses one, the judge's with
    `with_judge`). Passing `judge` (a ChatClient, or a list of them: a judge panel) turns the
    LLM metrics on with that client."""
    if config.family not in SciNet.subtasks:
        raise ScholarbenchError(f"unknown SciNet task family {config.family!r}; use ego, pair "
                                "or path")
    options = {"tasks": str(config.tasks) if config.tasks else None,
               "graph": str(config.graph_dir) if config.graph_dir else None,
               "unarxive": str(config.unarxive_dir) if config.unarxive_dir else None,
               "with_judge": config.with_judge,
               "data": str(config.data) if config.data else None}
    bench = SciNet(options, env=config.env, embedder=config.embedder, build=config.build,
                   judge=judge, judge_k=config.judge_k, judge_samples=config.judge_samples)
    outcome = run_benchmark(bench, config.family, config.agent, Path(config.out),
                            params=dict(config.agent_params or {}),
                            models=bench.given_models(Models(roles_factory), roles_factory),
                            limit=config.limit,
                            name=config.run_name, progress=config.progress)
    return outcome.summary
