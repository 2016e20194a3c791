"""The chat client against a scripted OpenAI-compatible server on 127.0.0.1: retries, cache,
accounting, concurrency, and that API keys never reach files."""
from __future__ import annotations

import json
import threading

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.llm.cache import CachedReply, ReplyCache, cache_key
from scholarbench.llm.client import ChatClient, LLMCallError
from scholarbench.llm.config import ModelConfig

MSG = [{"role": "user", "content": "hello"}]


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def make_client(fake, tmp_path=None, **overrides) -> ChatClient:
    config = ModelConfig(role="agent", model="fake-model", base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=overrides.pop("timeout", 5.0),
                         max_retries=overrides.pop("max_retries", 3),
                         concurrency=overrides.pop("concurrency", 4), **overrides)
    cache = ReplyCache(tmp_path / "cache.sqlite") if tmp_path else None
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.05))


def test_reply_and_usage(fake):
    fake.push(Step(text="hi there"))
    client = make_client(fake)
    reply = client.complete(MSG)
    assert reply.text == "hi there" and not reply.cached
    assert client.usage.as_dict()["calls"] == 1
    assert (reply.prompt_tokens, reply.completion_tokens) == (11, 7)
    assert fake.requests[0]["model"] == "fake-model"
    assert fake.requests[0]["messages"] == MSG


@pytest.mark.parametrize("failures", [
    [Step(status=429)], [Step(status=500), Step(status=503)], [Step(drop=True)],
    [Step(status=429, retry_after=0.01), Step(status=502)]])
def test_transient_failures_are_retried_and_succeed(fake, failures):
    fake.push(*failures, Step(text="finally"))
    client = make_client(fake)
    assert client.complete(MSG).text == "finally"
    assert client.usage.retries == len(failures)
    assert len(fake.requests) == len(failures) + 1


def test_slow_reply_times_out_and_is_retried(fake):
    fake.push(Step(text="late", delay=1.5), Step(text="on time"))
    client = make_client(fake, timeout=0.5)
    assert client.complete(MSG).text == "on time"
    assert client.usage.retries == 1


def test_gives_up_after_max_retries_with_a_clear_error(fake):
    fake.default = Step(status=500)
    client = make_client(fake, max_retries=2)
    with pytest.raises(LLMCallError, match="gave up after 3 attempts.*500"):
        client.complete(MSG)
    assert len(fake.requests) == 3 and client.usage.failures == 1


def test_client_errors_are_not_retried(fake):
    fake.push(Step(status=400))
    client = make_client(fake)
    with pytest.raises(LLMCallError, match="400"):
        client.complete(MSG)
    assert len(fake.requests) == 1


def test_second_identical_run_makes_zero_model_calls(fake, tmp_path):
    first = make_client(fake, tmp_path)
    texts = [first.complete([{"role": "user", "content": f"q{i}"}]).text for i in range(5)]
    assert first.usage.calls == 5 and len(fake.requests) == 5
    second = make_client(fake, tmp_path)       # a new process would open the same file
    again = [second.complete([{"role": "user", "content": f"q{i}"}]).text for i in range(5)]
    assert again == texts
    assert second.usage.calls == 0 and second.usage.cache_hits == 5
    assert len(fake.requests) == 5


def test_cache_key_ignores_timeouts_and_concurrency_but_not_sampling(fake, tmp_path):
    make_client(fake, tmp_path).complete(MSG)
    other = make_client(fake, tmp_path, timeout=99.0, concurrency=1, max_retries=0)
    assert other.complete(MSG).cached
    assert not other.complete(MSG, temperature=0.7).cached
    assert not other.complete(MSG, seed=7).cached
    assert not other.complete(MSG, response_format={"type": "json_object"}).cached


def test_missing_usage_is_counted_offline(fake):
    fake.push(Step(text="a reply of several tokens", usage=False))
    client = make_client(fake)
    reply = client.complete(MSG)
    assert reply.completion_tokens >= 4 and reply.prompt_tokens > 0
    assert client.usage.estimated_tokens == reply.prompt_tokens + reply.completion_tokens


def test_cost_is_computed_only_when_priced(fake):
    unpriced = make_client(fake)
    unpriced.complete(MSG)
    assert unpriced.usage.cost_usd is None
    priced = make_client(fake, price_input_per_mtok=2.0, price_output_per_mtok=10.0)
    priced.complete(MSG)
    assert priced.usage.cost_usd == pytest.approx((11 * 2.0 + 7 * 10.0) / 1e6)


def test_concurrency_limit_holds(fake):
    fake.default = Step(text="x", delay=0.2)
    client = make_client(fake, concurrency=2)
    threads = [threading.Thread(target=client.complete,
                                args=([{"role": "user", "content": str(i)}],)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fake.max_in_flight == 2 and client.usage.calls == 6


def test_api_key_never_reaches_cache_or_manifest(fake, tmp_path, monkeypatch):
    secret = "sk-test-SECRET-0123456789"
    monkeypatch.setenv("FAKE_KEY_FOR_TESTS", secret)
    client = make_client(fake, tmp_path)
    client.complete(MSG)
    from scholarbench.llm.roles import LLMRoles
    roles = LLMRoles(agent=client)
    client.cache.close()
    assert secret.encode() not in (tmp_path / "cache.sqlite").read_bytes()
    assert secret not in json.dumps(roles.manifest_entry()) + json.dumps(roles.usage())


def test_remote_model_without_key_fails_clearly(monkeypatch):
    monkeypatch.delenv("SOME_UNSET_KEY", raising=False)
    config = ModelConfig(role="judge", model="gpt-x", base_url="https://api.example.invalid/v1",
                         api_key_env="SOME_UNSET_KEY")
    with pytest.raises(Exception, match=r"\$SOME_UNSET_KEY"):
        config.api_key()


def test_a_connect_callback_runs_once_on_the_first_cache_miss(fake, tmp_path):
    """The local model's server starts on the first cache miss only, once for every attempt
    and every concurrent call."""
    started = []

    def connect() -> str:
        started.append(1)
        return fake.base_url
    config = ModelConfig(role="agent", model="local", max_retries=0)
    cache = ReplyCache(tmp_path / "cache.sqlite")
    cache_first = ChatClient(config, cache=cache, connect=connect, model_id="local|x")
    cache.put(cache_key(model_id="local|x", messages=MSG, params=cache_first.params()),
              "local|x", CachedReply("hit", 1, 1))
    assert cache_first.complete(MSG).text == "hit" and started == []
    threads = [threading.Thread(target=cache_first.complete,
                                args=([{"role": "user", "content": str(i)}],)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert started == [1] and cache_first.usage.as_dict()["calls"] == 6
