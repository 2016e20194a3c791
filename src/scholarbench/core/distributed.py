"""`--ray [ADDRESS]`: the samples of a run solved as Ray tasks, one task per shard of samples.

The driver (the `run` / `eval` process) stays the only writer of every run directory: it holds
the lock, plans the shards of the samples without a finished record, submits one task per
(agent, benchmark, sub-task, shard), and appends each shard's records as its task returns —
then scores on the driver as a local run does. A task writes nothing; it rebuilds the
benchmark, the agent and its context on its worker (once per worker process, then cached),
solves its samples (`--max-samples` at once inside the task) and returns their records, tool
trajectories and the model usage of the shard. The shard's samples travel with the task, as the
driver prepared them (a benchmark's run preparation may add to a task: DeepSynth's oracle
references and cut-off, ReportBench's constructed prompts), so a worker solves exactly what a
local run would. Hence:

- a worker killed mid-task loses nothing: Ray runs the task again (`--ray-retries`, default 3)
  and the driver appends its records once, when it returns; a shard whose task fails for good
  makes each of its samples `error` (retried on resume), never a dropped sample;
- a killed driver leaves the records of the shards that returned; the same command resumes;
- what reaches the workers: the shard's job (benchmark options, its samples' tasks, agent
  spec, model flags: kilobytes) through Ray's object store as task arguments; the data directory (corpus
  Parquet, DuckDB, BM25/faiss indices, imported benchmark data) by its *path*, which must be
  readable at the same place on every node (a shared file system or the same copy on each):
  those files are memory-mapped and gigabytes large, and the object store would copy them into
  every node's shared memory for each reader. API keys are read from each worker's own
  environment (a local cluster inherits the driver's), never shipped in a task or runtime_env.

Without ADDRESS a private cluster is started on this machine for the command and bound to
127.0.0.1 only (Ray's single-machine mode: no address but loopback, no dashboard, usage
reporting off). With ADDRESS the driver joins that cluster (`ray start --head` on one node,
`ray start --address` on the others), whose nodes need scholarbench and the agent's code
installed. Per-task resources: `--ray-cpus` (default 1) and `--ray-gpus` (default 0; give 1
for an agent that serves a local model on the worker).
"""
from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from scholarbench.core.benchmark import load_samples
from scholarbench.core.lookup import benchmark_class, resolve_agent
from scholarbench.core.manifest import jsonable_options
from scholarbench.core.models import Models
from scholarbench.core.solving import solve_with_tools
from scholarbench.core.usage import add_into, usage_delta
from scholarbench.errors import ScholarbenchError
from scholarbench.llm.secrets import redact
from scholarbench.paths import data_dir
from scholarbench.core.concurrency import in_flight
from scholarbench.llm.roles import bind_roles

LOCAL = "local"


@dataclass(frozen=True)
class RayOptions:
    address: str = LOCAL          # "local": a private loopback cluster for this command
    cpus: float = 1.0             # per task
    gpus: float = 0.0
    shard_size: int | None = None  # samples per task (None: about 4 tasks per CPU)
    retries: int = 3              # re-runs of a task whose worker died

    def check(self) -> "RayOptions":
        if self.cpus < 0 or self.gpus < 0:
            raise ScholarbenchError("--ray-cpus and --ray-gpus must be >= 0")
        if self.shard_size is not None and self.shard_size < 1:
            raise ScholarbenchError("--ray-shard-size must be at least 1")
        if self.retries < 0:
            raise ScholarbenchError("--ray-retries must be >= 0")
        return self


@dataclass(frozen=True)
class ShardJob:
    """Everything a worker needs to rebuild one run's agent and samples; small and picklable."""
    benchmark: str
    options: dict[str, Any]
    subtask: str
    agent: str
    params: dict[str, Any]
    limit: int | None
    models: dict[str, Any] | None        # `Models.recipe`: model flags, re-bound on the worker
    max_samples: int
    cwd: str | None = None               # the driver's: relative paths in options resolve here
    samples: tuple[Any, ...] = ()        # the shard: `Sample`s as the driver prepared them

    def key(self) -> tuple:
        import json
        return (self.benchmark, json.dumps(self.options, sort_keys=True, default=str),
                self.subtask, self.agent, json.dumps(self.params, sort_keys=True, default=str),
                self.limit, json.dumps(self.models, sort_keys=True, default=str))


@dataclass
class ShardResult:
    solved: list[tuple[dict[str, Any], Any]]
    usage: dict[str, Any] | None


