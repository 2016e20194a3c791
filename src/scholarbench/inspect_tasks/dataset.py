"""One sub-task's samples as an Inspect data set, loaded as `scholarbench run` loads them.

`load_task_data` does what the engine does before its first sample (`core.engine.
run_benchmark`): the benchmark built with its options at their defaults plus the given ones
(`core.suite.default_options`), `check`, `load`, the agent's `context` (here the agent is the
Inspect solver's reply, `reply.ReplyAgent`, so no model is bound), and a scratch run directory
holding the manifest a run would write (`prepare_run` included), which the scorer scores in.

`inspect_samples` gives each sample the messages the endpoint agent sends
(`core.endpoint.EndpointAgent.messages`: the form hint as the system message, with the tools'
guide when they are offered, then the task's own prompt), its id as `Sample.id` and in
`metadata.scholarbench`, and its gold as `target` when small (`export.task_inputs.gold_text`).
A sample the benchmark cannot score on this data (`unscorable`: the engine does not run the
agent on it) is left out and counted in `TaskData.unscorable`.
"""
from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample as InspectSample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from scholarbench.core.benchmark import Benchmark, Loaded, Sample, load_samples
from scholarbench.core.endpoint import HINTS, EndpointAgent
from scholarbench.core.lookup import benchmark_class
from scholarbench.core.manifest import jsonable_options, package_versions
from scholarbench.core.models import Models
from scholarbench.core.records import Manifest
from scholarbench.core.rundir import RunDir
from scholarbench.core.suite import default_options
from scholarbench.errors import ScholarbenchError
from scholarbench.export.inspect_log import TARGET_CHARS
from scholarbench.export.task_inputs import GOLD_VIEWS, gold_text
from scholarbench.inspect_tasks.reply import ReplyAgent
from scholarbench.core.limits import OutputLimits

AGENT = "inspect"        # the manifest's agent: the Inspect solver's replies


@dataclass
class TaskData:
    """A loaded sub-task: the benchmark (with its context bound), its scorable samples by id
    in order, and the scratch run directory the scorer scores in (one sample at a time,
    under `lock`)."""
    bench: Benchmark
    subtask: str
    family: str
    samples: dict[str, Sample]
    manifest: dict[str, Any]
    run: RunDir
    unscorable: dict[str, str] = field(default_factory=dict)    # sample id -> why
    lock: threading.Lock = field(default_factory=threading.Lock)
    tools: Any = None            # a `tools.provider.ToolProvider` when the task offers tools


def load_task_data(benchmark: str, subtask: str, options: dict[str, Any] | None = None,
                   limit: int | None = None) -> TaskData:
    """`benchmark`'s `subtask` loaded for Inspect (module docstring); a bad option, a sub-task
    that does not exist, missing data or a measure that needs a judge is a
    `ScholarbenchError` saying so in one line."""
    cls = benchmark_class(benchmark)
    if subtask not in cls.subtasks:
        raise ScholarbenchError(f"{benchmark} has no sub-task {subtask!r}; use one of "
                                f"{', '.join(cls.subtasks)}")
    if limit is not None and limit < 0:
        raise ScholarbenchError("limit must be >= 0")
    bench = cls(default_options(cls, dict(options or {})))
    if bench.asks_judge(subtask):
        raise ScholarbenchError(
            f"{benchmark} {subtask}: the options ask an LLM judge, which the Inspect scorer "
            "does not run; run it with `scholarbench run --agent endpoint --judge …` "
            "(docs/inspect.md)")
    bench.check(subtask)
    models = Models()        # none bound: the solver is the agent and no judge is asked
    loaded = load_samples(bench, subtask, limit, models)
    bench.context(ReplyAgent(""), subtask, models)
    manifest = run_manifest(bench, subtask, loaded, limit)
    run = scratch_run()
    run.write_manifest(manifest)
    bench.prepare_run(run, loaded, manifest, progress=False)
    samples = {s.id: s for s in loaded.samples if s.unscorable is None}
    return TaskData(bench, subtask, cls.subtasks[subtask], samples, run.read_manifest(), run,
                    {s.id: s.unscorable for s in loaded.samples if s.unscorable is not None})


def run_manifest(bench: Benchmark, subtask: str, loaded: Loaded, limit: int | None
                 ) -> dict[str, Any]:
    """The manifest `scholarbench run` writes for these samples (what scoring reads of it:
    the sub-task, options, data and the benchmark's own keys)."""
    manifest = Manifest(
        benchmark=bench.name, mode=subtask, agent=AGENT, agent_config={}, run_name=AGENT,
        limit=limit, n_samples=len(loaded.samples), versions=package_versions(),
        data=loaded.data, options=jsonable_options(bench.options)).model_dump(mode="json")
    manifest["output_limits"] = OutputLimits.of(bench.options).model_dump()
    manifest.update(loaded.manifest)
    return manifest


def scratch_run() -> RunDir:
    """A temporary run directory, removed when the process ends."""
    path = Path(tempfile.mkdtemp(prefix="scholarbench-inspect-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return RunDir(path)


def inspect_samples(data: TaskData, tools: bool = False) -> MemoryDataset:
    """The data set of `data`'s samples (module docstring)."""
    if data.family not in HINTS:
        raise ScholarbenchError(f"{data.bench.name} {data.subtask}: no prompt form for the "
                                f"{data.family!r} family")
    asker = EndpointAgent(tools=tools)
    view = GOLD_VIEWS.get(data.bench.name, lambda gold, subtask: gold)
    out = []
    for sample in data.samples.values():
        messages: list[Any] = []
        for m in asker.messages(sample.task):
            messages.append(ChatMessageSystem(content=m["content"]) if m["role"] == "system"
                            else ChatMessageUser(content=m["content"]))
        target, note = _target(view(sample.gold, data.subtask))
        meta = {"id": sample.id, "benchmark": data.bench.name, "subtask": data.subtask,
                "family": data.family}
        if note:
            meta["target_note"] = note
        out.append(InspectSample(input=messages, target=target, id=sample.id,
                                 metadata={"scholarbench": meta}))
    return MemoryDataset(out, name=f"{data.bench.name}/{data.subtask}")


def _target(gold: Any) -> tuple[str, str | None]:
    """The gold as a target's text (the export's form), or "" with why when it is too big."""
    try:
        text = gold_text(gold)
    except RecursionError:
        return "", "gold not included: nested too deep"
    if len(text) > TARGET_CHARS:
        return "", (f"gold not included: {len(text):,} characters, over the "
                    f"{TARGET_CHARS:,}-character cap")
    return text, None


__all__ = ["AGENT", "TaskData", "inspect_samples", "load_task_data", "run_manifest",
           "scratch_run"]
