"""`scholarbench data import researcharena PATH`: upstream-format `survey.jsonl` files (what
`build --benchmarks researcharena` writes as `DIR/researcharena/survey.jsonl`) validated with
the run's own reader (`records.read_survey_jsonl`: file, line and field of the first problem)
and copied to `<data>/researcharena/`; `run researcharena --tasks-from NAME` then reads an
imported file by its name or stem (`survey`) when NAME is not a path (`data.task_files`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.researcharena.records import read_survey_jsonl
from scholarbench.data.task_files import import_task_files

FOLDER = "researcharena"


def import_surveys(source: Path, target: Path) -> dict[str, Any]:
    return import_task_files(source, target, read_survey_jsonl, "surveys")
