"""The engine on a toy sixth benchmark that lives outside the package (tests/plugins/toybench):
registry and entry points, run / score / report / list from the command line, the three ways a
user's agent comes in, statuses (error vs malformed), resume retrying only errored samples, set-up
failures leaving nothing behind, the run-directory lock and atomic rewrites."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parent / "plugins"


def _site(tmp_path: Path) -> Path:
    """An 'installed' toybench: a dist-info whose entry point names the plug-in package."""
    site = tmp_path / "site"
    info = site / "toybench-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[scholarbench.benchmarks]\ntoybench = toybench:ToyBench\n\n"
        "[scholarbench.agents]\ntoy-echo = toyagents:echo\n")
    (site / "toyagents.py").write_text(textwrap.dedent('''
        def echo(task):
            return {"papers": [task["topic"]]}
    '''))
    return site


def _cli(args: list[str], site: Path, cwd: Path, extra_path: Path | None = None):
    env = dict(os.environ)
    paths = [str(site), str(PLUGINS)] + ([str(extra_path)] if extra_path else [])
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    env["SCHOLARBENCH_DATA"] = str(cwd / "data")
    return subprocess.run([sys.executable, "-m", "scholarbench", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


MY_AGENT = '''
"""A user's agent: a plain function, no scholarbench import."""
import os

KNOWN = {"graph neural networks": ["GCN", "GAT", "GraphSAGE"],
         "transformers": ["Attention Is All You Need"],
         "retrieval": ["BM25", "DPR"]}


def solve(task):
    if task["topic"] == "transformers" and os.environ.get("TOY_FAIL"):
        raise ConnectionError("endpoint unreachable")
    if task["topic"] == "retrieval" and os.environ.get("TOY_MALFORMED"):
        return {"paperz": ["BM25"]}
    return {"papers": KNOWN.get(task["topic"], [])}
