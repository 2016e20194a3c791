"""What each sample's agent was asked, and its gold, for an export — read from the run
directory and the data files its manifest names, never from a data directory, corpus or graph.

- ResearchArena: the run's tasks.jsonl; the prompt is rebuilt with the benchmark's own
  `task_fields` / `task_prompt` (the survey is named by its topic: the run's corpus, where the
  agent's prompt took the survey's title from, is not opened); the gold is the task's qrels
  (`searchable` or `all`, as the run's data says), or the mind-map for `organisation`.
- SciNet: the run's tasks.jsonl; the prompt is the task's query (a review task's prompt is
  rebuilt by `review_tasks.task_prompt`); the gold is the task's ground truth (a review task's
  reference path).
- Every other benchmark (TaxoBench, DeepSynth-Eval, ReportBench, plug-ins):
  `Benchmark.load_for_rescore`, the samples a re-score reads (the task file or gold file the
  manifest names, or the run's saved task set); the prompt is the sample's `Task.prompt`, the
  gold its `Sample.gold` (DeepSynth-Eval: the checklist; TaxoBench: the expert taxonomy;
  ReportBench keeps no gold on its samples, so none).

When the inputs cannot be read (the task file has moved), `task_inputs` says why and the
export carries no input or target rather than failing.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable

from pydantic import BaseModel

from scholarbench.errors import ScholarbenchError
from scholarbench.records import TaxoNode


@dataclass
class TaskInput:
    """One sample's prompt as the agent saw it, and its gold (any JSON-able value; None: no
    gold to show)."""
    prompt: str
    gold: Any = None


def task_inputs(files: Any) -> tuple[dict[str, TaskInput], str | None]:
    """(sample id -> its input, None) for a `run_files.RunFiles`, or ({}, why not)."""
    reader = READERS.get(files.bench.name, _rescored)
    try:
        return reader(files), None
    except ScholarbenchError as exc:       # the task file has moved, …: the log says so
        return {}, str(exc)
    except (OSError, ValueError, KeyError) as exc:
        return {}, f"{type(exc).__name__}: {exc}"


def _rescored(files: Any) -> dict[str, TaskInput]:
    loaded = files.bench.load_for_rescore(files.run, files.manifest)
    view = GOLD_VIEWS.get(files.bench.name, lambda gold, subtask: gold)
    return {str(s.id): TaskInput(s.task.prompt or "", view(s.gold, files.subtask))
            for s in loaded.samples}


def _arena(files: Any) -> dict[str, TaskInput]:
    # deferred: this benchmark's own modules, only for its runs
    from scholarbench.benchmarks.researcharena.prompting import task_fields, task_prompt
    from scholarbench.benchmarks.researcharena.records import read_tasks
    from scholarbench.benchmarks.researcharena.scoring import TASKS_FILE
    subtask = files.subtask or "discovery"
    variant = (files.manifest.get("data") or {}).get("qrels") or "searchable"
    out = {}
    for task in read_tasks(files.run.file(TASKS_FILE)):
        gold = (task.mindmap.to_upstream() if task.mindmap is not None else None) \
            if subtask == "organisation" else task.qrels(variant)
        out[str(task.id)] = TaskInput(task_prompt(subtask, task_fields(task, subtask)), gold)
    return out


def _scinet(files: Any) -> dict[str, TaskInput]:
    # deferred: this benchmark's own modules, only for its runs
    from scholarbench.benchmarks.scinet.benchmark import TASKS
    if files.subtask == "review":
        # deferred: this benchmark's own modules, only for its runs
        from scholarbench.benchmarks.scinet.review_tasks import read_review_tasks, task_prompt
        return {t.task_id: TaskInput(task_prompt(t), t.reference_path)
                for t in read_review_tasks(files.run.file(TASKS))}
    # deferred: this benchmark's own modules, only for its runs
    from scholarbench.benchmarks.scinet.records import read_tasks
    return {t.task_id: TaskInput(t.query, t.gold) for t in read_tasks(files.run.file(TASKS))}


READERS: dict[str, Callable[[Any], dict[str, TaskInput]]] = {
    "researcharena": _arena, "scinet": _scinet}

GOLD_VIEWS: dict[str, Callable[[Any, str | None], Any]] = {
    "deepsynth": lambda gold, subtask: getattr(gold, "checklist", gold)}


def plain(value: Any) -> Any:
    """`value` as JSON-able data: pydantic models, dataclasses and taxonomies by their
    fields, dates as ISO text, anything else unknown as its text."""
    if isinstance(value, TaxoNode):
        return value.to_upstream()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [plain(v) for v in items]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def gold_text(gold: Any) -> str:
    """The gold as the text of a target: a string as it is, anything else as JSON."""
    if gold is None:
        return ""
    if isinstance(gold, str):
        return gold
    return json.dumps(plain(gold), ensure_ascii=False, indent=1)


__all__ = ["TaskInput", "gold_text", "plain", "task_inputs"]
