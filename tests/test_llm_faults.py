"""Model faults and secrets against a scripted loopback server: invalid and truncated bodies are
retried and counted; a server that trickles bytes or hangs cannot hold a call past its deadline;
an error that echoes the Authorization header leaves the key in no file, cache, report or output;
keys go only to the endpoint they are configured for, never over plain http to another host;
URLs are recorded without their userinfo."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.llm.client import ChatClient, LLMCallError
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.secrets import redact, redact_url

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
KEY = "sk-planted-0123456789abcdefTESTKEY"
ASK = [{"role": "user", "content": "hello"}]


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def client(fake, **over) -> ChatClient:
    config = ModelConfig(role="agent", model="fake-model", base_url=fake.base_url,
                         api_key_env="PLANTED_KEY", max_retries=over.pop("max_retries", 3),
                         timeout=over.pop("timeout", 5.0), deadline=over.pop("deadline", 10.0),
                         source={"api_key_env": "flag"}, **over)
    return ChatClient(config, retry_wait=(0.01, 0.05))


def test_invalid_and_truncated_bodies_are_retried_and_every_attempt_counted(fake):
    ok = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": "fine"}}]})
    fake.push(Step(body=b'{"choices": [ oops'), Step(body=ok.encode()[:40]),
              Step(body=ok.encode()))
    c = client(fake)
    assert c.complete(ASK).text == "fine"
    usage = c.usage.as_dict()
    assert len(fake.requests) == 3
    assert usage["requests"] == 3 and usage["retries"] == 2 and usage["calls"] == 1
    fake.default = Step(body=b"<html>not json</html>")
    with pytest.raises(LLMCallError, match="gave up after 4 attempts"):
        c.complete([{"role": "user", "content": "again"}])
    usage = c.usage.as_dict()
    assert usage["requests"] == 3 + 4 and usage["failures"] == 1


@pytest.mark.parametrize("step", [Step(trickle=0.2), Step(delay=30)], ids=["trickle", "hang"])
def test_a_trickling_or_hanging_server_cannot_hold_a_call_past_its_deadline(fake, step):
    fake.default = step
    c = client(fake, timeout=1.0, deadline=2.5, max_retries=5)
    start = time.monotonic()
    with pytest.raises(LLMCallError, match="deadline|gave up"):
        c.complete(ASK)
    took = time.monotonic() - start
    assert took < 4.0, took
    usage = c.usage.as_dict()
    assert usage["requests"] == len(fake.requests) >= 1 and usage["failures"] == 1


def test_a_dead_endpoint_fails_fast_with_the_defaults():
    config = ModelConfig(role="agent", model="m", base_url="http://127.0.0.1:9/v1")
    start = time.monotonic()
    with pytest.raises(LLMCallError):
        ChatClient(config).complete(ASK)
    assert time.monotonic() - start < 45                 # refused: backoff only, 6 attempts


def test_keys_go_only_where_they_are_configured(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OTHER_KEY", KEY + "other")
    assert ModelConfig(role="judge", model="m").api_key() == KEY               # api.openai.com
    assert ModelConfig(role="judge", model="m",
                       base_url="https://api.openai.com/v1").api_key() == KEY
    with pytest.raises(Exception, match="is not sent there.*--judge-api-key-env"):
        ModelConfig(role="judge", model="m", base_url="https://judge.example/v1").api_key()
    # a loopback server gets no key unless one is named for it
    assert ModelConfig(role="agent", model="m",
                       base_url="http://127.0.0.1:8000/v1").api_key() == "sk-no-key"
    named = ModelConfig(role="agent", model="m", base_url="https://judge.example/v1",
                        api_key_env="OTHER_KEY")
    assert named.api_key() == KEY + "other"
    plain = ModelConfig(role="agent", model="m", base_url="http://judge.example/v1",
                        api_key_env="OTHER_KEY")
    with pytest.raises(Exception, match="plain http"):
        plain.api_key()
    assert ModelConfig(role="agent", model="m", base_url="http://judge.example/v1",
                       api_key_env="OTHER_KEY", allow_http_key=True).api_key() == KEY + "other"


def test_userinfo_is_never_recorded():
    url = "https://alice:s3cr3t-pass@llm.example/v1"
    config = ModelConfig(role="agent", model="m", base_url=url, api_key_env="X")
    assert config.public()["base_url"] == "https://llm.example/v1"
    assert "s3cr3t" not in ChatClient(config).model_id
    assert redact_url("http://u@[::1]:8080/x") == "http://[::1]:8080/x"
    assert "s3cr3t" not in redact(f"failed: POST {url}/chat/completions")


def test_redact_covers_bearer_headers_and_remembered_keys():
    from scholarbench.llm.secrets import remember
    remember("plain-secret-value-42")
    text = ("Authorization: Bearer abc.def-123456 | bearer zzzzzzzz | x-api-key: qwertyuiop | "
            "https://h/v1?api_key=XYZ123&x=1 | key plain-secret-value-42 | sk-abcdefghijklmnop")
    out = redact(text)
    for secret in ("abc.def-123456", "zzzzzzzz", "qwertyuiop", "XYZ123", "plain-secret-value-42",
                   "abcdefghijklmnop"):
        assert secret not in out, (secret, out)
    assert "&x=1" in out and redact("--agent-arg takes KEY=VALUE") == "--agent-arg takes KEY=VALUE"


def test_an_echoed_authorization_header_leaves_the_key_nowhere(tmp_path):
    """A run whose endpoint answers 401 with the request's Authorization header in the error:
    the sample is `error`, and the planted key is in no file under the run directory, the
    caches, the HTML report, nor the command's output."""
    from test_researcharena_fixtures import build_tiny
    corpus = tmp_path / "corpus"
    build_tiny(corpus)
    fake = FakeOpenAI(default=Step(echo_auth=True)).start()
    cache = tmp_path / "cache"
    env = dict(os.environ, PLANTED_KEY=KEY, SCHOLARBENCH_CACHE=str(cache),
               SCHOLARBENCH_DATA=str(tmp_path / "data"))
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), env.get("PYTHONPATH", "")])
    out = tmp_path / "run"
    try:
        run = subprocess.run(
            [sys.executable, "-m", "scholarbench", "run", "researcharena", "--task", "discovery",
             "--agent", "endpoint", "--model", "m", "--base-url", fake.base_url,
             "--api-key-env", "PLANTED_KEY", "--corpus", str(corpus), "--out", str(out),
             "--quiet"], env=env, capture_output=True, text=True, timeout=300)
        report = subprocess.run(
            [sys.executable, "-m", "scholarbench", "report", str(out), "--include-incomplete",
             "--html", str(tmp_path / "report.html")], env=env, capture_output=True, text=True,
            timeout=300)
    finally:
        fake.stop()
    sent = {r.get("messages", [{}])[0].get("content") for r in fake.requests}
    assert sent and run.returncode == 3, run.stderr[-2000:]
    gen = [json.loads(x) for x in (out / "generate.jsonl").read_text().splitlines()]
    assert all(g["status"] == "error" and "401" in g["error"] for g in gen)
    assert any("Bearer ***" in g["error"] or "***" in g["error"] for g in gen)
    places = [p for root in (out, cache, tmp_path) for p in root.rglob("*") if p.is_file()]
    assert (tmp_path / "report.html").exists() and len(places) > 5
    leaked = [str(p) for p in places if KEY.encode() in p.read_bytes()]
    assert leaked == []
    for stream in (run.stdout, run.stderr, report.stdout, report.stderr):
        assert KEY not in stream


