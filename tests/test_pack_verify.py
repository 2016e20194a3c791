"""`scholarbench pack` and `scholarbench verify` (docs/leaderboard.md) on real runs of the toy
benchmark (tests/plugins/toybench) made from the command line: one run judged by a scripted
loopback LLM judge, one eval suite. The packed submission verifies; each tamper — a score
edited, an answer swapped after scoring, a summary edited, a judge record removed, another data
version, a member added outside the manifest, a member changed after packing — is caught on
its own line with a non-zero exit; a re-judge by a judge that disagrees shows a negative α, one
that agrees α = 1."""
from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
from pathlib import Path
from typing import Callable

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.submission import MANIFEST, VERIFIED, read_submission
from test_engine import MY_AGENT, _cli, _site


def _relevant(body: dict) -> Step:
    """The submitter's judge: relevant unless the answer is about attention (t2)."""
    prompt = body["messages"][0]["content"]
    return Step(text=json.dumps({"relevant": "attention" not in prompt.lower()}))


def _contrary(body: dict) -> Step:
    """A judge that says the opposite of `_relevant` on every sample."""
    prompt = body["messages"][0]["content"]
    return Step(text=json.dumps({"relevant": "attention" in prompt.lower()}))


class Env:
    """The toy plug-in installed, a user's agent, the runs and their submission."""

    def __init__(self, tmp: Path, judge: FakeOpenAI) -> None:
        self.tmp, self.site = tmp, _site(tmp)
        self.user = tmp / "user"
        self.user.mkdir()
        (self.user / "mypkg_agent.py").write_text(MY_AGENT)
        self.judge = judge

    def cli(self, *args: str):
        return _cli(list(args), self.site, self.tmp, self.user)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    judge = FakeOpenAI(default=_relevant).start()
    e = Env(tmp_path_factory.mktemp("pack"), judge)
    run = e.cli("run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                "--out", "runs/toy", "--quiet", "--llm-judge", "--no-llm-cache",
                "--judge", "judge-a", "--judge-base-url", judge.base_url)
    assert run.returncode == 0, run.stderr
    suite = e.cli("eval", "--benchmarks", "toybench", "--agent", "mypkg_agent:solve",
                  "--out", "runs/suite", "--quiet")
    assert suite.returncode == 0, suite.stderr
    packed = e.cli("pack", "runs/toy", "runs/suite", "--out", "sub.tar.gz")
    assert packed.returncode == 0, packed.stderr
    e.packed = packed
    yield e
    judge.stop()


def _members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}


