"""`scholarbench aggregate RUN_DIR`: summary.json rebuilt from scores.jsonl alone.

Reads the run's manifest (what the run was) and its score rows — each validated
(`core.records.ScoreRecord`; a bad line is one error naming the file, line and field) — and
calls `core.summarise.summarise`, the same function `run` and `score` end with. No agent,
judge, data directory or corpus is opened. `--check` compares the rebuilt summary with the
run's own and exits 1 naming the keys that differ (nothing is written); without it the
summary is written under the run's lock.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scholarbench.core.engine import SCORES, SUMMARY, benchmark_class
from scholarbench.core.migrate import check_format, upgrade_rows
from scholarbench.core.records import RUN_FORMAT, ScoreRecord
from scholarbench.core.rundir import RunDir
from scholarbench.core.summarise import summarise
from scholarbench.errors import ScholarbenchError


def read_scores(path: Path, id_key: str) -> list[dict[str, Any]]:
    """The rows of a scores.jsonl, each checked against `ScoreRecord`."""
    if not path.exists():
        raise ScholarbenchError(f"{path}: no scores (score the run first: scholarbench score "
                                f"{path.parent})")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScholarbenchError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ScholarbenchError(f"{where}: expected a JSON object")
        if row.get(id_key) is None:
            raise ScholarbenchError(f"{where}: field {id_key!r}: missing")
        try:
            ScoreRecord.model_validate(row)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(record)"
            raise ScholarbenchError(f"{where}: field {field!r}: {err['msg']}, got "
                                    f"{json.dumps(err.get('input'))[:80]}") from None
        rows.append(row)
    return rows


def rebuild(run_dir: Path) -> tuple[dict[str, Any], Any]:
    """(the rebuilt summary, the benchmark) of a finished run directory."""
    run = RunDir(run_dir)
    manifest = run.read_manifest()
    bench = benchmark_class(str(manifest.get("benchmark")))(manifest.get("options") or {})
    rows = read_scores(run.file(SCORES), bench.id_key)
    if check_format(manifest, run.manifest_path) != RUN_FORMAT:
        generated = run.stage(bench.generate_file, bench.id_key).records
        rows = upgrade_rows(rows, manifest, generated, bench.id_key)
    return summarise(bench, rows, manifest, warn=False), bench


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Keys (dotted) where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append(where)
            else:
                out += differences(a[key], b[key], where)
        return out
    return [] if a == b else [path or "(whole)"]


def cmd_aggregate(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir)
    summary, bench = rebuild(run_dir)
    if args.check:
        own_path = run_dir / SUMMARY
        own = json.loads(own_path.read_text(encoding="utf-8")) if own_path.exists() else {}
        diff = differences(json.loads(json.dumps(summary)), own)
        if diff:
            print(f"{run_dir}: the summary rebuilt from scores.jsonl differs from "
                  f"{SUMMARY} at: {', '.join(diff[:20])}", file=sys.stderr)
            return 1
        print(f"{run_dir}: {SUMMARY} is reproduced from scores.jsonl")
        return 0
    run = RunDir(run_dir)
    with run.lock():
        run.write_json(SUMMARY, summary)
    print(bench.format_summary(summary))
    return 0


def add_aggregate_parser(sub: Any) -> None:
    p = sub.add_parser("aggregate", help="rebuild a run's summary.json from its scores.jsonl "
                       "alone (no agent, judge or data)")
    p.add_argument("run_dir")
    p.add_argument("--check", action="store_true", help="compare with the run's own summary "
                   "and exit 1 if they differ; write nothing")
    p.set_defaults(func=cmd_aggregate)


__all__ = ["add_aggregate_parser", "cmd_aggregate", "differences", "read_scores", "rebuild"]
