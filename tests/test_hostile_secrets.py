"""Planted secrets reach no file, cache, report or output: a password in the base URL's userinfo,
a key in its query string, the API key echoed back (in the headers the endpoint echoes into its
answer), and the redaction functions that guard every writer."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.llm import secrets
from scholarbench.llm.secrets import (redact, redact_argv, redact_json, redact_known, redact_url,
                                      remember_environment)

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
KEY = "sk-planted-HEADER-0123456789abcdef"       # the API key, in $PLANTED_KEY
PASSWORD = "userinfo-PASS-0123456789"            # in the base URL's userinfo
QUERY_KEY = "query-KEY-0123456789abcd"           # in the base URL's ?api-key=
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()   # how httpx sends userinfo
PLANTED = (KEY, PASSWORD, QUERY_KEY, BASIC)


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scholarbench", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_planted_secrets_reach_no_file_cache_report_or_output(tmp_path):
    """Two runs against an endpoint that echoes the request's path and headers into its answer:
    one with a base URL holding userinfo and ?api-key=, one whose Bearer key the endpoint echoes.
    Then the HTML and Markdown reports. No planted secret in any file under the run dirs, the
    cache, the reports, nor in any command's stdout/stderr; the URLs are recorded masked."""
    from test_researcharena_fixtures import build_tiny
    corpus = tmp_path / "corpus"
    build_tiny(corpus)
    fake = FakeOpenAI(default=Step(echo_request=True, text="no papers")).start()
    cache = tmp_path / "cache"
    env = dict(os.environ, PLANTED_KEY=KEY, SCHOLARBENCH_CACHE=str(cache),
               SCHOLARBENCH_DATA=str(tmp_path / "data"))
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), env.get("PYTHONPATH", "")])
    host = fake.base_url.split("//", 1)[1]                   # 127.0.0.1:PORT/v1
    with_userinfo = f"http://alice:{PASSWORD}@{host}?api-key={QUERY_KEY}&x=1"
    common = ["run", "researcharena", "--task", "discovery", "--agent", "endpoint", "--model",
              "m", "--api-key-env", "PLANTED_KEY", "--corpus", str(corpus), "--quiet"]
    outs = [tmp_path / "run-userinfo", tmp_path / "run-bearer"]
    try:
        streams = [_cli(common + ["--base-url", with_userinfo, "--out", str(outs[0])], env),
                   _cli(common + [f"--base-url={fake.base_url}?key={QUERY_KEY}",
                                  "--out", str(outs[1])], env)]
        for run in streams:
            assert run.returncode == 0, run.stderr[-2000:]
        streams.append(_cli(["report", *map(str, outs), "--html",
                             str(tmp_path / "report.html")], env))
        streams.append(_cli(["report", *map(str, outs), "--out", str(tmp_path / "report.md")],
                            env))
    finally:
        fake.stop()
    assert len(fake.requests) >= 2
    for run in streams[2:]:
        assert run.returncode == 0, run.stderr[-2000:]
    # the endpoint saw the secrets and echoed them into the answers, which are stored masked
    stored = [e for out in outs for x in (out / "generate.jsonl").read_text().splitlines()
              for e in json.loads(x)["info"]["unresolved_examples"]]
    # the query is kept as a query after the joined path (issue 34: it was `/v1/?api-key=…`
    # with `chat/completions` glued to the key); the named key wins over the URL's
    # user:password, which is never sent (issue 34: the userinfo replaced the Bearer key)
    assert any(e.startswith("POST /v1/chat/completions?api-key=") for e in stored)
    assert any(e.lower().startswith("authorization: bearer") for e in stored)  # the key
    assert not any(e.lower().startswith("authorization: basic") for e in stored)
    assert [h["authorization"] for h in fake.heard] == [f"Bearer {KEY}"] * len(fake.heard)
    files = [p for root in (tmp_path,) for p in root.rglob("*") if p.is_file()
             and "corpus" not in p.parts and "data" not in p.parts]
    assert {"manifest.json", "summary.json", "generate.jsonl", "scores.jsonl", "report.html",
            "report.md"} <= {p.name for p in files}
    assert any(p.suffix == ".sqlite" for p in files)
    for secret in PLANTED:
        leaked = [str(p) for p in files if secret.encode() in p.read_bytes()]
        assert leaked == [], (secret, leaked)
        for run in streams:
            assert secret not in run.stdout + run.stderr, secret
    manifest = json.loads((outs[0] / "manifest.json").read_text())
    model = manifest["models"]["agent"]
    assert model["base_url"] == f"http://{host}?api-key=***&x=1"
    assert model["model_id"] == f"http://{host}?api-key=***&x=1|m"
    assert manifest["run_name"] == "endpoint@m"          # AGENT@MODEL: no URL at all
    assert "--base-url" in manifest["command"] and "alice" not in json.dumps(manifest)
    md = (tmp_path / "report.md").read_text()
    assert "endpoint@m" in md and "|" in md          # the run is in the report, by its name