def _write(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _tamper(env: Env, name: str, edit: Callable[[dict[str, bytes]], None],
            rehash: bool = True) -> str:
    """A copy of the submission with `edit` applied to its members; `rehash`: the manifest's
    digests rewritten to match (a forger who repacks), else left as packed."""
    members = _members(env.tmp / "sub.tar.gz")
    edit(members)
    _write(env.tmp / name, _rehashed(members) if rehash else members)
    return name


def _rehashed(members: dict[str, bytes]) -> dict[str, bytes]:
    """`members` with the manifest's digests and sizes rewritten to match them."""
    manifest = json.loads(members[MANIFEST])
    for m in manifest["members"]:
        m["sha256"] = hashlib.sha256(members[m["path"]]).hexdigest()
        m["bytes"] = len(members[m["path"]])
    return {**members, MANIFEST: json.dumps(manifest).encode()}


def _lines(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.decode().splitlines() if x.strip()]


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _line(stdout: str, start: str) -> str:
    """The output line starting with `start` (verdict, scope, check name)."""
    verdict, _, rest = start.partition(" ")
    pattern = re.escape(verdict) + r"\s+" + re.escape(rest)
    found = [x for x in stdout.splitlines() if re.match(pattern, x)]
    assert found, f"no line {start!r} in:\n{stdout}"
    return found[0]


# -- pack ------------------------------------------------------------------------------------

def test_pack_holds_the_runs_records_each_hashed_and_nothing_else(env):
    members = _members(env.tmp / "sub.tar.gz")
    manifest = json.loads(members.pop(MANIFEST))
    listed = {m["path"]: m["sha256"] for m in manifest["members"]}
    assert set(listed) == set(members)
    assert all(hashlib.sha256(members[p]).hexdigest() == h for p, h in listed.items())
    assert sorted(p for p in listed if p.startswith("toy/")) == [
        "toy/generate.jsonl", "toy/judge.jsonl", "toy/judge.relevance.jsonl",
        "toy/manifest.json", "toy/scores.jsonl", "toy/summary.json"]
    assert "suite/eval.json" in listed and "suite/toybench-rank/scores.jsonl" in listed
    assert not any(".lock" in p for p in members)          # no lock, no temporary
    for path, data in members.items():                     # each the run's file, unchanged
        assert data == (env.tmp / "runs" / path).read_bytes()
    assert [(r["dir"], r["suite"]) for r in manifest["runs"]] == [
        ("toy", None), ("suite/toybench-rank", "suite")]
    assert "left out of runs/toy: .lock" in env.packed.stdout


def test_read_submission_gives_typed_runs_and_summaries(env):
    sub = read_submission(env.tmp / "sub.tar.gz")
    assert [(r.dir, r.benchmark, r.mode, r.agent) for r in sub.runs] == [
        ("toy", "toybench", "rank", "mypkg_agent:solve"),
        ("suite/toybench-rank", "toybench", "rank", "mypkg_agent:solve")]
    assert sub.runs[0].summary == json.loads((env.tmp / "runs/toy/summary.json").read_text())
    assert sub.suites["suite"] == json.loads((env.tmp / "runs/suite/eval.json").read_text())
    assert sub.verification is None and sub.versions["scholarbench"]
    forged = read_submission(env.tmp / _tamper(env, "forged-read.tar.gz", lambda m: m.update(
        {"toy/extra.json": b"{}"})))
    assert forged.runs == [] and forged.verification.verdict == "refused"


def test_pack_refuses_an_incomplete_run_unless_asked(env, monkeypatch):
    monkeypatch.setenv("TOY_FAIL", "1")
    run = env.cli("run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                  "--out", "runs/failed", "--quiet")
    assert run.returncode == 3
    refused = env.cli("pack", "runs/failed", "--out", "failed.tar.gz")
    assert refused.returncode == 2 and not (env.tmp / "failed.tar.gz").exists()
    assert "runs/failed: the run is incomplete (1 error sample(s))" in refused.stderr
    assert "Traceback" not in refused.stderr
    allowed = env.cli("pack", "runs/failed", "--out", "failed.tar.gz", "--allow-incomplete")
    assert allowed.returncode == 0, allowed.stderr
    assert "the run is incomplete" in allowed.stderr


def test_pack_refuses_a_member_holding_a_known_secret(env, monkeypatch):
    import shutil
    secret = "test-only-secret-" + "0123456789"     # a made-up value, named a key
    shutil.copytree(env.tmp / "runs/toy", env.tmp / "runs/leaky")
    answers = env.tmp / "runs/leaky/generate.jsonl"
    answers.write_text(answers.read_text().replace("GCN", secret))
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    refused = env.cli("pack", "runs/leaky", "--out", "leaky.tar.gz")
    assert refused.returncode == 2 and not (env.tmp / "leaky.tar.gz").exists()
    assert "runs/leaky/generate.jsonl: holds a secret" in refused.stderr
    assert secret not in refused.stderr + refused.stdout


def test_pack_refuses_a_folder_that_is_no_scored_run(env):
    (env.tmp / "runs/empty").mkdir(exist_ok=True)
    out = env.cli("pack", "runs/empty", "--out", "empty.tar.gz")
    assert out.returncode == 2
    assert out.stderr.strip() == ("error: runs/empty: no manifest.json — not a scored run "
                                  "directory (score it: scholarbench score runs/empty)")


# -- verify ----------------------------------------------------------------------------------

def test_the_packed_submission_verifies(env):
    out = env.cli("verify", "sub.tar.gz")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "verdict: verified"
    assert _line(out.stdout, "ok submission: members:").endswith(
        "12 members, each sha256 as listed, each a JSON record, none outside the manifest")
    for check in ("data", "summary", "judge-free re-score", "judge records",
                  "leakage and injection"):
        for run in ("toy", "suite/toybench-rank"):
            _line(out.stdout, f"ok {run}: {check}:")
    assert "hit@3, f1" in _line(out.stdout, "ok toy: judge-free re-score:")
    assert "judged, llm_relevance" in _line(out.stdout, "ok toy: judge records:")
    assert re.search(r"info\s+toy: code: run with scholarbench \S+, packed with \S+, "
                     r"verified with \S+", out.stdout)
    _line(out.stdout, "ok suite: eval.json: eval.json is rebuilt from its runs")
    assert len(env.judge.requests) == 3          # the replay asked the submitter's judge nothing


def test_an_edited_score_is_caught(env):
    def edit(m):
        rows = _lines(m["toy/scores.jsonl"])
        rows[0]["hit@3"] = 0.0
        m["toy/scores.jsonl"] = _jsonl(rows)
    out = env.cli("verify", _tamper(env, "score.tar.gz", edit))
    assert out.returncode == 1
    line = _line(out.stdout, "differs toy: judge-free re-score:")
    assert "1 difference(s)" in line
    assert "- sample t1: hit@3 0 submitted, 1 re-scored" in out.stdout
    _line(out.stdout, "differs toy: summary:")        # the summary no longer follows either
    assert out.stdout.splitlines()[-1].startswith("verdict: verified with differences")


def test_an_answer_swapped_after_scoring_is_caught(env):
    def edit(m):
        rows = _lines(m["toy/generate.jsonl"])
        rows[2]["answer"] = rows[0]["answer"]          # t3 now answers as t1
        m["toy/generate.jsonl"] = _jsonl(rows)
    out = env.cli("verify", _tamper(env, "answer.tar.gz", edit))
    assert out.returncode == 1
    _line(out.stdout, "differs toy: judge-free re-score:")
    assert re.search(r"- sample t3: hit@3 0\.666667 submitted, 0 re-scored", out.stdout)
    judge = _line(out.stdout, "differs toy: judge records:")   # judged another answer
    assert "1 missing verdict(s)" in judge
    assert "- sample t3: no relevance verdict on file for judge judge-a, repeat 0" in out.stdout
    _line(out.stdout, "ok toy: summary:")             # scores and summary agree: only the
                                                      # re-score sees it


def test_an_edited_summary_is_caught(env):
    def edit(m):
        summary = json.loads(m["toy/summary.json"])
        summary["metrics"]["hit@3"]["mean"] = 0.99
        m["toy/summary.json"] = json.dumps(summary).encode()
    out = env.cli("verify", _tamper(env, "summary.tar.gz", edit))
    assert out.returncode == 1
    _line(out.stdout, "differs toy: summary: summary.json is not the summary rebuilt")
    assert "- metrics.hit@3.mean differs" in out.stdout
    _line(out.stdout, "ok toy: judge-free re-score:")


def test_a_removed_judge_record_is_a_missing_verdict(env):
    def edit(m):
        records = [r for r in _lines(m["toy/judge.relevance.jsonl"]) if r["id"] != "t2"]
        m["toy/judge.relevance.jsonl"] = _jsonl(records)
    out = env.cli("verify", _tamper(env, "judge.tar.gz", edit))
    assert out.returncode == 1
    line = _line(out.stdout, "differs toy: judge records:")
    assert "1 missing verdict(s)" in line
    assert "- sample t2: no relevance verdict on file for judge judge-a, repeat 0" in out.stdout
    assert "- sample t2: llm_relevance 0 submitted, — re-scored" in out.stdout
    _line(out.stdout, "ok toy: judge-free re-score:")
    assert len(env.judge.requests) == 3              # nothing was asked to fill the gap


def test_another_data_version_is_refused_naming_the_tasks(env):
    other = env.tmp / "other-data" / "toybench"
    other.mkdir(parents=True, exist_ok=True)
    items = [{"id": "t1", "topic": "graph neural networks", "gold": ["GCN", "GAT"]},
             {"id": "t4", "topic": "retrieval", "gold": ["BM25"]}]
    (other / "items.json").write_text(json.dumps(items))
    out = env.cli("verify", "sub.tar.gz", "--data", str(env.tmp / "other-data"))
    assert out.returncode == 2
    _line(out.stdout, "refused toy: data: the task set is not the verifier's data")
    assert "- data.n_items: 3 submitted, 2 here" in out.stdout
    assert "- tasks only in the submission: t2, t3" in out.stdout
    assert "- tasks only in the verifier's data: t4" in out.stdout
    assert out.stdout.splitlines()[-1].startswith("verdict: refused (toy: data")


def test_a_member_outside_the_manifest_is_refused(env):
    out = env.cli("verify", _tamper(env, "extra.tar.gz",
                                    lambda m: m.update({"toy/notes.json": b"{}"}),
                                    rehash=False))
    assert out.returncode == 2
    _line(out.stdout, "refused submission: members: 1 problem(s)")
    assert "- toy/notes.json: a member outside the manifest" in out.stdout
    assert out.stdout.splitlines()[-1] == "verdict: refused (submission: members)"
    assert "toy: data" not in out.stdout               # nothing else is opened


def test_a_member_changed_after_packing_is_refused(env):
    def edit(m):
        m["toy/scores.jsonl"] = m["toy/scores.jsonl"].replace(b'"hit@3": 1.0', b'"hit@3": 0.5',
                                                              1)
    out = env.cli("verify", _tamper(env, "changed.tar.gz", edit, rehash=False))
    assert out.returncode == 2
    assert "- toy/scores.jsonl: sha256 differs from the manifest's" in out.stdout


def test_a_run_of_a_benchmark_the_verifier_lacks_is_refused(env):
    def edit(m):
        manifest = json.loads(m["toy/manifest.json"])
        manifest["benchmark"] = "nosuchbench"
        m["toy/manifest.json"] = json.dumps(manifest).encode()
    out = env.cli("verify", _tamper(env, "unknown.tar.gz", edit))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "nosuchbench" in _line(out.stdout, "refused toy: data: the verifier cannot open")
    _line(out.stdout, "ok suite/toybench-rank: judge-free re-score:")   # the others go on


def test_a_file_that_is_no_submission_is_one_error_line(env):
    (env.tmp / "not.tar.gz").write_text("hello")
    out = env.cli("verify", "not.tar.gz")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: not.tar.gz: not a readable submission")


@pytest.mark.parametrize("judge_fn, low", [(_contrary, True), (_relevant, False)])
def test_rejudge_reports_krippendorff_alpha_and_both_headlines(env, judge_fn, low):
    other = FakeOpenAI(default=judge_fn).start()
    try:
        out = env.cli("verify", "sub.tar.gz", "--rejudge", "--judge", "judge-b",
                      "--judge-base-url", other.base_url, "--no-llm-cache")
    finally:
        other.stop()
    assert out.returncode == 0, out.stdout + out.stderr   # a re-judge informs, never fails
    assert len(other.requests) == 3                        # every answer asked again
    line = _line(out.stdout, "info toy: re-judge:")
    alpha = float(re.search(r"llm_relevance: α (-?[\d.]+)", line).group(1))
    submitted, rejudged = re.search(r"headline (\S+) submitted, (\S+) re-judged",
                                    line.split("llm_relevance:")[1]).groups()
    assert float(submitted) == pytest.approx(2 / 3, abs=1e-4)
    if low:             # every verdict reversed: worse than chance
        assert alpha < 0 and float(rejudged) == pytest.approx(1 / 3, abs=1e-4)
    else:
        assert alpha == pytest.approx(1.0) and float(rejudged) == pytest.approx(2 / 3, abs=1e-4)
    assert out.stdout.splitlines()[-1] == f"verdict: {VERIFIED}"


# -- a TaxoBench run on the real data -----------------------------------------------------------

@pytest.mark.slow
def test_a_taxobench_run_on_the_real_data_verifies_and_a_swapped_taxonomy_is_caught(tmp_path):
    import os
    import subprocess
    import sys
    from conftest import shared_path
    instances = shared_path("data", "taxobench", "taxobench_5_instances.jsonl")
    env = {**os.environ, "SCHOLARBENCH_DATA": str(tmp_path / "data")}

    def cli(*args: str):
        return subprocess.run([sys.executable, "-m", "scholarbench", *args], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
    assert cli("data", "import", "taxobench", str(instances)).returncode == 0
    run = cli("run", "taxobench", "--mode", "bottom-up", "--agent", "cluster", "--limit", "2",
              "--out", "runs/bu", "--quiet")
    assert run.returncode == 0, run.stderr
    assert cli("pack", "runs/bu", "--out", "bu.tar.gz").returncode == 0
    out = cli("verify", "bu.tar.gz")
    assert out.returncode == 0, out.stdout + out.stderr
    assert _line(out.stdout, "ok bu: data:").endswith("2 tasks, data records equal the "
                                                      "verifier's")
    assert "us_ted" in _line(out.stdout, "ok bu: judge-free re-score:")
    _line(out.stdout, "skipped bu: judge records: no judge scored this run")
    read = read_submission(tmp_path / "bu.tar.gz", verify=True, data=str(tmp_path / "data"))
    assert read.verification.verdict == VERIFIED          # the leaderboard's reader, in-process
    assert [c.name for c in read.verification.checks if c.scope == "bu"] == [
        "code", "data", "summary", "judge-free re-score", "judge records",
        "leakage and injection"]

    members = _members(tmp_path / "bu.tar.gz")
    rows = _lines(members["bu/generate.jsonl"])
    first, second = rows[0]["prediction"], rows[1]["prediction"]    # each task's taxonomy
    first["hierarchy_tree"], second["hierarchy_tree"] = (second["hierarchy_tree"],
                                                         first["hierarchy_tree"])
    members["bu/generate.jsonl"] = _jsonl(rows)
    _write(tmp_path / "swapped.tar.gz", _rehashed(members))
    swapped = cli("verify", "swapped.tar.gz")
    assert swapped.returncode == 1
    _line(swapped.stdout, "differs bu: judge-free re-score:")
    assert re.search(r"- sample \S+: ari \S+ submitted, \S+ re-scored", swapped.stdout), \
        swapped.stdout
