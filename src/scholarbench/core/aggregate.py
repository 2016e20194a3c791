"""`scholarbench aggregate RUN_DIR`: summary.json rebuilt from scores.jsonl alone.

Reads the run's manifest (what the run was) and its score rows — each validated
(`core.score_rows`; a bad line is one error naming the file, line and field) — and
calls `core.summarise.summarise`, the same function `run` and `score` end with. No agent,
judge, data directory or corpus is opened. `--check` compares the rebuilt summary with the
run's own and exits 1 naming the keys that differ (nothing is written); without it the
summary is written under the run's lock.

`aggregate SUITE_DIR` (an `eval --out` folder: eval.json, no manifest) does this for every run
eval.json lists, then rebuilds eval.json from the run directories (`core.suite.run_entry`, as
`eval` wrote it); with `--check` it compares both and writes nothing.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from filelock import FileLock

from scholarbench.core.columns import collector_paused
from scholarbench.core.engine import SCORES, SUMMARY, benchmark_class
from scholarbench.core.migrate import check_format, upgrade_rows
from scholarbench.core.records import RUN_FORMAT
from scholarbench.core.rundir import RunDir, atomic_write_json, read_json_file
from scholarbench.core.score_rows import measure_units, read_score_rows
from scholarbench.core.suite import EVAL_LOCK, run_entry
from scholarbench.core.summarise import summarise
from scholarbench.errors import ScholarbenchError

EVAL_JSON = "eval.json"


def read_scores(path: Path, id_key: str, units: dict[str, str] | None = None
                ) -> list[dict[str, Any]]:
    """The rows of a scores.jsonl, each checked (`core.score_rows`: the typed `ScoreRecord`,
    the id, the measures of `units`, no id twice)."""
    if not path.exists():
        raise ScholarbenchError(f"{path}: no scores (score the run first: scholarbench score "
                                f"{path.parent})")
    return read_score_rows(path, id_key, units or {})


def rebuild(run_dir: Path) -> tuple[dict[str, Any], Any]:
    """(the rebuilt summary, the benchmark) of a finished run directory."""
    run = RunDir(run_dir)
    manifest = run.read_manifest()
    bench = benchmark_class(str(manifest.get("benchmark")))(manifest.get("options") or {})
    with collector_paused():          # the rows hold no cycle: no full collection over them
        rows = read_scores(run.file(SCORES), bench.id_key,
                           measure_units(bench, manifest.get("mode")))
        if check_format(manifest, run.manifest_path) != RUN_FORMAT:
            generated = run.stage(bench.generate_file, bench.id_key).records
            rows = upgrade_rows(rows, manifest, generated, bench.id_key)
        return summarise(bench, rows, manifest, warn=False), bench


def differences(a: Any, b: Any, path: str = "", *, older: bool = False) -> list[str]:
    """Keys (dotted) where two JSON values differ. `older`: `b` is the summary of an older run
    format, so keys only `a` has (what later formats add: `ci95`, `summary_version`, ...) are
    not differences. Nor is a key `b` lacks or holds as null where `a`'s value is undefined
    (`undefined`): a measure declared after `b` was written, which its rows lack."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in b and older or key in a and undefined(a[key]) and b.get(key) is None:
                continue
            if key not in a or key not in b:
                out.append(where)
            else:
                out += differences(a[key], b[key], where, older=older)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b))
                for d in differences(x, y, f"{path}.{i}" if path else str(i))]
    return [] if a == b else [path or "(whole)"]


def undefined(value: Any) -> bool:
    """Whether a summary value says nothing: null, or a measure's entry with no defined value
    (`{"mean": null, "n": 0, ...}`, its other values null)."""
    if isinstance(value, dict):
        return value.get("n") == 0 and all(v is None for k, v in value.items()
                                           if k not in ("n", "n_null", "n_unscored"))
    return value is None


def cmd_aggregate(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir)
    if (run_dir / EVAL_JSON).is_file() and not (run_dir / "manifest.json").exists():
        return aggregate_suite(run_dir, args.check)
    return aggregate_run(run_dir, args.check)


