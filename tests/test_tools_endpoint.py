"""`run researcharena --task discovery --agent endpoint --tools` against a scripted
OpenAI-compatible server that calls `search` twice and then answers: the tools reach the model
as function schemas, each call runs under the sample's leakage rule, the answer is scored, the
trajectory is in tools.jsonl, counted in the manifest and shown in the HTML report; budgets
stop a model that never stops calling tools."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from test_researcharena_fixtures import build_tiny
from scholarbench.cli import main

S, U = "arxiv:2106.00100", "s2corpus:300"
A, C, G = "doi:10.1/a", "arxiv:2105.00003", "arxiv:1903.00007"
QUERIES = ("graph attention", "graph learning survey")
ANSWER = "1. Graph attention networks\n2. Graph contrastive learning (arXiv:2105.00003)\n"


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-tools-endpoint")
    build_tiny(out)
    return out


def _script(body: dict) -> Step:
    """Two searches, then the answer: the step is how many tool results came back so far."""
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    if done < len(QUERIES):
        return Step(tool_calls=[("search", {"query": QUERIES[done], "k": 20})])
    return Step(text=ANSWER)


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_endpoint_with_tools_searches_twice_answers_and_is_scored(tmp_path, corpus_dir, capsys):
    fake = FakeOpenAI(default=_script).start()
    out = tmp_path / "run"
    try:
        code = main(["run", "researcharena", "--task", "discovery", "--agent", "endpoint",
                     "--tools", "--model", "fake-model", "--base-url", fake.base_url,
                     "--no-llm-cache", "--corpus", str(corpus_dir), "--out", str(out),
                     "--quiet", "--max-samples", "1"])   # the script's replies are in order
    finally:
        fake.stop()
    assert code == 0, capsys.readouterr().err
    first = fake.requests[0]
    assert {t["function"]["name"] for t in first["tools"]} == {
        "search", "get_paper", "references", "citations", "co_cited", "coupled",
        "citation_contexts"}
    assert first["tools"][0]["function"]["parameters"]["properties"]["k"]["maximum"] == 100
    assert len(fake.requests) == 6                         # S and U: 2 searches + answer each
    # the tool results the model read: survey S's rule hides S and everything after it
    tool_msgs = [m for m in fake.requests[2]["messages"] if m["role"] == "tool"]
    seen = {r["id"] for m in tool_msgs for r in json.loads(m["content"])["results"]}
    assert seen and S not in seen and seen <= {A, C, G, "doi:10.1/h", "arxiv:2005.00009"}
    gen = {r["id"]: r for r in _lines(out / "generate.jsonl")}
    assert [pid for pid, _ in gen[S]["ranking"]] == [A, C]
    assert gen[S]["info"]["tool_calls"] == 2 and gen[S]["info"]["tool_stopped"] == "answer"
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}
    assert rows[S]["status"] == "scored" and rows[S]["RR"] == 1.0
    trajectories = {r["id"]: r["calls"] for r in _lines(out / "tools.jsonl")}
    assert set(trajectories) == {S, U}
    calls = trajectories[S]
    assert [(c["step"], c["tool"], c["arguments"]["query"]) for c in calls] == [
        (1, "search", QUERIES[0]), (2, "search", QUERIES[1])]
    assert calls[0]["result_ids"][0] == A and S not in calls[1]["result_ids"]
    assert all(c["latency_ms"] >= 0 and "error" not in c for c in calls)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tools"] == {"calls": 4, "errors": 0, "samples": 2,
                                 "samples_with_calls": 2, "by_tool": {"search": 4}}
    assert manifest["agent_config"]["tools"] == {"max_steps": 8, "max_calls": 24,
                                                 "max_tokens": None}
    assert manifest["run_name"] == "endpoint+tools@fake-model"   # told apart from no tools;
    assert "127.0.0.1" not in (out / "summary.json").read_text()  # no URL in the run's name
    html = tmp_path / "report.html"
    assert main(["report", str(out), "--html", str(html)]) == 0
    page = html.read_text()
    assert "agent trajectory, 2 tool calls" in page
    assert "&quot;query&quot;: &quot;graph attention&quot;" in page
    assert "tool calls</dt>" in page and "search 4" in page


def test_a_model_that_never_stops_calling_tools_is_cut_by_the_budget(tmp_path, corpus_dir):
    def forever(body: dict) -> Step:
        if body.get("tool_choice") == "none":
            return Step(text=ANSWER)
        return Step(tool_calls=[("search", {"query": "graph", "k": 5}),
                                ("get_paper", {"paper": "Graph learning: a survey"})])
    fake = FakeOpenAI(default=forever).start()
    out = tmp_path / "run"
    try:
        code = main(["run", "researcharena", "--task", "discovery", "--agent", "endpoint",
                     "--tools", "--agent-arg", "max_steps=4", "--agent-arg", "max_calls=5",
                     "--model", "fake-model", "--base-url", fake.base_url, "--no-llm-cache",
                     "--corpus", str(corpus_dir), "--out", str(out), "--quiet",
                     "--max-samples", "1"])
    finally:
        fake.stop()
    assert code == 0
    gen = {r["id"]: r for r in _lines(out / "generate.jsonl")}[S]
    assert gen["info"]["tool_calls"] == 5 and gen["info"]["tool_stopped"] == "max_calls"
    assert gen["info"]["tool_steps"] == 3
    calls = {r["id"]: r for r in _lines(out / "tools.jsonl")}[S]["calls"]
    assert len(calls) == 5
    # the survey is refused by title, as a paper that does not exist would be
    refused = [c for c in calls if c["tool"] == "get_paper"]
    assert refused and all(c["error"].startswith("no paper matches") for c in refused)
    assert fake.requests[-1]["tool_choice"] == "none"


def test_a_call_whose_arguments_do_not_parse_is_in_the_trajectory(tmp_path, corpus_dir):
    """The model's garbled arguments text reaches tools.jsonl as sent, with the error the
    model was told, and counts as a failed call."""
    garbled = '{"query": "graph attention", "k": 20'            # cut short: not JSON

    def script(body: dict) -> Step:
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        if done == 0:
            return Step(tool_calls=[("search", garbled)])
        return Step(text=ANSWER)
    fake = FakeOpenAI(default=script).start()
    out = tmp_path / "run"
    try:
        code = main(["run", "researcharena", "--task", "discovery", "--agent", "endpoint",
                     "--tools", "--model", "fake-model", "--base-url", fake.base_url,
                     "--no-llm-cache", "--corpus", str(corpus_dir), "--out", str(out),
                     "--quiet", "--max-samples", "1"])
    finally:
        fake.stop()
    assert code == 0
    told = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert told == ["error: the arguments of search are not valid JSON"]
    calls = {r["id"]: r["calls"] for r in _lines(out / "tools.jsonl")}[S]
    assert [(c["step"], c["tool"], c["arguments"], c["error"]) for c in calls] == [
        (1, "search", {"raw": garbled}, "the arguments of search are not valid JSON")]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tools"]["errors"] == 2                 # one per sample (S and U)


def test_tools_is_refused_for_agents_that_are_not_the_endpoint(tmp_path, corpus_dir, capsys):
    code = main(["run", "researcharena", "--task", "discovery", "--agent", "title-bm25",
                 "--tools", "--corpus", str(corpus_dir), "--out", str(tmp_path / "r")])
    assert code == 2 and "--tools" in capsys.readouterr().err


def test_a_users_agent_process_reaches_the_tools_over_mcp_http_and_stdio(tmp_path, corpus_dir):
    """A plain function marked `tools = True` gets the sample's MCP server (URL and stdio
    command) and drives it with the SDK's client; every call, whichever transport, is in the
    sample's trajectory and under the sample's rule."""
    from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "mcp_user_agent:solve", out, corpus_dir,
                                 progress=False))
    assert summary["status"] == {"scored": 2, "unscorable": 1} and summary["complete"]
    calls = {r["id"]: r["calls"] for r in _lines(out / "tools.jsonl")}[S]
    assert [(c["tool"], c["via"]) for c in calls] == [
        ("search", "http"), ("citations", "http"),                 # the engine's server
        ("search", "stdio"), ("citations", "stdio")]               # the launched one
    assert calls[0]["result_ids"] == calls[2]["result_ids"] and S not in calls[0]["result_ids"]
    assert [c["step"] for c in calls] == [1, 2, 3, 4]
    assert not (out / "tools-sessions").exists() or not any((out / "tools-sessions").iterdir())
    gen = {r["id"]: r for r in _lines(out / "generate.jsonl")}
    assert [pid for pid, _ in gen[S]["ranking"]] == calls[0]["result_ids"]


def test_a_plain_function_searches_with_the_synchronous_tools_handle(tmp_path, corpus_dir,
                                                                     capsys):
    """Issue 35: `task["tools"].search(...)` in a real `scholarbench run` — synchronous calls
    in process beside the MCP address, recorded in the sample's trajectory under its rule, a
    refused call raising ToolError."""
    out = tmp_path / "run"
    code = main(["run", "researcharena", "--task", "discovery", "--agent",
                 "sync_tools_agent:solve", "--corpus", str(corpus_dir), "--out", str(out),
                 "--quiet"])
    assert code == 0, capsys.readouterr().err
    calls = {r["id"]: r["calls"] for r in _lines(out / "tools.jsonl")}[S]
    assert [(c["step"], c["tool"], c.get("via")) for c in calls] == [
        (1, "search", None), (2, "citations", None), (3, "search", None)]
    assert calls[0]["arguments"] == {"query": "Graph learning: a survey", "k": 5}
    assert calls[0]["result_ids"] and S not in calls[0]["result_ids"]   # the survey's rule
    assert calls[1]["arguments"]["paper"] == calls[0]["result_ids"][0]
    assert calls[2]["error"].startswith("search: query")
    gen = {r["id"]: r for r in _lines(out / "generate.jsonl")}
    assert [pid for pid, _ in gen[S]["ranking"]] == calls[0]["result_ids"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tools"]["by_tool"] == {"citations": 2, "search": 4}   # S and U
    assert manifest["tools"]["errors"] == 2


def test_the_tool_loop_asks_each_epoch_with_its_own_seed(tmp_path, corpus_dir, capsys):
    """`--epochs 2 --tools`: epoch 1's calls keep the model's seed, epoch 2's carry it + 1 on
    every call of the loop, so the second epoch is new requests, not the first's; ResearchArena
    scores each epoch as its own query."""
    fake = FakeOpenAI(default=_script).start()
    out = tmp_path / "run"
    try:
        code = main(["run", "researcharena", "--task", "discovery", "--agent", "endpoint",
                     "--tools", "--model", "fake-model", "--base-url", fake.base_url,
                     "--corpus", str(corpus_dir), "--out", str(out), "--quiet",
                     "--max-samples", "1", "--limit", "2", "--epochs", "2"])
    finally:
        fake.stop()
    assert code == 0, capsys.readouterr().err
    assert len(fake.requests) == 6                       # 3 calls per epoch, none from a cache
    # the model's configured seed (0) in epoch 1, 0 + 1 in epoch 2
    assert sorted(r.get("seed") for r in fake.requests) == [0, 0, 0, 1, 1, 1]
    rows = {r["id"]: r for r in _lines(out / "scores.jsonl")}      # each epoch its own query
    assert rows[S]["status"] == rows[f"{S}#2"]["status"] == "scored"
    assert rows[S]["RR"] == rows[f"{S}#2"]["RR"] == 1.0
