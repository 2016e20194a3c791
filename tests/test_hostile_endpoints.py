"""Where a key goes, and with what (issue 34), against a recording server on 127.0.0.1 that
keeps each request's path, query and Authorization header:
- loopback is an IP address (or the name `localhost`), never a prefix: a key is not sent over
  plain http to `127.evil.example` or `127.0.0.1.nip.io` — shown with the recording server as
  the HTTP proxy every request to such a name would go through (with `allow_http_key` it does
  get the key: the control);
- a base URL's query stays a query after the joined path;
- with `user:password@` in the base URL and a key variable, the key is sent as Bearer and the
  user:password is not (one warning line says so); without a key, user:password is Basic;
- with no base URL, `$OPENAI_API_KEY` does not follow the SDK's `$OPENAI_BASE_URL`;
- a dry run in a fresh cache directory creates no file.
"""
from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_path
from fake_openai import FakeOpenAI, Step
from scholarbench.cli import main
from scholarbench.errors import ScholarbenchError
from scholarbench.hosts import is_loopback_host, is_loopback_url

HERE = Path(__file__).parent
KEY = "sk-planted-endpoint-0123456789"
PASSWORD = "url-PASS-0123456789"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("PLANTED_KEY", KEY)
    fake = FakeOpenAI(default=Step(text="fine")).start()
    yield fake
    fake.stop()


def _ask(url: str, *extra: str) -> int:
    return main(["llm", "ask", "hi", "--as-judge", "--judge", "m", "--judge-base-url", url,
                 "--no-llm-cache", *extra])


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("LocalHost", True), ("::ffff:127.0.0.1", True),
    ("127.evil.example", False), ("127.0.0.1.nip.io", False), ("localhost.evil.example", False),
    ("2130706433", False), ("0x7f.1", False), ("128.0.0.1", False), ("10.0.0.1", False),
    ("0.0.0.0", False), ("::", False), ("", False), (None, False)])
def test_loopback_is_an_address_or_localhost_never_a_prefix(host, loopback):
    assert is_loopback_host(host) is loopback


def test_loopback_urls():
    assert is_loopback_url("http://127.0.0.1:8000/v1")
    assert is_loopback_url("http://[::1]:8000/v1")
    assert not is_loopback_url("http://127.evil.example/v1")
    assert not is_loopback_url("http://127.0.0.1.nip.io/v1")
    assert not is_loopback_url("http://127.0.0.1@evil.example/v1")      # userinfo, not host
    assert not is_loopback_url("http://[::1/v1")                         # malformed


@pytest.mark.parametrize("name", ["127.evil.example", "127.0.0.1.nip.io"])
def test_no_key_over_http_to_a_name_that_looks_loopback(name, server, monkeypatch, capsys,
                                                        tmp_path):
    for var in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.base_url.removesuffix("/v1"))
    monkeypatch.setenv("http_proxy", server.base_url.removesuffix("/v1"))
    url = f"http://{name}:8000/v1"
    assert _ask(url, "--judge-api-key-env", "PLANTED_KEY") == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: refusing to send the judge model's API key over plain http to "
                   f"{name}; use https, or set allow_http_key = true for this role")
    assert server.heard == []
    # the control: allowed, the request does go out (through the proxy) with the key
    config = tmp_path / "scholarbench.toml"
    config.write_text("[judge]\nallow_http_key = true\n")
    assert _ask(url, "--judge-api-key-env", "PLANTED_KEY", "--llm-config", str(config)) == 0
    assert server.heard == [{"path": f"{url}/chat/completions",
                             "authorization": f"Bearer {KEY}"}]


@pytest.mark.parametrize("tail, path", [
    ("/v1?api-version=2024-06&api_key=QK123456789", "/v1/chat/completions?api-version=2024-06"
                                                    "&api_key=QK123456789"),
    ("/v1/?x=1", "/v1/chat/completions?x=1"),
    ("/v1#frag", "/v1/chat/completions")])
def test_a_base_url_query_stays_a_query(tail, path, server, capsys):
    root = server.base_url.removesuffix("/v1")
    assert _ask(root + tail, "--judge-api-key-env", "PLANTED_KEY") == 0
    assert server.heard == [{"path": path, "authorization": f"Bearer {KEY}"}]
    assert "QK123456789" not in capsys.readouterr().err


def test_the_key_wins_over_user_password_in_the_url(server, capsys):
    with_userinfo = server.base_url.replace("http://", f"http://alice:{PASSWORD}@")
    assert _ask(with_userinfo, "--judge-api-key-env", "PLANTED_KEY") == 0
    assert server.heard == [{"path": "/v1/chat/completions", "authorization": f"Bearer {KEY}"}]
    warnings = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("warning:")]
    assert warnings == ["warning: the judge model's base URL has a user:password and "
                        "$PLANTED_KEY holds a key: the key is sent (Authorization: Bearer), "
                        "the user:password is not"]
    server.heard.clear()
    assert _ask(with_userinfo) == 0                  # no key for this loopback server
    basic = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    assert server.heard == [{"path": "/v1/chat/completions", "authorization": f"Basic {basic}"}]


@pytest.mark.parametrize("host", ["127.evil.example", "0.0.0.0", "10.0.0.1"])
def test_the_tools_server_binds_loopback_only(host):
    from scholarbench.tools.mcp_server import HttpServer
    with pytest.raises(ScholarbenchError, match="loopback only"):
        HttpServer(None, host=host)       # refused before the session is looked at


def test_a_dry_run_in_a_fresh_cache_writes_nothing(tmp_path):
    """Run in a fresh process, so no embedder made by another test (with another cache
    directory) is reused."""
    gold = shared_path("data", "taxobench", "toy_reference.jsonl")
    cache, out = tmp_path / "cache", tmp_path / "run"
    env = dict(os.environ, SCHOLARBENCH_CACHE=str(cache),
               SCHOLARBENCH_DATA=str(tmp_path / "data"))
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent / "src"), env.get("PYTHONPATH", "")])
    for judge in ([], ["--with-judge", "--judge", "j", "--judge-base-url",
                       "http://127.0.0.1:9/v1"]):
        done = subprocess.run([sys.executable, "-m", "scholarbench", "run", "taxobench",
                               "--mode", "bottom-up", "--agent", "cluster", "--gold", str(gold),
                               "--out", str(out), "--dry-run", *judge],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "taxobench bottom-up: 1 samples" in done.stdout
        assert not cache.exists() or list(cache.rglob("*")) == []
        assert not out.exists()


def test_the_default_key_never_follows_openai_base_url(server, monkeypatch, tmp_path, capsys):
    """With no base URL configured, `$OPENAI_API_KEY` goes to api.openai.com only: the SDK's
    `$OPENAI_BASE_URL` (here the recording server) is not read. The call to api.openai.com goes
    through a proxy that refuses connections, so nothing leaves the machine."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    for var in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{closed}")
    monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{closed}")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    config = tmp_path / "scholarbench.toml"
    config.write_text("[agent]\nmax_retries = 0\ntimeout = 5\ndeadline = 5\n")
    rc = main(["llm", "ask", "hi", "--model", "gpt-x", "--no-llm-cache", "--llm-config",
               str(config)])
    err = capsys.readouterr().err
    assert rc != 0 and "APIConnectionError" in err and KEY not in err
    assert server.heard == []
