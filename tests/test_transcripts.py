"""Transcripts (issue 38): every chat call an agent makes through our clients — the endpoint
agent's tool loop here — is kept per sample in transcripts.jsonl (messages, reply, tool calls,
tokens, latency; secrets masked; size-capped with a counted truncation), a judge's prompt and
reply in its judge record, a Python agent's own steps through `ctx.note`, and the HTML
drill-down shows them as a readable exchange."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from test_tools_endpoint import (ANSWER, QUERIES, _lines, _script,  # noqa: F401  (fixture)
                                 corpus_dir)
from scholarbench.cli import main
from scholarbench.llm import transcript
from scholarbench.llm.secrets import remember
from scholarbench.llm.transcript import Transcript, note, transcript_scope

S = "arxiv:2106.00100"


def endpoint_tool_run(tmp_path, corpus_dir, capsys, *extra: str, name: str = "run"):
    """A ResearchArena run of the endpoint agent with tools against the scripted endpoint
    (two searches, then the answer) into tmp_path/name; `extra`: more `run` flags."""
    fake = FakeOpenAI(default=_script).start()
    out = tmp_path / name
    try:
        assert main(["run", "researcharena", "--task", "discovery", "--agent", "endpoint",
                     "--tools", "--model", "fake-model", "--base-url", fake.base_url,
                     "--no-llm-cache", "--corpus", str(corpus_dir), "--out", str(out),
                     "--quiet", "--max-samples", "1", *extra]) == 0, capsys.readouterr().err
    finally:
        fake.stop()
    return out


def test_the_endpoint_agents_whole_exchange_is_kept_and_shown(tmp_path, corpus_dir, capsys):
    out = endpoint_tool_run(tmp_path, corpus_dir, capsys)
    kept = {r["id"]: r for r in _lines(out / "transcripts.jsonl")}
    assert len(kept) == 2                                   # one line per sample
    steps = kept[S]["steps"]
    assert [s["kind"] for s in steps] == ["chat"] * 3       # 2 searches, then the answer
    assert [c["name"] for s in steps[:2] for c in s["tool_calls"]] == ["search", "search"]
    assert json.loads(steps[1]["tool_calls"][0]["arguments"])["query"] == QUERIES[1]
    assert steps[2]["reply"] == ANSWER and "tool_calls" not in steps[2]
    assert steps[2]["messages"][-1]["role"] == "tool"       # what the model read last
    assert all(s["prompt_tokens"] == 11 and s["seconds"] >= 0 and s["model"] == "fake-model"
               for s in steps)
    assert kept[S]["truncated_steps"] == 0 and kept[S]["truncated_chars"] == 0
    gen = _lines(out / "generate.jsonl")
    assert all("_transcript" not in r and "steps" not in r for r in gen)
    html = tmp_path / "report.html"
    assert main(["report", str(out), "--html", str(html)]) == 0
    page = html.read_text()
    assert "agent exchange, 3 chat calls" in page
    assert "tool call <code>search(" in page and "Graph attention networks" in page


def judged_taxo_run(tmp_path, monkeypatch):
    """A TaxoBench run replaying two taxonomies, judged by the scripted judge."""
    from conftest import use_fake_embedder
    from test_cost import taxo_fake
    from test_judges_taxobench import _run_files
    monkeypatch.setenv("SCHOLARBENCH_CACHE", str(tmp_path / "cache"))
    use_fake_embedder(monkeypatch)
    server = FakeOpenAI(default=taxo_fake).start()
    gold, pred = _run_files(tmp_path)
    out = tmp_path / "judged"
    try:
        assert main(["run", "taxobench", "--mode", "bottom-up", "--agent", "replay",
                     "--agent-arg", f"path={pred}", "--gold", str(gold), "--out", str(out),
                     "--quiet", "--with-judge", "--judge", "fake-judge", "--judge-base-url",
                     server.base_url, "--no-llm-cache"]) == 0
    finally:
        server.stop()
    return out


def test_a_judges_prompt_and_reply_are_in_its_record_and_the_drilldown(tmp_path, monkeypatch):
    out = judged_taxo_run(tmp_path, monkeypatch)
    records = [json.loads(x) for p in out.glob("judge.*.jsonl")
               for x in p.read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        (step,) = record["exchange"]["steps"]
        assert step["kind"] == "chat" and step["model"] == "fake-judge"
        assert "semantic_coverage" in step["reply"] and step["messages"][0]["content"]
        prompt = step["messages"][-1]["content"]            # the judge's cap: 4,000 kept
        assert prompt.endswith("characters cut]") and len(prompt) < 4100
        assert record["exchange"]["truncated_chars"] > 0
    assert not (out / "transcripts.jsonl").exists()         # a replay agent calls no model
    html = tmp_path / "report.html"
    assert main(["report", str(out), "--html", str(html)]) == 0
    page = html.read_text()
    assert "judge fake-judge on" in page and "semantic_coverage" in page


def test_secrets_are_masked_and_the_size_cap_is_counted(monkeypatch):
    remember("sk-live-0123456789abcdef")
    monkeypatch.setattr(transcript, "MAX_STEPS", 3)
    monkeypatch.setattr(transcript, "MAX_TEXT", 50)
    with transcript_scope() as kept:
        for i in range(5):
            kept.add("chat", messages=[{"role": "user",
                                        "content": "key sk-live-0123456789abcdef " + "x" * 80}],
                     reply=f"reply {i}")
    record = kept.as_record()
    assert len(record["steps"]) == 3 and record["truncated_steps"] == 2
    content = record["steps"][0]["messages"][0]["content"]
    assert "sk-live-0123456789abcdef" not in content and "characters cut" in content
    assert record["truncated_chars"] == 3 * (len("key *** ") + 80 - 50)


def test_a_python_agents_own_steps_join_its_transcript_and_outside_a_scope_nothing_is_kept():
    from scholarbench.core.agent import AgentContext
    ctx = AgentContext(benchmark="taxobench")
    ctx.note("search", query="graph", found=3)               # no scope open: ignored
    with transcript_scope() as kept:
        ctx.note("search", query="graph", found=3, where={"k": 1})
        note("decide", chose="cluster")
    assert [s["kind"] for s in kept.as_record()["steps"]] == ["search", "decide"]
    assert kept.as_record()["steps"][0] == {"kind": "search", "query": "graph", "found": 3,
                                            "where": "{'k': 1}"}
    assert not Transcript()
