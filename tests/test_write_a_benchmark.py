"""docs/write-a-benchmark.md, run as printed: its benchmark file and entry point installed in a
fresh site folder, run from the command line with a user's agent and scripted loopback judges.
It is correct by default: a re-score with another judge asks that judge, the dry run counts the
requests, and an old run still aggregates after a measure is added."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from test_engine import _cli

DOC = Path(__file__).parents[1] / "docs" / "write-a-benchmark.md"

AGENT = '''
def solve(task):
    return {"papers": {"graph neural networks": ["GCN", "Cooking with GAT"],
                       "dense retrieval": ["DPR", "ColBERT"],
                       "transformers": []}[task["topic"]]}
'''


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)


def _judge(body: dict) -> Step:
    """On topic unless the list holds a cooking paper."""
    return Step(text=json.dumps({"on_topic": "cooking" not in
                                 body["messages"][0]["content"].lower()}))


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    (source,) = _blocks("python")
    (toml,) = _blocks("toml")
    site = tmp_path / "site"
    info = site / "citebench-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: citebench\nVersion: 0.1\n")
    group, entry = toml.strip().split("\n")
    assert group == '[project.entry-points."scholarbench.benchmarks"]'
    (info / "entry_points.txt").write_text(
        "[scholarbench.benchmarks]\n" + entry.replace('"', "") + "\n")
    (site / "citebench.py").write_text(source)
    (site / "myagent.py").write_text(AGENT)
    return site


def test_the_documented_benchmark_is_one_file_of_about_100_lines(site):
    lines = [x for x in (site / "citebench.py").read_text().splitlines() if x.strip()]
    assert len(lines) <= 110


def test_the_documented_benchmark_runs_judges_and_rescores_with_another_judge(site, tmp_path):
    a, b = FakeOpenAI(default=_judge).start(), FakeOpenAI(default=_judge).start()
    try:
        listed = _cli(["list", "benchmark"], site, tmp_path)
        assert listed.returncode == 0 and "citebench" in listed.stdout, listed.stderr
        base = ["run", "citebench", "--task", "find", "--agent", "myagent:solve", "--quiet",
                "--no-llm-cache"]
        plain = _cli([*base, "--out", "runs/plain"], site, tmp_path)
        assert plain.returncode == 0, plain.stderr
        summary = json.loads((tmp_path / "runs/plain/summary.json").read_text())
        # recall@5: q1 1/2, q2 2/3, q3 0/1 (an empty answer is well-formed: scored 0)
        assert summary["metrics"]["recall@5"]["mean"] == pytest.approx((0.5 + 2 / 3) / 3)
        assert "on_topic" not in summary["metrics"] and not a.requests

        judged = [*base, "--out", "runs/judged", "--judge-on-topic"]
        dry = _cli([*judged, "--judge", "judge-a", "--judge-base-url", a.base_url,
                    "--dry-run"], site, tmp_path)
        assert "total: ≤ 3 judge calls" in dry.stdout, dry.stdout + dry.stderr
        run = _cli([*judged, "--judge", "judge-a", "--judge-base-url", a.base_url],
                   site, tmp_path)
        assert run.returncode == 0, run.stderr
        assert len(a.requests) == 2                      # q3 gave no paper: nothing to judge
        summary = json.loads((tmp_path / "runs/judged/summary.json").read_text())
        assert summary["metrics"]["on_topic"]["mean"] == pytest.approx(0.5)
        assert summary["metrics"]["on_topic"]["n"] == 2

        again = _cli(["score", "runs/judged", "--judge", "judge-b", "--judge-base-url",
                      b.base_url, "--no-llm-cache"], site, tmp_path)
        assert again.returncode == 0, again.stderr
        assert len(b.requests) == 2 and len(a.requests) == 2
        manifest = json.loads((tmp_path / "runs/judged/manifest.json").read_text())
        assert manifest["judged"]["on_topic"]["judges"][0]["model"] == "judge-b"

        check = _cli(["aggregate", "runs/judged", "--check"], site, tmp_path)
        assert check.returncode == 0, check.stderr
        report = _cli(["report", "runs/plain", "runs/judged", "--format", "markdown",
                       "--no-published"], site, tmp_path)
        assert report.returncode == 0, report.stderr
        assert "Recall@5" in report.stdout and "On topic" in report.stdout
    finally:
        a.stop()
        b.stop()
