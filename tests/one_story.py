"""Checks that every file of a finished run tells one story (shared by the whole-suite tests)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path


def assert_summary_rebuilt_from_scores(run_dir: Path, cwd: Path, env: dict[str, str]) -> None:
    """`scholarbench aggregate RUN --check` with an empty data directory and no key: the
    summary is reproduced from scores.jsonl alone."""
    empty = cwd / "empty-data"
    empty.mkdir(exist_ok=True)
    bare = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    bare["SCHOLARBENCH_DATA"] = str(empty)
    done = subprocess.run([sys.executable, "-m", "scholarbench", "aggregate", str(run_dir),
                           "--check"], cwd=cwd, env=bare, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, (run_dir, done.stderr[-2000:])
    summary = json.loads((run_dir / "summary.json").read_text())
    for key, m in summary.get("metrics", {}).items():
        assert "ci95" in m, (run_dir, key)


def assert_one_status_per_sample(run: dict, root: Path) -> None:
    """generate file, scores.jsonl, summary.json and the eval.json row agree on every sample."""
    from scholarbench.core.engine import benchmark_class
    from scholarbench.core.status import sample_status
    cls = benchmark_class(run["benchmark"])
    run_dir = root / run["run_dir"]
    lines = [json.loads(x) for x in (run_dir / cls.generate_file).read_text().splitlines()
             if x.strip()]
    generated = {str(r[cls.id_key]): r for r in lines}          # the last line of a sample
    rows = [json.loads(x) for x in (run_dir / "scores.jsonl").read_text().splitlines()]
    statuses = Counter()
    for row in rows:
        own = sample_status(row)                     # the row alone
        assert own == sample_status(row, generated.get(str(row[cls.id_key]))), row
        statuses[own] += 1
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == dict(statuses), (run["run_dir"], summary["status"], statuses)
    for status, n in statuses.items():
        assert run["counts"][status] == n, (run["run_dir"], status, run["counts"])
    assert sum(v for v in run["counts"].values() if isinstance(v, int)) - \
        (run["counts"].get("unresolved") or 0) == len(rows), run["counts"]
    if os.environ.get("CI"):
        assert len(rows) == run["samples"]
