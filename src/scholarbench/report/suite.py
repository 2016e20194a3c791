"""`report` on an eval suite directory (one holding eval.json): its runs, and a suite overview.

The overview is one `Table`, one row per sub-task that `eval` planned: its status, the sample
counts of every status column (`core.status.run_counts`, the same counts as eval.json, the eval
table and summary.json), our headline means and, beside them, the range of the paper's
published rows for the same measures (the cells of the benchmark's own leaderboard). Each
sub-task's top reasons (or why it was skipped or failed) are the table's notes, one line each.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.engine import benchmark_class
from scholarbench.core.status import COLUMNS, LABELS, run_counts
from scholarbench.errors import ScholarbenchError
from scholarbench.report.sections.base import section_for
from scholarbench.report.tables import NULL, Row, Table, TableGroup

EVAL_JSON = "eval.json"


@dataclass
class Suite:
    path: Path
    agent: str
    entries: list[dict[str, Any]]
    run_dirs: dict[int, Path] = field(default_factory=dict)   # entry index → its run dir


def is_suite(path: Path) -> bool:
    return (path / EVAL_JSON).is_file() and not (path / "manifest.json").exists()


def read_suite(path: Path) -> Suite:
    """eval.json's entries, each run directory found beside eval.json (by its folder name, so a
    suite moved or reported from another working directory still finds its runs)."""
    file = path / EVAL_JSON
    try:
        obj = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScholarbenchError(f"{file}: not a readable eval.json ({exc})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("runs"), list):
        raise ScholarbenchError(f"{file}: expected an object with a list \"runs\"")
    entries = [r for r in obj["runs"] if isinstance(r, dict)]
    suite = Suite(path, str(obj.get("agent") or ""), entries)
    for i, entry in enumerate(entries):
        name = Path(str(entry.get("run_dir") or "")).name or \
            f"{entry.get('benchmark')}-{entry.get('subtask')}"
        run_dir = path / name
        if (run_dir / "manifest.json").exists() and (run_dir / "summary.json").exists():
            suite.run_dirs[i] = run_dir
    return suite


def expand(paths: Sequence[Path]) -> tuple[list[Path], list[Suite]]:
    """Run directories to report (a suite's in eval order) and the suites among `paths`."""
    run_dirs: list[Path] = []
    suites: list[Suite] = []
    for path in paths:
        if is_suite(path):
            suite = read_suite(path)
            suites.append(suite)
            run_dirs.extend(suite.run_dirs[i] for i in sorted(suite.run_dirs))
        else:
            run_dirs.append(path)
    return run_dirs, suites


HEADER = ("sub-task", "status", "n", *(LABELS.get(c, c) for c in COLUMNS),
          "headline (ours)", "published (paper's rows: lowest–highest)")


def overview_group(suite: Suite, runs: Sequence[Any]) -> TableGroup:
    """The suite overview (module docstring) as a table group every format renders."""
    by_dir = {Path(r.run_dir).resolve(): r for r in runs}
    rows, notes = [], []
    for i, entry in enumerate(suite.entries):
        name = f"{entry.get('benchmark', '?')} {entry.get('subtask', '?')}"
        status = str(entry.get("status") or "?")
        run_dir = suite.run_dirs.get(i)
        if run_dir is None:
            rows.append(Row("ours", (name, status, str(entry.get("samples", NULL)),
                                     *[NULL] * len(COLUMNS), NULL, NULL)))
            if entry.get("reason"):
                notes.append(f"{name}: {status}: {entry['reason']}")
            continue
        counts = run_counts(run_dir, entry.get("benchmark"))
        cells = [NULL if counts.get(c) is None else str(counts.get(c)) for c in COLUMNS]
        ours, paper = _headline(entry, by_dir.get(run_dir.resolve()))
        rows.append(Row("ours", (name, status, str(counts.n_samples), *cells, ours, paper),
                        source=str(run_dir)))
        why = entry.get("reason") if status == "skipped" else counts.top_reasons()
        if why:
            notes.append(f"{name}: {why}")
    title = f"Suite overview — {suite.agent or 'agent'} ({suite.path})"
    table = Table(title, HEADER, tuple(rows), tuple(notes))
    return TableGroup("Suite overview", (table,), benchmark="suite", mode="")


def _headline(entry: dict[str, Any], run: Any) -> tuple[str, str]:
    """Our headline cells and the published range, from the benchmark's own leaderboard."""
    if run is None:
        return NULL, NULL
    try:        # an instance: SciNet's and DeepSynth's headline depends on the run's variant
        bench = benchmark_class(run.benchmark)(run.manifest.get("options") or {})
        keys = tuple(bench.headline.get(run.mode, ()))
    except ScholarbenchError:
        keys = ()
    ours: dict[str, str] = {}
    published: dict[str, list[tuple[float, str]]] = {}
    for group in section_for(run.benchmark).groups([run], True):
        for table in group.tables:
            for k, key in enumerate(table.keys):
                if keys and key not in keys:
                    continue
                for row in table.rows:
                    if row.kind == "separator" or k + 2 >= len(row.cells):
                        continue
                    if row.kind == "ours":
                        ours.setdefault(key, row.cells[k + 2])
                    elif k < len(row.values) and row.values[k] is not None:
                        published.setdefault(key, []).append((row.values[k], row.cells[k + 2]))
    order = [k for k in keys if k in ours] or list(ours)[:3]
    ours_text = "; ".join(f"{k} {ours[k]}" for k in order) or NULL
    paper = []
    for k in order:
        values = sorted(published.get(k, []))
        if values:
            low, high = values[0][1], values[-1][1]
            paper.append(f"{k} {low}" if low == high else f"{k} {low}–{high}")
    return ours_text, "; ".join(paper) or NULL


__all__ = ["Suite", "expand", "is_suite", "overview_group", "read_suite"]
