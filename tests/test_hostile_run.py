"""One bad sample never stops the suite: an agent that answers with a lone surrogate, puts a set,
a cycle, a non-string key or an int past Python's digit limit in its `info`, calls sys.exit(0),
raises KeyboardInterrupt, or fails with a message JSON cannot write — `eval` on two benchmarks
finishes both, writes eval.json and exits 3; a re-run does not crash and retries only the
errored samples. The user's Ctrl-C still stops the run (exit 130, no traceback, resumable);
two `eval`s on one --out leave an eval.json that agrees with every run directory."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parent / "plugins"
SRC = Path(__file__).resolve().parents[1] / "src"

BENCH = textwrap.dedent('''
    """Two toy benchmarks whose records keep the agent's `info` (as SciNet's and
    ResearchArena's do), one item per hostile behaviour (the item's topic)."""
    from scholarbench.core import Loaded, Sample, Task
    from toybench import ToyBench

    TOPICS = ["ok", "surrogate", "set_info", "cycle_info", "bigint_info", "key_info", "exit",
              "interrupt", "surrogate_error"]


    class HostileA(ToyBench):
        name = "hostile-a"

        def load(self, subtask, limit):
            samples = [Sample(f"h{i}", Task(id=f"h{i}", benchmark=self.name, subtask=subtask,
                                            family="ranking", prompt=t, fields={"topic": t}),
                              gold=["gcn"]) for i, t in enumerate(TOPICS, 1)]
            return Loaded(samples[:limit] if limit is not None else samples, {})

        def record(self, sample, answer):
            out = super().record(sample, answer)
            if isinstance(answer, dict) and "info" in answer:
                out["info"] = answer["info"]
            return out


    class HostileB(HostileA):
        name = "hostile-b"
''')

AGENT = textwrap.dedent('''
    """A user's agent that does everything an agent should not (by the task's topic)."""
    import os
    import sys
    import time


    def solve(task):
        topic = task["topic"]
        if os.environ.get("HOSTILE_WAIT_FOR"):       # hold the run until the test says go
            deadline = time.time() + 120
            while not os.path.exists(os.environ["HOSTILE_WAIT_FOR"]) and time.time() < deadline:
                time.sleep(0.05)
        if topic != "ok" and os.environ.get("HOSTILE_SLEEP"):
            time.sleep(float(os.environ["HOSTILE_SLEEP"]))
        if os.environ.get("HOSTILE_CALM"):
            return {"papers": ["GCN"]}
        info = {}
        if topic == "surrogate":
            return {"papers": ["GCN \\ud800"]}
        if topic == "set_info":
            info = {"seen": {1, 2}}
        if topic == "cycle_info":
            info["self"] = info
        if topic == "bigint_info":
            info = {"n": 10 ** 5000}
        if topic == "key_info":
            info = {(1, 2): "tuple key"}
        if topic == "exit":
            sys.exit(0)
        if topic == "interrupt":
            raise KeyboardInterrupt
        if topic == "surrogate_error":
            raise ValueError("bad \\udc80 byte")
        return {"papers": ["GCN"], "info": info}
''')
EVAL = ["eval", "--agent", "hostile_agent:solve", "--benchmarks", "hostile-a,hostile-b",
        "--out", "runs/h", "--quiet"]
RUNS = ("hostile-a-rank", "hostile-b-rank")


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    info = site / "hostilebench-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostilebench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[scholarbench.benchmarks]\nhostile-a = hostilebench:HostileA\n"
        "hostile-b = hostilebench:HostileB\n")
    (site / "hostilebench.py").write_text(BENCH)
    (site / "hostile_agent.py").write_text(AGENT)
    return site


def _env(site: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOSTILE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(site), str(PLUGINS),
                                         env.get("PYTHONPATH", "")])
    env["SCHOLARBENCH_DATA"] = str(site.parent / "data")
    return {**env, **extra}


def _cli(args: list[str], site: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scholarbench", *args], cwd=site.parent,
                          env=_env(site, **extra), capture_output=True, text=True, timeout=300)


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _by_id(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in _lines(path)}


@pytest.mark.parametrize("max_samples", ["1", "4"])
def test_hostile_answers_never_stop_the_suite_and_resume_does_not_crash(site, max_samples):
    done = _cli(EVAL + ["--max-samples", max_samples], site)
    assert done.returncode == 3, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    report = json.loads((site.parent / "runs/h/eval.json").read_text())
    assert [(r["benchmark"], r["status"], r["samples"], r["scored"], r["errors"],
             r["malformed"]) for r in report["runs"]] == [
        ("hostile-a", "incomplete", 9, 5, 3, 1), ("hostile-b", "incomplete", 9, 5, 3, 1)]
    assert "4 sample(s) had their agent info dropped" in done.stderr
    for name in RUNS:
        gen = _by_id(site.parent / "runs/h" / name / "generate.jsonl")
        assert gen["h1"]["info"] == {} and "status" not in gen["h1"]
        assert gen["h2"]["status"] == "malformed"
        assert "answer is not JSON: a string holds a lone surrogate" in gen["h2"]["error"]
        for sid, why in (("h3", "set"), ("h4", "Circular reference"),
                         ("h5", "digits"), ("h6", "keys must be")):
            assert "info" not in gen[sid] and why in gen[sid]["info_dropped"], gen[sid]
            assert gen[sid]["answer"] == {"papers": ["GCN"]}
        assert gen["h7"]["status"] == "error" and "SystemExit" in gen["h7"]["error"]
        assert gen["h8"]["status"] == "error" and "KeyboardInterrupt" in gen["h8"]["error"]
        assert gen["h9"]["status"] == "error" and "\\udc80" in gen["h9"]["error"]
        rows = _by_id(site.parent / "runs/h" / name / "scores.jsonl")
        assert rows["h3"]["status"] == "scored" and rows["h3"]["hit@3"] == 1.0

    again = _cli(EVAL + ["--max-samples", max_samples], site)       # same agent: same errors
    assert again.returncode == 3 and "Traceback" not in again.stderr, again.stderr[-3000:]
    calm = _cli(EVAL + ["--max-samples", max_samples], site, HOSTILE_CALM="1")
    assert calm.returncode == 0, calm.stderr[-3000:]
    report = json.loads((site.parent / "runs/h/eval.json").read_text())
    assert [(r["status"], r["errors"], r["malformed"]) for r in report["runs"]] == [
        ("complete", 0, 1)] * 2        # the malformed answer is a result: not redone
    ids = [r["id"] for r in _lines(site.parent / "runs/h" / RUNS[0] / "generate.jsonl")]
    assert len(ids) == 9 + 3 + 3 and ids.count("h2") == 1 and ids.count("h7") == 3


@pytest.mark.parametrize("max_samples, stop, code", [
    ("1", signal.SIGINT, 130), ("4", signal.SIGINT, 130), ("1", signal.SIGTERM, 143)])
def test_ctrl_c_stops_the_run_at_once_and_it_resumes(site, max_samples, stop, code):
    """Samples still in flight (asleep for a minute) neither hold the exit back nor are
    recorded as errors (the agent's own KeyboardInterrupt / SystemExit would be)."""
    gen = site.parent / "runs/h" / RUNS[0] / "generate.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "scholarbench", *EVAL, "--max-samples", max_samples],
        cwd=site.parent,
        env=_env(site, HOSTILE_CALM="1", HOSTILE_SLEEP="60"), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    deadline = time.time() + 120
    while not (gen.exists() and gen.read_text()) and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)                  # the second sample is asleep in the agent
    proc.send_signal(stop)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert ("interrupted" in err) == (stop == signal.SIGINT)
    assert [r["id"] for r in _lines(gen)] == ["h1"]        # not recorded as the sample's error
    assert not (site.parent / "runs/h" / RUNS[1]).exists()  # the suite stopped
    done = _cli(EVAL, site, HOSTILE_CALM="1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert [r["id"] for r in _lines(gen)][:2] == ["h1", "h2"]


def test_two_evals_on_one_out_leave_an_eval_json_that_matches_the_run_dirs(site):
    """The first eval is held inside its first run (its agent waits for a file) until the
    second has found that run locked, so they collide however loaded the machine is."""
    go, second_err = site.parent / "go", site.parent / "second.err"
    first = subprocess.Popen([sys.executable, "-m", "scholarbench", *EVAL], cwd=site.parent,
                             env=_env(site, HOSTILE_CALM="1", HOSTILE_WAIT_FOR=str(go)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    manifest = site.parent / "runs/h" / RUNS[0] / "manifest.json"
    deadline = time.time() + 120
    while not manifest.exists() and time.time() < deadline:     # the first holds run A
        time.sleep(0.05)
    with second_err.open("w") as err:
        second = subprocess.Popen([sys.executable, "-m", "scholarbench", *EVAL],
                                  cwd=site.parent, env=_env(site, HOSTILE_CALM="1"),
                                  stdout=subprocess.PIPE, stderr=err, text=True)
        while ("in use by another scholarbench process" not in second_err.read_text()
               and second.poll() is None and time.time() < deadline + 120):
            time.sleep(0.05)
        go.write_text("")
        outs = [first.communicate(timeout=300), second.communicate(timeout=300)]
    procs = [first, second]
    errs = "\n".join([outs[0][1], second_err.read_text()])
    assert "in use by another scholarbench process" in errs      # they did collide
    assert [p.returncode for p in procs] == [0, 0], errs
    report = json.loads((site.parent / "runs/h/eval.json").read_text())
    for entry, name in zip(report["runs"], RUNS):
        summary = json.loads((site.parent / "runs/h" / name / "summary.json").read_text())
        assert entry["status"] == "complete" and summary["complete"] is True
        assert (entry["samples"], entry["scored"]) == (summary["n_samples"],
                                                       summary["status"]["scored"])


@pytest.mark.parametrize("benchmarks", [",,,", "", " , "])
def test_an_empty_benchmark_list_is_a_usage_error(site, benchmarks):
    done = _cli(["eval", "--agent", "hostile_agent:solve", "--benchmarks", benchmarks,
                 "--out", "runs/e", "--quiet"], site, HOSTILE_CALM="1")
    assert done.returncode == 2 and "names no benchmark" in done.stderr, done.stderr
    assert not (site.parent / "runs/e").exists()


@pytest.mark.parametrize("flag, url", [
    ("--base-url", "file:///etc/passwd"), ("--base-url", "not a url"),
    ("--base-url", "http://"), ("--judge-base-url", "http://127.0.0.1:99999999/v1"),
    ("--base-url", "ftp://example.org/v1")])
def test_a_bad_base_url_is_a_usage_error(site, flag, url):
    done = _cli(EVAL + [flag, url], site, HOSTILE_CALM="1")
    assert done.returncode == 2, done.stderr
    assert f"{flag}: an OpenAI-compatible endpoint is an http:// or https:// URL" in done.stderr
    assert "Traceback" not in done.stderr and not (site.parent / "runs/h").exists()


def test_a_bad_base_url_in_the_environment_is_a_usage_error(site):
    done = _cli(EVAL, site, HOSTILE_CALM="1", SCHOLARBENCH_JUDGE_BASE_URL="file:///tmp/x")
    assert done.returncode == 2, done.stderr
    assert "$SCHOLARBENCH_JUDGE_BASE_URL: an OpenAI-compatible endpoint is an" in done.stderr


@pytest.mark.parametrize("value", ["0", "-1", "many", "99999999999999999999", "1.5"])
def test_a_bad_torch_thread_count_is_a_usage_error(site, value):
    done = _cli(EVAL, site, HOSTILE_CALM="1", SCHOLARBENCH_TORCH_THREADS=value)
    assert done.returncode == 2, done.stderr
    assert "$SCHOLARBENCH_TORCH_THREADS must be a whole number" in done.stderr
    assert not (site.parent / "runs/h").exists()


def test_the_writer_never_raises_on_a_record(tmp_path):
    """The policy on its own: a record JSON cannot write becomes one it can, never a raise;
    a tool call JSON cannot write keeps its place in the trajectory."""
    from scholarbench.core.rundir import RunDir
    from scholarbench.core.writing import write_record, write_trajectory
    run = RunDir(tmp_path)
    deep: dict = {}
    node = deep
    for _ in range(100_000):                  # past the recursion limit
        node["x"] = node = {}
    hostile = [{"id": "a", "answer": {"papers": ["\ud800"]}, "seconds": 0.5,
                "usage": {"calls": 2}},
               {"id": "b", "status": "error", "error": "judge raised: \udcff"},
               {"id": "c", "answer": {"papers": []}, "info": {"deep": deep}},
               {"id": "d", "answer": {"x": deep}, "info": {"n": 10 ** 5000}}]
    warnings = [write_record(run, "g.jsonl", r) for r in hostile]
    assert [w is not None for w in warnings] == [False, False, True, False]
    got = _by_id(tmp_path / "g.jsonl")
    assert got["a"] == {"id": "a", "status": "malformed", "seconds": 0.5, "usage": {"calls": 2},
                        "error": "answer is not JSON: a string holds a lone surrogate "
                                 "('\\ud800'), which is not UTF-8"}
    assert got["b"] == {"id": "b", "status": "error", "error": "judge raised: \\udcff"}
    assert "RecursionError" in got["c"]["info_dropped"] and got["c"]["answer"] == {"papers": []}
    assert got["d"]["status"] == "malformed" and "RecursionError" in got["d"]["error"]
    write_trajectory(run, "t.jsonl", "a", [{"step": 1, "tool": "search", "arguments": {}},
                                           {"step": 2, "tool": "search",
                                            "arguments": {"q": "\ud800"}}])
    calls = _by_id(tmp_path / "t.jsonl")["a"]["calls"]
    assert calls[0] == {"step": 1, "tool": "search", "arguments": {}}
    assert calls[1]["step"] == 2 and "lone surrogate" in calls[1]["error"]
