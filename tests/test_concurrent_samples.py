"""Samples at once (`--max-samples`): the same run at N=1 and N=16 against the scripted endpoint
gives byte-identical scores, the same generate records and the same usage; the agent role's
concurrency still bounds the calls in flight; a failed model call is charged to its own sample
only; identical requests in flight are sent once; the pool keeps at most N running and stops
starting new ones when closed; a killed concurrent run resumes without a lost or repeated
sample."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step

PLUGINS = Path(__file__).parent / "plugins"
N_ITEMS = 40


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _items(path: Path, n: int = N_ITEMS) -> Path:
    items = [{"id": f"t{i:02d}", "topic": f"topic {i}",
              "gold": [f"paper {i}-{j}" for j in range(3)]} for i in range(n)]
    path.write_text(json.dumps(items))
    return path


def _reply(body: dict) -> Step:
    """Per sample: a different subset of its gold (so scores differ by sample) and a different
    delay (so samples finish out of order when run at once), at least 50 ms (so that 16 samples
    at once overlap at the server even on a loaded machine: with 0–30 ms, CI once saw 4)."""
    prompt = body["messages"][-1]["content"]
    topic = prompt.removeprefix("Name papers on ").rstrip(".")
    i, h = int(topic.split()[-1]), _digest(prompt)
    picked = [f"paper {i}-{j}" for j in range(3) if (h >> j) & 1] + [f"noise {h % 97}"]
    return Step(text="\n".join(f"{k}. {t}" for k, t in enumerate(picked, 1)),
                delay=0.05 + 0.005 * (h % 7))


@pytest.fixture()
def toybench(monkeypatch):
    """The toy plug-in, imported here; its registrations are undone after the test (other
    tests compare the registry's benchmarks with a CLI that has no plug-in)."""
    from scholarbench.core.registry import REGISTRY
    REGISTRY.load()                          # fully loaded first, so the copy misses nothing
    monkeypatch.setattr(REGISTRY, "_entries", {k: dict(v) for k, v in REGISTRY._entries.items()})
    monkeypatch.setattr(REGISTRY, "_meta", dict(REGISTRY._meta))
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.delitem(sys.modules, "toybench", raising=False)
    import toybench as module
    yield module
    sys.modules.pop("toybench", None)


@pytest.fixture()
def fake():
    server = FakeOpenAI(default=_reply).start()
    yield server
    server.stop()


def _client(fake, concurrency: int, cache=None):
    from scholarbench.llm.client import ChatClient
    from scholarbench.llm.config import ModelConfig
    config = ModelConfig(role="agent", model="fake-model", base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=1,
                         concurrency=concurrency)
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.02))


def _run(toybench, items: Path, out: Path, agent: str, client, n: int | None, **params):
    from scholarbench.core.engine import Models, run_benchmark
    bench = toybench.ToyBench({"items": str(items)})
    return run_benchmark(bench, "rank", agent, out, params=params,
                         models=Models.given(agent=client), progress=False, max_samples=n)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def _records(path: Path) -> dict[str, dict]:
    out = {}
    for line in _lines(path):
        rec = json.loads(line)
        rec.pop("seconds")
        out[rec["id"]] = rec
    return out


