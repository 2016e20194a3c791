"""Where a ReportBench run's data comes from, and how the manifest names it.

- tasks: `--tasks` (a ReportBench folder holding `ReportBench_v1.1.jsonl` and, optionally,
  `prompt_template_eval.txt`, or the task file itself), else `<data>/reportbench` as `data
  import reportbench` writes it;
- ground truth: `--gt-dir`, else the GT folder beside the tasks (`*_GT/` or `gt/`); every
  selected task must have a GT file (else an error naming them, before any run directory);
- corpus: `--corpus`, else — unless the agent is a replay and nothing is judged — the default
  corpus `<data>/corpus/default` (built from the imported data when absent, as before).

The manifest's `data` (compared on resume) holds the task file's and GT's checksums, the
corpus (path, checksum) and, for constructed granularities, the prompt model; `manifest.corpus`
repeats the corpus for the report.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.benchmarks.reportbench.tasks import TASKS_FILE, load_tasks, read_template
from scholarbench.benchmarks.reportbench.ground_truth import gt_files


def _gt_checksum(files: dict[str, Path]) -> str:
    digest = hashlib.sha256()
    for survey, path in sorted(files.items()):
        digest.update(f"{survey}:{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def _folder(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def load_run_tasks(tasks_path: Path, gt_dir: str | Path | None, limit: int | None
                   ) -> tuple[list[Any], dict[str, Any], str]:
    """(the selected tasks, the manifest's `data`, the template) — raising before any run
    directory exists when something is missing."""
    if not tasks_path.exists():
        raise ScholarbenchError(f"no ReportBench tasks at {tasks_path}: scholarbench data "
                                "import reportbench PATH, or pass --tasks")
    tasks_all = load_tasks(tasks_path)
    gt = Path(gt_dir) if gt_dir else _folder(tasks_path)
    files = gt_files(gt)
    tasks = tasks_all[:limit] if limit is not None else tasks_all
    no_gt = [t.arxiv_id for t in tasks if t.arxiv_id not in files]
    if no_gt:
        raise ScholarbenchError(f"{len(no_gt)} task(s) have no ground-truth file in {gt}: "
                                f"{', '.join(no_gt[:5])}")
    file = tasks_path / TASKS_FILE if tasks_path.is_dir() else tasks_path
    data = {"path": str(tasks_path.resolve()), "tasks_sha256": sha256_file(file),
            "n_tasks": len(tasks_all), "gt_dir": str(gt.resolve()),
            "gt_sha256": _gt_checksum(files)}
    return tasks, data, read_template(_folder(tasks_path))


def load_recorded_tasks(manifest: dict[str, Any]) -> tuple[list[Any], dict[str, Any], str]:
    """The tasks of a finished run, from the paths its manifest records."""
    data = recorded_data(manifest)
    if not data.get("path"):
        raise ScholarbenchError("the run's manifest names no ReportBench task file (data.path)")
    path = Path(data["path"])
    tasks = load_tasks(path)
    limit = manifest.get("limit")
    if limit is not None:
        tasks = tasks[:limit]
    return tasks, data, read_template(_folder(path))


def recorded_data(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest's `data` (task file, ground truth, corpus), the corpus taken from
    `manifest.corpus` for runs made before the engine."""
    data = dict(manifest.get("data") or {})
    if not data.get("corpus") and isinstance(manifest.get("corpus"), dict):
        data["corpus"] = manifest["corpus"]
    return data