def test_one_attempt_is_bounded_by_timeout_in_wall_clock(fake):
    """A server trickling a byte every 0.2 s never trips a socket read timeout; `timeout`
    still ends the attempt (and each retry) in wall-clock time, well before the deadline."""
    fake.default = Step(trickle=0.2)
    c = client(fake, timeout=1.0, deadline=30.0, max_retries=0)
    start = time.monotonic()
    with pytest.raises(LLMCallError, match="1 s attempt timeout"):
        c.complete(ASK)
    assert time.monotonic() - start < 3.0
    c = client(fake, timeout=1.0, deadline=30.0, max_retries=1)
    start = time.monotonic()
    with pytest.raises(LLMCallError, match="gave up after 2 attempts"):
        c.complete([{"role": "user", "content": "twice"}])
    assert time.monotonic() - start < 5.0
    assert c.usage.as_dict()["requests"] == 2 and c.usage.as_dict()["failures"] == 1


def test_a_redirect_to_another_host_is_refused_not_followed(fake):
    other = FakeOpenAI().start()
    try:
        port = other.base_url.rsplit(":", 1)[1].split("/")[0]
        for target in (f"http://localhost:{port}/v1/chat/completions",
                       f"{other.base_url}/chat/completions",           # same host, other port
                       "http://127.0.0.2:9/v1/chat/completions"):
            fake.push(Step(redirect=target))
            c = client(fake)
            with pytest.raises(LLMCallError, match="redirected to another host"):
                c.complete([{"role": "user", "content": target}])
            assert c.usage.as_dict()["requests"] == 1 and c.usage.as_dict()["failures"] == 1
        assert other.requests == []
        fake.push(Step(redirect=f"{fake.base_url}/chat/completions?moved=1"))   # same origin
        assert client(fake).complete([{"role": "user", "content": "same"}]).text == "ok"
    finally:
        other.stop()