def connect(address: str = LOCAL) -> Any:
    """Start (LOCAL) or join (host:port) a Ray cluster for this process; returns `ray`."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address == LOCAL:
        # single-machine mode: Ray takes 127.0.0.1 as the node address and binds its servers
        # there; otherwise it advertises (and listens on) the machine's outward address
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    try:
        import ray
    except ImportError:
        raise ScholarbenchError("--ray needs Ray: pip install 'scholarbench[ray]'") from None
    if ray.is_initialized():
        return ray
    quiet = {"log_to_driver": False, "configure_logging": False}
    try:
        if address == LOCAL:
            ray.init(_node_ip_address="127.0.0.1", include_dashboard=False, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise ScholarbenchError(f"--ray {address}: cannot start or join the cluster "
                                f"({str(exc).splitlines()[0][:200]})") from None
    return ray


class RaySolver:
    """`engine.generate`'s `remote`: yields `(sample, (record, trajectory))` as shards return,
    and adds up the shards' model usage in `usage`."""

    def __init__(self, job: ShardJob, options: RayOptions, id_key: str) -> None:
        self.job, self.options, self.id_key = job, options, id_key
        self.usage: dict[str, Any] | None = None
        self.ray = connect(options.address)

    def shard_size(self, n: int) -> int:
        if self.options.shard_size:
            return self.options.shard_size
        cpus = max(1.0, float(self.ray.cluster_resources().get("CPU", 1)))
        slots = max(1, int(cpus / self.options.cpus) if self.options.cpus else int(cpus))
        return max(1, min(64, math.ceil(n / (4 * slots))))

    def solve(self, todo: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        ray = self.ray
        if not todo:
            return
        task = ray.remote(solve_shard).options(
            num_cpus=self.options.cpus, num_gpus=self.options.gpus,
            max_retries=self.options.retries, retry_exceptions=False)
        size = self.shard_size(len(todo))
        by_id = {s.id: s for s in todo}
        running: dict[Any, list[Any]] = {}
        for start in range(0, len(todo), size):
            shard = list(todo[start:start + size])
            running[task.remote(replace(self.job, samples=tuple(shard)))] = shard
        try:
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    shard = running.pop(ref)
                    try:
                        result: ShardResult = ray.get(ref)
                    except Exception as exc:      # the task failed for good (see docstring)
                        reason = _reason(exc)
                        for sample in shard:
                            yield sample, ({self.id_key: sample.id, "status": "error",
                                            "error": f"ray: {reason}"}, None)
                        continue
                    if result.usage is not None:
                        self.usage = add_into(self.usage or {}, result.usage)
                    for record, calls in result.solved:
                        yield by_id[str(record[self.id_key])], (record, calls)
        finally:
            for ref in running:
                ray.cancel(ref, force=True)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    last = next((line for line in reversed(text) if line.strip()), type(exc).__name__)
    return redact(f"{type(exc).__name__}: {last.strip()}")[:500]


def ray_solver(bench: Any, subtask: str, agent_spec: str, params: dict[str, Any] | None,
                limit: int | None, models: Any, agent: Any, at_once: int, options: Any
                ) -> Any:
    """The `RaySolver` of one run: its job as the workers rebuild it (module docstring)."""
    recipe = getattr(models, "recipe", None)
    if recipe is None and agent.needs.llm:
        raise ScholarbenchError("--ray rebuilds the agent's chat model on each worker from the "
                                "model flags; this run was given a bound client instead")
    job = ShardJob(benchmark=bench.name, subtask=subtask, agent=agent_spec,
                   options={**jsonable_options(bench.options),
                            "data": str(data_dir(bench.options.get("data")).resolve())},
                   params=dict(params or {}), limit=limit, models=recipe, max_samples=at_once,
                   cwd=str(Path.cwd()))
    return RaySolver(job, options.check(), bench.id_key)


# -- the worker side -----------------------------------------------------------------------

_WORKER: dict[tuple, Any] = {}


def _worker_state(job: ShardJob) -> Any:
    """The benchmark (loaded: its corpus, graph, settings), agent and context of `job`'s run,
    built once per process."""
    key = job.key()
    if job.cwd and Path(job.cwd).is_dir():
        os.chdir(job.cwd)
    if key not in _WORKER:
        models = Models()
        if job.models is not None:
            recipe = dict(job.models)
            models = Models(lambda need_agent, need_judge: bind_roles(
                **recipe, need_agent=need_agent, need_judge=need_judge))
        bench = benchmark_class(job.benchmark)(dict(job.options))
        agent = resolve_agent(bench, job.agent, dict(job.params), job.subtask)
        load_samples(bench, job.subtask, job.limit, models)
        ctx = bench.context(agent, job.subtask, models)
        if agent.needs.tools:
            # deferred: pulls in duckdb, pyarrow
            from scholarbench.tools.provider import ToolProvider
            ctx.tools = ToolProvider(bench, job.subtask, ctx.embedder)
        _WORKER[key] = (bench, agent, ctx, Path(tempfile.mkdtemp(prefix="scholarbench-ray-")))
    return _WORKER[key]


def solve_shard(job: ShardJob) -> ShardResult:
    """Solve one shard on this worker (runs as a Ray task; writes nothing)."""
    bench, agent, ctx, scratch = _worker_state(job)
    before = ctx.llm.usage.as_dict() if ctx.llm is not None else None
    exclusive = job.max_samples <= 1
    solved = [result for _, result in in_flight(
        job.samples, lambda s: solve_with_tools(bench, agent, s, ctx, scratch, exclusive),
        job.max_samples)]
    usage = usage_delta(ctx.llm.usage.as_dict(), before) if ctx.llm is not None else None
    return ShardResult(solved, usage)
