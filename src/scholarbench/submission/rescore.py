"""Re-scoring a submitted run with the verifier's code: the engine's own `score` path
(`core.engine.score_run`) on a copy of the run in a temporary folder, against the verifier's
data, its judges replaying the submitted judge records (`submission.replay`) — or, for
`--rejudge`, asking the verifier's judge. The copy's rows are then compared with the submitted
ones sample by sample: the measures no judge scores, the judge-scored ones, and the flags of
the leakage audit and the injection check (both re-run by that scoring)."""
from __future__ import annotations

import contextlib
import io
import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.benchmark import Benchmark
from scholarbench.core.engine import SCORES, SUMMARY, score_run
from scholarbench.core.lookup import benchmark_class
from scholarbench.core.models import Models
from scholarbench.core.rundir import read_stage
from scholarbench.errors import ScholarbenchError
from scholarbench.submission.data_check import TaskSet
from scholarbench.submission.replay import NO_RECORD, replay_models

FLAGS = {"suspected_leak": "leakage audit", "suspected_injection": "injection check"}
TOLERANCE = 1e-9


@dataclass
class Rescored:
    """One re-scoring of a copy: its rows by id and its summary (None, `error` saying why,
    when it could not run), and the requests whose judge record was not on file."""
    rows: dict[str, dict[str, Any]]
    summary: dict[str, Any] | None
    error: str | None = None
    missing_verdicts: tuple[str, ...] = ()


def bench_of(manifest: dict[str, Any], data: str | None) -> Benchmark:
    return benchmark_class(str(manifest.get("benchmark")))(
        {**(manifest.get("options") or {}), "data": data})


def measure_keys(bench: Benchmark, mode: str) -> tuple[list[str], list[str]]:
    """(judge-free, judge-scored) measure keys of `mode` (a measure is judge-scored when it
    says so or the benchmark lists it in `judge_scored`)."""
    judged = set(getattr(bench, "judge_scored", ()) or ())
    free, scored = [], []
    for m in bench.measures(mode):
        (scored if m.judge or m.key in judged else free).append(m.key)
    return free, scored


def copy_run(run_dir: Path, dest: Path, task_set: TaskSet, data: str | None,
             drop: Sequence[str] = ()) -> Path:
    """`run_dir` copied to `dest`, its manifest pointing at the verifier's data and corpus,
    the files `drop` left out."""
    shutil.copytree(run_dir, dest, ignore=shutil.ignore_patterns(*drop) if drop else None)
    path = dest / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["options"] = {**(manifest.get("options") or {}), "data": data}
    if task_set.loaded is not None:
        manifest["data"] = task_set.loaded.data
    if task_set.corpus is not None:
        manifest["corpus"] = task_set.corpus
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return dest


def rescore(copy: Path, models: Models, id_key: str) -> Rescored:
    """Score `copy` through the engine (its output kept off the terminal)."""
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            score_run(copy, models=models, progress=False)
    except ScholarbenchError as exc:
        return Rescored({}, None, str(exc))
    rows = {str(r.get(id_key)): r for r in _jsonl(copy / SCORES)}
    summary = json.loads((copy / SUMMARY).read_text(encoding="utf-8"))
    return Rescored(rows, summary, missing_verdicts=_missing(copy, id_key))


def replayed(copy: Path, manifest: dict[str, Any], bench: Benchmark) -> Rescored:
    """The copy re-scored with judges replaying the records on file."""
    items = [i.name for i in bench.judged_items(str(manifest.get("mode")))]
    models, _ = replay_models(manifest, items)
    return rescore(copy, models, bench.id_key)


def _missing(copy: Path, id_key: str) -> tuple[str, ...]:
    out = []
    for file in sorted(copy.glob("judge.*.jsonl")):
        for rec in read_stage(file, "key").records.values():
            if NO_RECORD in str(rec.get("reason") or ""):
                out.append(f"sample {rec.get(id_key)}: no {file.name[6:-6]} verdict on file "
                           f"for judge {rec.get('judge')}, repeat {rec.get('repeat')}")
    return tuple(out)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def submitted_rows(run_dir: Path, id_key: str) -> dict[str, dict[str, Any]]:
    return {str(r.get(id_key)): r for r in _jsonl(run_dir / SCORES)}


def same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
            and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    return a == b


def row_differences(submitted: dict[str, dict[str, Any]], ours: dict[str, dict[str, Any]],
                    keys: Sequence[str]) -> list[str]:
    """Sample by sample, each of `keys` whose submitted value is not the re-scored one."""
    out = []
    for sid in sorted(set(submitted) | set(ours)):
        if sid not in ours:
            out.append(f"sample {sid}: in the submitted scores, not re-scored")
            continue
        if sid not in submitted:
            out.append(f"sample {sid}: re-scored, absent from the submitted scores")
            continue
        for key in keys:
            a, b = submitted[sid].get(key), ours[sid].get(key)
            if not same(a, b):
                out.append(f"sample {sid}: {key} {_show(a)} submitted, {_show(b)} re-scored")
    return out


def flagged(rows: dict[str, dict[str, Any]], key: str) -> set[str]:
    return {sid for sid, r in rows.items() if r.get(key)}


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "—" if value is None else json.dumps(value, ensure_ascii=False)[:80]


__all__ = ["FLAGS", "Rescored", "bench_of", "copy_run", "flagged", "measure_keys",
           "replayed", "rescore", "row_differences", "same", "submitted_rows"]