'''


@pytest.fixture()
def env(tmp_path: Path):
    site = _site(tmp_path)
    user = tmp_path / "user"
    user.mkdir()
    (user / "mypkg_agent.py").write_text(MY_AGENT)
    return site, user, tmp_path


def test_toy_benchmark_end_to_end_from_outside_the_package(env):
    site, user, tmp = env
    listed = _cli(["list", "benchmark"], site, tmp)
    assert listed.returncode == 0 and "toybench" in listed.stdout.split()
    agents = _cli(["list", "agent"], site, tmp)
    assert "toy-echo" in agents.stdout.split() and "toy-oracle" in agents.stdout.split()

    run = _cli(["run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                "--out", "runs/toy", "--quiet"], site, tmp, user)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(x) for x in (tmp / "runs/toy/scores.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["t1", "t2", "t3"]
    assert [r["hit@3"] for r in rows] == [1.0, 1.0, pytest.approx(2 / 3)]
    summary = json.loads((tmp / "runs/toy/summary.json").read_text())
    assert summary["metrics"]["hit@3"]["mean"] == pytest.approx((1 + 1 + 2 / 3) / 3)
    assert summary["status"] == {"scored": 3} and summary["complete"] is True

    before = (tmp / "runs/toy/scores.jsonl").read_text()
    rescore = _cli(["score", "runs/toy"], site, tmp, user)
    assert rescore.returncode == 0, rescore.stderr
    assert (tmp / "runs/toy/scores.jsonl").read_text() == before

    report = _cli(["report", "runs/toy", "--format", "markdown"], site, tmp)
    assert report.returncode == 0, report.stderr
    assert "Toy benchmark" in report.stdout and "mypkg" in report.stdout
    assert "0.8889" in report.stdout

    # the plug-in's own agent and an entry-point agent
    oracle = _cli(["run", "toybench", "--task", "rank", "--agent", "toy-oracle", "--out",
                   "runs/oracle", "--quiet"], site, tmp)
    assert oracle.returncode == 0, oracle.stderr
    assert json.loads((tmp / "runs/oracle/summary.json").read_text())[
        "metrics"]["hit@3"]["mean"] == 1.0
    echo = _cli(["run", "toybench", "--task", "rank", "--agent", "toy-echo", "--out",
                 "runs/echo", "--quiet"], site, tmp)
    assert echo.returncode == 0, echo.stderr
    assert json.loads((tmp / "runs/echo/summary.json").read_text())[
        "metrics"]["hit@3"]["mean"] == 0.0


def test_errors_exit_non_zero_and_resume_retries_only_them(env, monkeypatch):
    site, user, tmp = env
    monkeypatch.setenv("TOY_FAIL", "1")
    run = _cli(["run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                "--out", "runs/e", "--quiet"], site, tmp, user)
    assert run.returncode == 3
    assert "1 sample(s) errored" in run.stderr and "ConnectionError" in run.stderr
    summary = json.loads((tmp / "runs/e/summary.json").read_text())
    assert summary["complete"] is False and summary["status"] == {"scored": 2, "error": 1}
    gen = [json.loads(x) for x in (tmp / "runs/e/generate.jsonl").read_text().splitlines()]
    assert [(g["id"], g.get("status", "ok")) for g in gen] == [("t1", "ok"), ("t2", "error"), ("t3", "ok")]
    left_out = _cli(["report", "runs/e", "--format", "markdown"], site, tmp)
    assert left_out.returncode == 2 and "incomplete" in left_out.stderr
    shown = _cli(["report", "runs/e", "--format", "markdown", "--include-incomplete"], site, tmp)
    assert shown.returncode == 0 and "incomplete" in shown.stdout

    monkeypatch.delenv("TOY_FAIL")
    again = _cli(["run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                  "--out", "runs/e", "--quiet"], site, tmp, user)
    assert again.returncode == 0, again.stderr
    gen = [json.loads(x) for x in (tmp / "runs/e/generate.jsonl").read_text().splitlines()]
    assert [g["id"] for g in gen] == ["t1", "t2", "t3", "t2"]      # only t2 was redone
    summary = json.loads((tmp / "runs/e/summary.json").read_text())
    assert summary["complete"] is True and summary["status"] == {"scored": 3}


def test_malformed_is_scored_as_empty_and_counted(env, monkeypatch):
    site, user, tmp = env
    monkeypatch.setenv("TOY_MALFORMED", "1")
    run = _cli(["run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve",
                "--out", "runs/m", "--quiet"], site, tmp, user)
    assert run.returncode == 0, run.stderr          # a wrong answer is a result
    rows = {r["id"]: r for r in map(json.loads, (tmp / "runs/m/scores.jsonl").read_text()
                                     .splitlines())}
    assert rows["t3"]["status"] == "malformed" and rows["t3"]["hit@3"] == 0.0
    gen = {g["id"]: g for g in map(json.loads, (tmp / "runs/m/generate.jsonl").read_text()
                                   .splitlines())}
    assert "paperz" in gen["t3"]["error"] or "papers" in gen["t3"]["error"]


def test_setup_failures_leave_no_folder_and_misfits_list_the_fitting(env):
    site, user, tmp = env
    bad = _cli(["run", "toybench", "--task", "rank", "--agent", "replay", "--agent-arg",
                "path=nope.jsonl", "--out", "runs/r"], site, tmp)
    assert bad.returncode == 2 and "nope.jsonl" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp / "runs/r").exists()
    unknown = _cli(["run", "toybench", "--task", "rank", "--agent", "cluster", "--out",
                    "runs/c"], site, tmp)
    assert unknown.returncode == 2 and "toy-oracle" in unknown.stderr
    assert not (tmp / "runs/c").exists()


def test_replay_file_in_the_family_schema(env):
    site, user, tmp = env
    answers = tmp / "answers.jsonl"
    answers.write_text('{"id": "t1", "papers": ["GCN", {"id": "GAT", "score": 0.5}]}\n'
                       'not json\n{"id": "t3", "papers": "BM25"}\n')
    run = _cli(["run", "toybench", "--task", "rank", "--agent", "replay", "--agent-arg",
                f"path={answers}", "--out", "runs/rp", "--quiet"], site, tmp)
    assert run.returncode == 0, run.stderr
    rows = {r["id"]: r for r in map(json.loads, (tmp / "runs/rp/scores.jsonl").read_text()
                                     .splitlines())}
    assert rows["t1"]["hit@3"] == 1.0 and rows["t1"]["status"] == "scored"
    assert rows["t2"]["status"] == "missing"              # no line: missing, scored empty
    assert rows["t3"]["status"] == "malformed"            # not a list


def test_concurrent_scores_keep_one_row_per_sample(env):
    site, user, tmp = env
    assert _cli(["run", "toybench", "--task", "rank", "--agent", "toy-oracle", "--out",
                 "runs/s", "--quiet"], site, tmp).returncode == 0
    envs = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(PLUGINS)]))
    procs = [subprocess.Popen([sys.executable, "-m", "scholarbench", "score", "runs/s"],
                              cwd=tmp, env=envs, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(3)]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    for out, err, code in results:
        assert code == 0 or (code == 2 and "in use by another scholarbench process" in err), err
    assert any(code == 0 for *_, code in results)
    rows = [json.loads(x) for x in (tmp / "runs/s/scores.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["t1", "t2", "t3"]
    assert not [p for p in (tmp / "runs/s").iterdir() if p.name.endswith(".tmp")]


def test_a_second_writer_is_refused_while_the_lock_is_held(env):
    from scholarbench.core.rundir import RunDir, RunLocked
    site, user, tmp = env
    assert _cli(["run", "toybench", "--task", "rank", "--agent", "toy-oracle", "--out",
                 "runs/l", "--quiet"], site, tmp).returncode == 0
    with RunDir(tmp / "runs/l").lock():
        again = _cli(["score", "runs/l"], site, tmp)
        assert again.returncode == 2 and "in use by another scholarbench process" in again.stderr
        run = _cli(["run", "toybench", "--task", "rank", "--agent", "toy-oracle", "--out",
                    "runs/l"], site, tmp)
        assert run.returncode == 2 and "in use" in run.stderr
        with pytest.raises(RunLocked):
            with RunDir(tmp / "runs/l").lock():
                pass


def test_a_torn_middle_line_is_reported_and_its_sample_redone(env):
    site, user, tmp = env
    assert _cli(["run", "toybench", "--task", "rank", "--agent", "toy-oracle", "--out",
                 "runs/t", "--quiet"], site, tmp).returncode == 0
    gen = tmp / "runs/t/generate.jsonl"
    lines = gen.read_text().splitlines()
    lines[1] = lines[1][: len(lines[1]) // 2]                      # t2's line is torn
    gen.write_text("\n".join(lines) + "\n")
    again = _cli(["run", "toybench", "--task", "rank", "--agent", "toy-oracle", "--out",
                  "runs/t", "--quiet"], site, tmp)
    assert again.returncode == 0, again.stderr
    assert "line 2: not valid JSON; its sample is redone" in again.stdout
    ids = [json.loads(x)["id"] for x in gen.read_text().splitlines() if x.startswith("{")
           and x.endswith("}")]
    assert ids == ["t1", "t3", "t2"]
    assert json.loads((tmp / "runs/t/summary.json").read_text())["status"] == {"scored": 3}


def test_atomic_write_never_leaves_a_partial_file(tmp_path, monkeypatch):
    from scholarbench.core import rundir
    target = tmp_path / "summary.json"
    rundir.atomic_write_json(target, {"a": 1})

    def boom(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(rundir.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        rundir.atomic_write_json(target, {"a": 2, "b": "x" * 10000})
    assert json.loads(target.read_text()) == {"a": 1}
    assert list(tmp_path.iterdir()) == [target]


def test_list_agent_names_the_benchmarks_each_agent_fits_and_the_generic_ones(capsys):
    from scholarbench.cli import main
    assert main(["list", "agent"]) == 0
    rows = {line.split()[0]: line.split(None, 1)[1] for line in
            capsys.readouterr().out.splitlines()[1:]}
    assert rows["cluster"] == "taxobench: bottom-up; researcharena: organisation"
    assert rows["e2e-writer"].startswith("deepsynth: report; reportbench: shipped")
    assert rows["endpoint"].startswith("every benchmark and sub-task")
    assert "replay" in rows and "package.module:attr" in rows


def test_a_plugin_brings_its_measures_judge_stage_and_report_section(env):
    """toybench declares `hit@3`, a pooled `f1` (TaxoBench has an `f1` too) and a judge-scored
    measure, runs a judge stage into its own file and registers its own report section: the
    summary has every measure with its interval, is rebuilt from scores.jsonl alone, and an
    answer the judge cannot read is `unscored` in every file."""
    site, user, tmp = env
    (user / "judgeme.py").write_text(
        "def solve(task):\n"
        "    if task['topic'] == 'retrieval':\n"
        "        return {'papers': ['unjudgeable', 'BM25']}\n"
        "    return {'papers': {'graph neural networks': ['GCN', 'x', 'y'],\n"
        "                       'transformers': ['z', 'Attention Is All You Need']}"
        "[task['topic']]}\n")
    run = _cli(["run", "toybench", "--task", "rank", "--agent", "judgeme:solve", "--out",
                "runs/judged", "--quiet"], site, tmp, user)
    assert run.returncode == 0, run.stderr
    judge = [json.loads(x) for x in (tmp / "runs/judged/judge.jsonl").read_text().splitlines()]
    assert {j["id"]: j.get("verdict") for j in judge} == {"t1": 1.0, "t2": 0.0, "t3": None}
    summary = json.loads((tmp / "runs/judged/summary.json").read_text())
    assert summary["status"] == {"scored": 2, "unscored": 1}
    m = summary["metrics"]
    # hit@3: t1 1/2, t2 1/1 (t3 unscored: its row still has its value, 1/3)
    assert m["hit@3"]["mean"] == pytest.approx((0.5 + 1 + 1 / 3) / 3)
    # pooled f1: hits 1+1+1 = 3, gold 2+1+3 = 6, answers 3+2+2 = 7 → 6/13
    assert m["f1"]["mean"] == pytest.approx(6 / 13)
    assert m["judged"]["mean"] == pytest.approx(0.5) and m["judged"]["n_null"] == 1
    assert all("ci95" in v for v in m.values())
    low, high = m["f1"]["ci95"]
    assert low <= 6 / 13 <= high
    check = _cli(["aggregate", "runs/judged", "--check"], site, tmp)
    assert check.returncode == 0, check.stderr
    rows = [json.loads(x) for x in (tmp / "runs/judged/scores.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["scored", "scored", "unscored"]
    assert rows[2]["reason"] == "the toy judge's reply had no verdict"

    listed = _cli(["list", "measure"], site, tmp)
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout
    assert "toybench\n" in text and "  f1 " in text.split("toybench\n", 1)[1]
    taxo = text.split("taxobench\n", 1)[1].split("toybench\n", 1)[0]
    assert "  f1 " in taxo                     # two benchmarks, one measure name each
    assert "pooled over the run" in text and "[LLM judge]" in text
    report = _cli(["report", "runs/judged", "--format", "markdown", "--no-published"], site, tmp)
    assert report.returncode == 0, report.stderr
    assert "Toy benchmark (plug-in section)" in report.stdout
    assert "2 samples judged" in report.stdout
    assert "F1↑" in report.stdout and "46.15% ±" in report.stdout     # declared label, unit


def test_a_plugin_brings_its_own_data_kind(env):
    """`data import toybench FILE`: the toy's registered importer checks every item (one line
    naming the file and the field when one is wrong, exit 2) and `run` then reads the data."""
    site, user, tmp = env
    bad = tmp / "bad.json"
    bad.write_text(json.dumps([{"id": "x1", "topic": "t", "gold": ["A"]},
                               {"id": "x2", "topic": "t", "gold": [], "extra": 1}]))
    refused = _cli(["data", "import", "toybench", str(bad)], site, tmp)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.json" in lines[0] and "[1].gold" in lines[0], lines
    good = tmp / "items.json"
    good.write_text(json.dumps([{"id": "x1", "topic": "transformers",
                                 "gold": ["Attention Is All You Need"]}]))
    done = _cli(["data", "import", "toybench", str(good)], site, tmp)
    assert done.returncode == 0, done.stderr
    run = _cli(["run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve", "--out",
                "runs/imported", "--quiet"], site, tmp, user)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(x) for x in (tmp / "runs/imported/scores.jsonl").read_text().splitlines()]
    assert [(r["id"], r["hit@3"]) for r in rows] == [("x1", 1.0)]


def test_a_finished_run_is_kept_and_a_changed_one_scored_again(env):
    """Issue 37: `run` (or `eval`) on a run with nothing left to do keeps its scores.jsonl,
    summary.json and manifest as they are (no scoring: the files are not rewritten); a new
    answer or scores written by an older version (no recorded basis) score again, and the
    basis is then recorded (a changed option or judge: test_finished.py)."""
    site, user, tmp = env
    args = ["run", "toybench", "--task", "rank", "--agent", "mypkg_agent:solve", "--out",
            "runs/k", "--quiet"]
    assert _cli(args, site, tmp, user).returncode == 0
    run = tmp / "runs/k"
    manifest = json.loads((run / "manifest.json").read_text())
    basis = manifest["scored_from"]
    assert isinstance(basis, str) and len(basis) == 64
    files = {name: (run / name).stat().st_mtime_ns for name in
             ("scores.jsonl", "summary.json")}
    summary = (run / "summary.json").read_text()
    again = _cli(args, site, tmp, user)
    assert again.returncode == 0, again.stderr
    assert {n: (run / n).stat().st_mtime_ns for n in files} == files      # not rewritten
    assert (run / "summary.json").read_text() == summary
    kept = json.loads((run / "manifest.json").read_text())
    assert kept["scored_from"] == basis and kept["created"] == manifest["created"]
    # an older run's manifest (no basis): scored again, and the basis recorded
    del kept["scored_from"]
    (run / "manifest.json").write_text(json.dumps(kept))
    assert _cli(args, site, tmp, user).returncode == 0
    assert (run / "scores.jsonl").stat().st_mtime_ns != files["scores.jsonl"]
    assert json.loads((run / "manifest.json").read_text())["scored_from"] == basis
    # a retried answer (an errored sample made good) changes the answers: scored again
    lines = (run / "generate.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first.update(status="error", error="endpoint unreachable")
    first.pop("answer", None)
    (run / "generate.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    assert _cli(args, site, tmp, user).returncode == 0
    assert json.loads((run / "summary.json").read_text())["status"] == \
        json.loads(summary)["status"]
    assert json.loads((run / "manifest.json").read_text())["scored_from"] != basis
