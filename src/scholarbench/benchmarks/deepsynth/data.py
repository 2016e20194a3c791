"""DeepSynth-Eval task files in the data directory: `scholarbench data import deepsynth PATH`
validates and copies them to ``<data>/deepsynth/``; a run without ``--tasks`` reads them.

PATH is a task file, or a folder holding task files (``*.jsonl`` / ``*.jsonl.gz``, e.g. the
shared ``data/deepsynth/`` with upstream's ``example_gen_result.jsonl``, or upstream's ``data/``
with ``DeepSynth-Eval_tasks.jsonl``); the folder's licence and provenance files travel with
them. Every file is read with `loader.load_tasks` first (a DataError names the file, line and
field), so nothing is copied from a folder with a bad file.

The default task file is upstream's full benchmark, ``DeepSynth-Eval_tasks.jsonl``, when it was
imported; otherwise the only imported task file; several others: an error asking for
``--tasks``.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.benchmarks.deepsynth.loader import load_tasks

FOLDER = "deepsynth"
TASKS_FILE = "DeepSynth-Eval_tasks.jsonl"
_SIDE_FILES = ("LICENSE*", "PROVENANCE*", "README*")


def task_files(folder: Path) -> list[Path]:
    return sorted(p for pattern in ("*.jsonl", "*.jsonl.gz") for p in folder.glob(pattern))


def default_tasks_file(data: Path) -> Path:
    """The task file a run uses without ``--tasks`` (module docstring)."""
    folder = data / FOLDER
    files = task_files(folder) if folder.is_dir() else []
    full = [f for f in files if f.name in (TASKS_FILE, TASKS_FILE + ".gz")]
    if full:
        return full[0]
    if len(files) == 1:
        return files[0]
    if files:
        raise ScholarbenchError(f"several DeepSynth-Eval task files in {folder} ("
                                f"{', '.join(f.name for f in files)}); choose one with --tasks")
    raise ScholarbenchError(f"no DeepSynth-Eval tasks in {folder}: pass --tasks FILE (upstream "
                            "task JSON lines), or import them once with `scholarbench data "
                            "import deepsynth PATH` (e.g. the shared data/deepsynth folder)")


def import_tasks(source: Path, target: Path) -> dict[str, Any]:
    """Validate and copy task files (module docstring); {file name: {tasks, sha256}}."""
    files = [source] if source.is_file() else task_files(source)
    if not files:
        raise ScholarbenchError(f"{source}: no DeepSynth-Eval task file (*.jsonl) found")
    counts = {f.name: {"tasks": len(load_tasks(f)), "sha256": sha256_file(f)} for f in files}
    target.mkdir(parents=True, exist_ok=True)
    for path in files:
        if path.resolve() != (target / path.name).resolve():
            shutil.copyfile(path, target / path.name)
    if source.is_dir():
        for pattern in _SIDE_FILES:
            for path in source.glob(pattern):
                if path.is_file() and path.resolve() != (target / path.name).resolve():
                    shutil.copyfile(path, target / path.name)
    return counts


__all__ = ["FOLDER", "TASKS_FILE", "default_tasks_file", "import_tasks", "task_files"]