def test_n1_and_n16_give_identical_scores_records_and_usage(toybench, fake, tmp_path,
                                                            monkeypatch):
    monkeypatch.setenv("FAKE_KEY_FOR_TESTS", "sk-fake")
    items = _items(tmp_path / "items.json")
    runs = {}
    for n in (1, 16):
        fake.max_in_flight = 0
        outcome = _run(toybench, items, tmp_path / f"n{n}", "endpoint", _client(fake, 16), n)
        assert outcome.exit_code == 0
        runs[n] = (tmp_path / f"n{n}", fake.max_in_flight)
    (one, in_flight_1), (sixteen, in_flight_16) = runs[1], runs[16]
    assert in_flight_1 == 1 and in_flight_16 > 4        # it did run samples at once
    assert sorted(_lines(one / "scores.jsonl")) == sorted(_lines(sixteen / "scores.jsonl"))
    assert _lines(one / "scores.jsonl") == _lines(sixteen / "scores.jsonl")  # sample order
    scores = [json.loads(x)["hit@3"] for x in _lines(one / "scores.jsonl")]
    assert len(set(scores)) > 2                          # answers differ by sample
    assert _records(one / "generate.jsonl") == _records(sixteen / "generate.jsonl")
    order = [json.loads(x)["id"] for x in _lines(sixteen / "generate.jsonl")]
    assert sorted(order) == sorted(_records(one / "generate.jsonl"))   # each once
    manifests = [json.loads((d / "manifest.json").read_text()) for d in (one, sixteen)]
    assert manifests[0]["usage"] == manifests[1]["usage"]
    assert manifests[1]["usage"]["generate"]["agent"]["calls"] == N_ITEMS
    assert [m["max_samples"] for m in manifests] == [1, 16]
    summaries = [json.loads((d / "summary.json").read_text())["metrics"] for d in (one, sixteen)]
    assert summaries[0] == summaries[1]
    assert _records(one / "generate.jsonl")["t00"]["usage"]["calls"] == 1


def test_the_roles_concurrency_still_bounds_calls_in_flight(toybench, fake, tmp_path,
                                                            monkeypatch):
    monkeypatch.setenv("FAKE_KEY_FOR_TESTS", "sk-fake")
    items = _items(tmp_path / "items.json", 24)
    outcome = _run(toybench, items, tmp_path / "run", "endpoint", _client(fake, 3), 16)
    assert outcome.exit_code == 0 and 1 < fake.max_in_flight <= 3


class FallbackAgent:
    """Falls back on a fixed answer when its model call fails (a real agent pattern): the
    engine must mark that sample `error`, and only that one."""
    name = "fallback"

    def __init__(self) -> None:
        from scholarbench.core.agent import Needs
        self.needs = Needs(llm=True)

    def fits(self, benchmark, subtask, family):
        return True

    def config(self):
        return {}

    def solve(self, task, ctx):
        from scholarbench.llm.client import LLMCallError
        try:
            text = ctx.llm.complete([{"role": "user", "content": task.prompt}]).text
        except LLMCallError:
            return {"papers": ["fallback"]}
        return {"papers": [line.split(". ", 1)[1] for line in text.splitlines()]}


