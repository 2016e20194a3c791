"""`scholarbench data import scinet PATH`: SciNet task files (what `build --benchmarks scinet`
writes as `DIR/scinet/tasks.jsonl`, or any file `run scinet --tasks` reads) validated with the
run's own reader (`records.read_tasks`: file, line and field of the first problem) and copied
to `<data>/scinet/`; `run scinet --tasks NAME` then reads an imported file by its name or stem
(`tasks`) when NAME is not a path (`data.task_files`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.scinet.records import read_tasks
from scholarbench.data.task_files import import_task_files

FOLDER = "scinet"


def import_tasks(source: Path, target: Path) -> dict[str, Any]:
    return import_task_files(source, target, read_tasks, "tasks")
