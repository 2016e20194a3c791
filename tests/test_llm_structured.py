"""JSON replies: strict parsing, one repair turn, then "unscored" with a reason — never a crash."""
from __future__ import annotations

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.structured import ask_json, parse_json_strict

MSG = [{"role": "user", "content": "three statuses please"}]


def three_items(value):
    if not isinstance(value, list) or len(value) != 3:
        raise ValueError(f"expected a list of 3 items, got {value!r}")
    return value


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def client(fake):
    config = ModelConfig(role="judge", model="fake", base_url=fake.base_url, max_retries=1)
    return ChatClient(config, retry_wait=(0.01, 0.02))


def test_parse_is_strict_but_accepts_one_fence():
    assert parse_json_strict('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_strict(' [1, 2] ') == [1, 2]
    with pytest.raises(ValueError):
        parse_json_strict('Sure! Here it is: {"a": 1}')


def test_good_reply_first_time(fake, client):
    fake.push(Step(text='["a", "b", "c"]'))
    outcome = ask_json(client, MSG, validate=three_items)
    assert outcome.ok and outcome.value == ["a", "b", "c"] and outcome.attempts == 1


def test_malformed_then_repaired(fake, client):
    fake.push(Step(text='["a", "b",'), Step(text='["a", "b", "c"]'))
    outcome = ask_json(client, MSG, validate=three_items)
    assert outcome.ok and outcome.attempts == 2
    repair = fake.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '["a", "b",'}
    assert "not valid JSON" in repair[-1]["content"]


def test_wrong_length_twice_is_unscored_with_reason(fake, client):
    fake.push(Step(text='["a"]'), Step(text='["a", "b"]'))
    outcome = ask_json(client, MSG, validate=three_items)
    assert not outcome.ok and outcome.value is None
    assert "expected a list of 3 items" in outcome.unscored


def test_failed_call_is_unscored_not_raised(fake, client):
    fake.default = Step(status=500)
    outcome = ask_json(client, MSG, validate=three_items)
    assert not outcome.ok and outcome.unscored.startswith("call failed")


def test_schema_is_sent_and_rejection_falls_back(fake, client):
    fake.push(Step(status=400), Step(text='["a", "b", "c"]'))
    schema = {"type": "array", "items": {"type": "string"}}
    outcome = ask_json(client, MSG, validate=three_items, schema=schema, name="statuses")
    assert outcome.ok
    assert fake.requests[0]["response_format"]["type"] == "json_schema"
    assert fake.requests[0]["response_format"]["json_schema"]["schema"] == schema
    assert fake.requests[1]["response_format"] == {"type": "json_object"}
    assert client.json_mode == "object"


def test_a_reply_that_did_not_parse_is_not_served_from_the_cache(fake, tmp_path):
    """Only usable replies stay cached: asking again re-sends what was unscored, while a good
    reply is served from the cache (no request)."""
    from scholarbench.llm.cache import ReplyCache
    config = ModelConfig(role="judge", model="fake", base_url=fake.base_url, max_retries=1)
    cached = ChatClient(config, cache=ReplyCache(tmp_path / "c.sqlite"), retry_wait=(0.01, 0.02))
    fake.push(Step(text="no idea"), Step(text="still no idea"))
    assert not ask_json(cached, MSG, validate=three_items).ok
    assert len(fake.requests) == 2
    fake.push(Step(text='["a", "b", "c"]'))
    again = ask_json(cached, MSG, validate=three_items)
    assert again.ok and again.value == ["a", "b", "c"] and len(fake.requests) == 3
    third = ask_json(cached, MSG, validate=three_items)
    assert third.value == ["a", "b", "c"] and len(fake.requests) == 3    # the verdict, cached