def test_a_failed_call_is_charged_to_its_own_sample_only(toybench, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY_FOR_TESTS", "sk-fake")
    failing = {"topic 3", "topic 11", "topic 17"}

    def reply(body: dict) -> Step:
        prompt = body["messages"][-1]["content"]
        if any(prompt == f"Name papers on {t}." for t in failing):
            return Step(status=500)             # fails fast, while the others are in flight
        step = _reply(body)
        step.delay = 0.2
        return step
    server = FakeOpenAI(default=reply).start()
    try:
        items = _items(tmp_path / "items.json", 24)
        outcome = _run(toybench, items, tmp_path / "run", f"{__name__}:FallbackAgent",
                       _client(server, 16), 16)
    finally:
        server.stop()
    rows = {json.loads(x)["id"]: json.loads(x) for x in _lines(tmp_path / "run/scores.jsonl")}
    errored = {k for k, r in rows.items() if r["status"] == "error"}
    assert errored == {"t03", "t11", "t17"} and outcome.n_errors == 3
    gen = _records(tmp_path / "run/generate.jsonl")
    assert gen["t03"]["usage"]["failures"] == 1 and gen["t04"]["usage"]["failures"] == 0


def test_identical_requests_in_flight_are_sent_once(tmp_path, monkeypatch):
    from scholarbench.llm.cache import ReplyCache
    monkeypatch.setenv("FAKE_KEY_FOR_TESTS", "sk-fake")
    server = FakeOpenAI(default=Step(text="same", delay=0.2)).start()
    try:
        client = _client(server, 8, ReplyCache(tmp_path / "cache.sqlite"))
        replies = []
        threads = [threading.Thread(target=lambda: replies.append(
            client.complete([{"role": "user", "content": "one question"}])))
            for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.stop()
    assert len(server.requests) == 1
    assert sorted(r.cached for r in replies) == [False] + [True] * 5
    usage = client.usage.as_dict()
    assert (usage["calls"], usage["cache_hits"]) == (1, 5)


def test_the_pool_keeps_at_most_n_running_and_stops_starting_when_closed():
    from scholarbench.core.concurrency import in_flight
    lock, state = threading.Lock(), {"now": 0, "max": 0, "started": 0}

    def work(i: int) -> int:
        with lock:
            state["now"] += 1
            state["started"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.01 * (i % 3))
        with lock:
            state["now"] -= 1
        return i * i
    results = dict(in_flight(range(30), work, 4))
    assert results == {i: i * i for i in range(30)} and state["max"] == 4
    state.update(started=0)
    gen = in_flight(range(100), work, 4)
    for _ in range(5):
        next(gen)
    gen.close()
    time.sleep(0.1)
    assert 5 <= state["started"] <= 9          # the ones running finish; no new ones start


def test_default_samples_at_once_follows_the_endpoint_and_the_agent():
    from types import SimpleNamespace

    from scholarbench.core.concurrency import samples_at_once
    from scholarbench.errors import ScholarbenchError
    llm = SimpleNamespace(config=SimpleNamespace(concurrency=6))
    plain, single = SimpleNamespace(), SimpleNamespace(max_samples=1)
    assert samples_at_once(None, plain, llm) == 6        # the role's own concurrency
    assert samples_at_once(None, plain, None) == 1       # no model of ours: one at a time
    assert samples_at_once(16, plain, None) == 16
    assert samples_at_once(16, single, llm) == 1         # an agent that is not thread-safe
    from scholarbench.core.concurrency import check_max_samples
    with pytest.raises(ScholarbenchError, match="at least 1"):
        check_max_samples(0)


SLOW_AGENT = '''
import hashlib, time


def solve(task):
    time.sleep(0.05 + (int(hashlib.md5(task["id"].encode()).hexdigest(), 16) % 5) * 0.02)
    return {"papers": ["paper " + task["topic"].split()[-1] + "-0"]}
'''


def test_a_killed_concurrent_run_resumes_without_a_lost_or_repeated_sample(tmp_path):
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "slow_agent.py").write_text(SLOW_AGENT)
    items = _items(tmp_path / "items.json", 60)
    env = dict(os.environ, SCHOLARBENCH_DATA=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([str(PLUGINS), str(tmp_path / "user"),
                                           os.environ.get("PYTHONPATH", "")]))
    site = tmp_path / "site" / "toybench-0.1.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n")
    (site / "entry_points.txt").write_text("[scholarbench.benchmarks]\ntoybench = "
                                           "toybench:ToyBench\n")
    env["PYTHONPATH"] = str(tmp_path / "site") + os.pathsep + env["PYTHONPATH"]
    cmd = [sys.executable, "-m", "scholarbench", "run", "toybench", "--task", "rank",
           "--items", str(items), "--agent", "slow_agent:solve", "--max-samples", "8",
           "--out", str(tmp_path / "run"), "--quiet"]
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    gen = tmp_path / "run" / "generate.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not gen.exists() or len(_lines(gen)) < 10):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = len(_lines(gen))
    assert 10 <= before < 60
    done = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    ids = [json.loads(x)["id"] for x in _lines(gen)]
    assert sorted(ids) == sorted(f"t{i:02d}" for i in range(60))      # none lost, none twice
    rows = [json.loads(x) for x in _lines(tmp_path / "run" / "scores.jsonl")]
    assert len(rows) == 60 and all(r["hit@3"] == pytest.approx(1 / 3) for r in rows)