def test_redact_url_removes_userinfo_and_credential_query_values():
    url = "https://bob:pw@api.example:8443/v1?api-version=2024&api_key=abc&Token=t&sig=s#frag"
    assert redact_url(url) == ("https://api.example:8443/v1?api-version=2024&api_key=***"
                               "&Token=***&sig=***#frag")
    for name in ("key", "api-key", "apikey", "access_token", "secret", "password", "signature",
                 "auth", "x-goog-api-key"):
        assert redact_url(f"https://h/v1?{name}=VALUE1&a=b") == f"https://h/v1?{name}=***&a=b"
    plain = "http://127.0.0.1:8000/v1?monkey=1&deployment=gpt"
    assert redact_url(plain) == plain and redact_url(None) is None


def test_redact_argv_masks_urls_and_header_values():
    argv = ["run", "x", "--base-url", "https://u:short@h/v1?key=k1", "--judge-base-url=https://"
            "j/v1?token=abcd", "--agent-arg", "system=Authorization: Bearer abcdefgh"]
    out = " ".join(redact_argv(argv))
    for secret in ("short", "k1", "abcd", "abcdefgh", "u:"):
        assert secret not in out, (secret, out)
    assert out.startswith("run x --base-url https://***@h/v1?key=***")


def test_keys_from_the_environment_and_urls_are_known_from_the_start(monkeypatch):
    monkeypatch.setattr(secrets, "_known", set())
    env = {"OPENAI_API_KEY": "openai-value-123456", "MY_VAR": "named-value-123456",
           "SCHOLARBENCH_JUDGE_API_KEY_ENV": "JUDGE_VAR", "JUDGE_VAR": "judge-value-123456",
           "UNNAMED": "other-value-123456", "SHORT": "abc"}
    remember_environment(["run", "--api-key-env", "MY_VAR", "--judge-api-key-env=SHORT",
                          "--base-url", "https://u:url-password-1@h/v1?apikey=url-query-key1"],
                         environ=env)
    text = ("openai-value-123456 named-value-123456 judge-value-123456 url-password-1 "
            "url-query-key1 other-value-123456 abc")
    assert redact_known(text) == "*** *** *** *** *** other-value-123456 abc"
    record = {"answer": ["x named-value-123456"], "named-value-123456": 1, "n": 2}
    assert redact_json(record) == {"answer": ["x ***"], "***": 1, "n": 2}


def test_prose_redaction_leaves_words_alone():
    text = "The bearer of news; authorization: granted. See https://h/x?token=abc123 here."
    assert redact(text, prose=True) == ("The bearer of news; authorization: granted. "
                                        "See https://h/x?token=*** here.")
    assert "granted" not in redact(text)


@pytest.mark.parametrize("writer", ["append", "json", "jsonl"])
def test_run_dir_writers_mask_known_secrets(tmp_path, monkeypatch, writer):
    from scholarbench.core.rundir import RunDir
    monkeypatch.setattr(secrets, "_known", set())
    secrets.remember("writer-secret-0123")
    run = RunDir(tmp_path)
    record = {"id": "1", "report": "echo: writer-secret-0123", "writer-secret-0123": True}
    {"append": lambda: run.append("g.jsonl", record),
     "json": lambda: run.write_json("g.jsonl", record),
     "jsonl": lambda: run.write_jsonl("g.jsonl", [record])}[writer]()
    text = (tmp_path / "g.jsonl").read_text()
    assert "writer-secret-0123" not in text and "echo: ***" in text
