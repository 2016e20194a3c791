"""Run directories of an earlier format (tests/data/runs-format-2, written by 5d6e528) still
report, aggregate and re-score; a format from the future is one error line (core.migrate)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scholarbench.cli import main
from scholarbench.core.aggregate import rebuild
from scholarbench.core.records import RUN_FORMAT
from scholarbench.data.demo import write_demo

OLD = Path(__file__).parent / "data" / "runs-format-2"


@pytest.fixture
def old_runs(tmp_path: Path) -> Path:
    write_demo(tmp_path / "data" / "demo")
    runs = tmp_path / "runs"
    for name in ("bottom-up-cluster", "bottom-up-empty"):
        shutil.copytree(OLD / name, runs / name)
        path = runs / name / "manifest.json"
        text = path.read_text().replace("@DATA@", str(tmp_path / "data")).replace(
            "@RUNS@", str(runs)).replace("@HOME@", str(tmp_path))
        path.write_text(text)
    return runs


def test_an_old_run_reports_without_intervals(old_runs, capsys):
    assert json.loads((old_runs / "bottom-up-cluster/manifest.json").read_text())["format"] \
        == "scholarbench-run/2"
    assert main(["report", str(old_runs / "bottom-up-cluster"), str(old_runs / "bottom-up-empty"),
                 "--format", "markdown", "--no-published"]) == 0
    out = capsys.readouterr().out
    assert "cluster" in out and "±" not in out


def test_an_old_run_aggregates_with_this_versions_reasons_and_intervals(old_runs):
    summary, _ = rebuild(old_runs / "bottom-up-empty")
    old = json.loads((old_runs / "bottom-up-empty/summary.json").read_text())
    assert summary["status"] == old["status"] == {"malformed": 2}
    for key, entry in old["metrics"].items():       # the same means, now with intervals
        assert summary["metrics"][key]["mean"] == entry["mean"], key
        assert "ci95" in summary["metrics"][key]
    from scholarbench.core.status import run_counts
    assert run_counts(old_runs / "bottom-up-empty").reasons["malformed"].startswith(
        "2× taxonomy answer, field taxonomy")


def test_an_old_run_rescores_into_this_format(old_runs, capsys):
    run = old_runs / "bottom-up-cluster"
    old = json.loads((run / "summary.json").read_text())
    assert main(["score", str(run), "--quiet"]) == 0
    manifest = json.loads((run / "manifest.json").read_text())
    new = json.loads((run / "summary.json").read_text())
    assert manifest["format"] == RUN_FORMAT
    for key, entry in old["metrics"].items():
        assert new["metrics"][key]["mean"] == pytest.approx(entry["mean"], abs=1e-9), key
        assert "ci95" in new["metrics"][key]
    assert main(["aggregate", str(run), "--check"]) == 0
    rows = [json.loads(x) for x in (old_runs / "bottom-up-empty/scores.jsonl").read_text()
            .splitlines()]
    assert all("reason" not in r for r in rows)     # files of the old run are not rewritten


def test_a_run_from_a_newer_version_is_one_error_line(old_runs, capsys):
    path = old_runs / "bottom-up-cluster/manifest.json"
    manifest = json.loads(path.read_text())
    manifest["format"] = "scholarbench-run/99"
    path.write_text(json.dumps(manifest))
    assert main(["aggregate", str(path.parent)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "scholarbench-run/99" in err[0] and "upgrade" in err[0]
