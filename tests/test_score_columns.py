"""Rows as columns (issue 37): scores.jsonl read once, its measures, pooled sums, status counts
and judge panels computed from columns — and every summary byte for byte what the rows gave.
tests/data/runs-columns holds runs whose summary.json was written before this change (their
README says how)."""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from scholarbench.core.aggregate import cmd_aggregate

DATA = Path(__file__).parent / "data"
WRITTEN_BEFORE = sorted(p for d in ("runs-columns", "runs-intervals") for p in (DATA / d).iterdir()
                        if (p / "summary.json").is_file())


@pytest.mark.parametrize("run_dir", WRITTEN_BEFORE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_aggregate_writes_the_stored_summary_byte_for_byte(run_dir, tmp_path, capsys):
    copy = tmp_path / run_dir.name
    shutil.copytree(run_dir, copy)
    (copy / "summary.json").unlink()
    assert cmd_aggregate(argparse.Namespace(run_dir=str(copy), check=False)) == 0
    assert (copy / "summary.json").read_bytes() == (run_dir / "summary.json").read_bytes()
    assert cmd_aggregate(argparse.Namespace(run_dir=str(run_dir), check=True)) == 0, \
        capsys.readouterr().err