@pytest.mark.parametrize("body", [
    {"choices": []}, {"choices": "abc"}, {"choices": [{"message": None}]},
    {"choices": [{"message": "text"}]}, {"choices": [{"message": {"content": 42}}]},
    {"choices": [{"message": {"content": "x", "tool_calls": [{"function": {"name": 7}}]}}]},
    [1, 2], "just a string"], ids=lambda b: json.dumps(b)[:40])
def test_a_reply_that_is_no_chat_completion_is_retried_then_a_counted_failure(fake, body):
    fake.default = Step(body=json.dumps(body).encode())
    c = client(fake, max_retries=1)
    with pytest.raises(LLMCallError, match="gave up after 2 attempts"):
        c.complete(ASK)
    usage = c.usage.as_dict()
    assert usage["requests"] == 2 and usage["failures"] == 1 and usage["calls"] == 0


@pytest.mark.parametrize("usage", [{"prompt_tokens": 1e308, "completion_tokens": 3},
                                   {"prompt_tokens": 5, "completion_tokens": -4},
                                   {"prompt_tokens": "12", "completion_tokens": 3},
                                   {"prompt_tokens": True, "completion_tokens": 3},
                                   {"prompt_tokens": 10**12, "completion_tokens": 3}])
def test_implausible_usage_is_counted_offline_with_a_counted_warning(fake, usage):
    from scholarbench.llm.tokens import count_message_tokens, count_tokens
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "fine"}}],
            "usage": usage}
    fake.default = Step(body=json.dumps(body).encode())
    c = client(fake)
    reply = c.complete(ASK)
    assert (reply.prompt_tokens, reply.completion_tokens) == (count_message_tokens(ASK),
                                                              count_tokens("fine"))
    totals = c.usage.as_dict()
    assert totals["warnings"] == 1 and totals["estimated_tokens"] > 0
    assert totals["prompt_tokens"] < 1000 and totals["failures"] == 0
    body["usage"] = {"prompt_tokens": 9.0, "completion_tokens": 2}      # integral: kept
    fake.default = Step(body=json.dumps(body).encode())
    reply = c.complete([{"role": "user", "content": "valid"}])
    assert (reply.prompt_tokens, reply.completion_tokens) == (9, 2)
    assert c.usage.as_dict()["warnings"] == 1


def test_a_reply_longer_than_the_cache_cap_is_not_cached(fake, tmp_path, monkeypatch):
    from scholarbench.llm import cache as cache_module
    monkeypatch.setattr(cache_module, "MAX_CACHED_CHARS", 1000)
    config = client(fake).config
    c = ChatClient(config, cache=cache_module.ReplyCache(tmp_path / "c.sqlite"),
                   retry_wait=(0.01, 0.05))
    fake.default = Step(text="x" * 5000)
    assert c.complete(ASK).text == "x" * 5000
    assert len(c.cache) == 0 and c.usage.as_dict()["warnings"] == 1
    assert c.complete(ASK).cached is False and len(fake.requests) == 2
    fake.default = Step(text="short")
    c.complete([{"role": "user", "content": "small"}])
    assert len(c.cache) == 1 and c.complete([{"role": "user", "content": "small"}]).cached