def summary_differences(run_dir: Path) -> list[str]:
    """The keys (dotted) where the summary rebuilt from scores.jsonl differs from the run's
    own summary.json (`aggregate --check`; `verify` asks the same)."""
    summary, _ = rebuild(run_dir)
    own_path = run_dir / SUMMARY
    own = read_json_file(own_path) if own_path.exists() else {}
    older = check_format(RunDir(run_dir).read_manifest(), run_dir / "manifest.json") \
        != RUN_FORMAT
    return differences(json.loads(json.dumps(summary)), own, older=older)


def aggregate_run(run_dir: Path, check: bool) -> int:
    if check:
        diff = summary_differences(run_dir)
        if diff:
            print(f"{run_dir}: the summary rebuilt from scores.jsonl differs from "
                  f"{SUMMARY} at: {', '.join(diff[:20])}", file=sys.stderr)
            return 1
        print(f"{run_dir}: {SUMMARY} is reproduced from scores.jsonl")
        return 0
    summary, bench = rebuild(run_dir)
    run = RunDir(run_dir)
    with run.lock():
        run.write_json(SUMMARY, summary)
    print(bench.format_summary(summary))
    return 0


def aggregate_suite(suite: Path, check: bool) -> int:
    """Every run of the suite (module docstring), then eval.json; 1 when anything differs."""
    path = suite / EVAL_JSON
    code = 0
    for run_dir in suite_runs(suite):
        code = max(code, aggregate_run(run_dir, check))
    own, rebuilt = rebuild_suite(suite)
    if check:
        diff = differences(json.loads(json.dumps(rebuilt)), own)
        if diff:
            print(f"{suite}: eval.json rebuilt from its runs differs at: "
                  f"{', '.join(diff[:20])}", file=sys.stderr)
            return 1
        print(f"{suite}: {EVAL_JSON} is reproduced from its runs")
        return code
    with FileLock(str(suite / EVAL_LOCK)):
        atomic_write_json(path, rebuilt)
    print(f"{suite}: {EVAL_JSON} rebuilt from {len(rebuilt['runs'])} run(s)")
    return code


def _own_eval(suite: Path) -> dict[str, Any]:
    path = suite / EVAL_JSON
    own = read_json_file(path)          # a regular file, bounded, one line when it is not JSON
    if not isinstance(own.get("runs"), list):
        raise ScholarbenchError(f"{path}: expected an object with a list \"runs\"")
    return own


def _entry_dir(suite: Path, entry: Any) -> Path | None:
    """The run directory of an eval.json entry (by folder name, beside eval.json); None for
    an entry that was not run (no answers, failed)."""
    run_dir = suite / Path(str((entry or {}).get("run_dir") or "")).name \
        if isinstance(entry, dict) and entry.get("run_dir") else None
    return run_dir if run_dir is not None and (run_dir / "manifest.json").exists() else None


def suite_runs(suite: Path) -> list[Path]:
    """The run directories eval.json lists that hold a run, in its order."""
    return [d for e in _own_eval(suite)["runs"] if (d := _entry_dir(suite, e)) is not None]


def rebuild_suite(suite: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(eval.json as it is, eval.json rebuilt from the run directories as `eval` wrote it)."""
    own = _own_eval(suite)
    entries = []
    for entry in own["runs"]:
        run_dir = _entry_dir(suite, entry)
        if run_dir is None:
            entries.append(entry)          # not run (no answers, failed): as eval wrote it
            continue
        manifest = RunDir(run_dir).read_manifest()
        bench = benchmark_class(str(manifest.get("benchmark")))(manifest.get("options") or {})
        entries.append({**run_entry(bench, str(entry.get("subtask") or manifest.get("mode")),
                                    run_dir), "run_dir": entry["run_dir"]})
    return own, {**own, "runs": entries}


def add_aggregate_parser(sub: Any) -> None:
    p = sub.add_parser("aggregate", help="rebuild a run's summary.json from its scores.jsonl "
                       "alone (no agent, judge or data); on an eval suite directory, every "
                       "run's and then eval.json")
    p.add_argument("run_dir", metavar="RUN_DIR|SUITE_DIR")
    p.add_argument("--check", action="store_true", help="compare with the run's own summary "
                   "and exit 1 if they differ; write nothing")
    p.set_defaults(func=cmd_aggregate)


__all__ = ["add_aggregate_parser", "cmd_aggregate", "differences", "read_scores", "rebuild",
           "rebuild_suite", "suite_runs", "summary_differences", "undefined"]
