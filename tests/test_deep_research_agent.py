"""The generic deep-research loop (search → read → decide → answer): step order, budgets, stop
rules, the answer's ranking, fallbacks on failed or malformed decisions — against a scripted
OpenAI-compatible server, on an in-memory environment and on the hand-made corpus through the
ResearchArena runner (leakage filters, manifest, cache)."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from test_researcharena_fixtures import CUTOFF_S, build_tiny
from scholarbench.agents.deep_research import (DeepResearchSettings, Reading, ToolEnv,
                                               deep_research)
from scholarbench.benchmarks.researcharena.agents import ArenaContext, ArenaQuery, make_arena_agent
from scholarbench.benchmarks.researcharena.agents.base import access_rules
from scholarbench.corpus.store import Corpus
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.roles import LLMRoles
from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run
from scholarbench.benchmarks.researcharena.tasks import SearchSpace

S, U = "arxiv:2106.00100", "s2corpus:300"
A, C, G, N, L = ("doi:10.1/a", "arxiv:2105.00003", "arxiv:1903.00007", "arxiv:2005.00009",
                 "arxiv:2201.00010")


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-deep-research")
    build_tiny(out)
    return out


def client(fake, cache=None, max_retries=0) -> ChatClient:
    config = ModelConfig(role="agent", model="fake-model", base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=max_retries)
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.05))


def decision(relevant=(), notes="", action="search", query=""):
    return Step(text=json.dumps({"relevant": list(relevant), "notes": notes, "action": action,
                                 "query": query}))


class ToyEnv:
    """Queries map to fixed result lists; every search and read is logged."""

    def __init__(self, results: dict[str, list[str]]) -> None:
        self.results = results
        self.log: list[tuple[str, object]] = []

    def search(self, query, k):
        self.log.append(("search", query))
        return [(pid, 1.0 / (i + 1)) for i, pid in enumerate(self.results.get(query, [])[:k])]

    def read(self, paper_ids):
        self.log.append(("read", list(paper_ids)))
        return [Reading(pid, f"Title of {pid}", 2020, f"abstract {pid}") for pid in paper_ids]


def prompt(body) -> str:
    return body["messages"][0]["content"]


def test_loop_order_notes_and_answer(fake):
    env = ToyEnv({"topic x": ["p1", "p2", "p3"], "second": ["p3", "p4", "p2"]})
    fake.push(decision([2], "p2 is central", "search", "second"),
              decision([2], "p4 extends it", "stop", ""))
    result = deep_research("topic x", env, client(fake),
                           DeepResearchSettings(read_per_step=2, depth=10))
    assert env.log == [("search", "topic x"), ("read", ["p1", "p2"]),
                       ("search", "second"), ("read", ["p3", "p4"])]
    first, second = (prompt(b) for b in fake.requests)
    assert "topic: topic x." in first and "step 1 of at most 4" in first
    assert "1. Title of p1 (2020)\n   abstract: abstract p1\n2. Title of p2 (2020)" in first
    assert "Your notes so far:\n(none)" in first
    assert "Queries run so far:\n1. topic x\n2. second" in second
    assert "Your notes so far:\n1. p2 is central" in second
    assert result.queries == ["topic x", "second"] and result.stopped == "model"
    assert result.notes == ["p2 is central", "p4 extends it"]
    assert result.relevant == ["p2", "p4"] and result.irrelevant == ["p1", "p3"]
    # answer: judged relevant, then RRF of [p1 p2 p3] and [p3 p4 p2] minus the irrelevant,
    # then the irrelevant: p2, p4, then p1, p3
    assert [pid for pid, _ in result.ranking] == ["p2", "p4", "p1", "p3"]
    assert [s for _, s in result.ranking] == [4.0, 3.0, 2.0, 1.0]
    assert result.info()["llm"] == {"calls": 2, "failed": 0, "unscored": 0}
    assert fake.requests[0]["response_format"]["json_schema"]["schema"]["properties"][
        "action"]["enum"] == ["search", "stop"]


def test_step_and_read_budgets(fake):
    env = ToyEnv({f"q{i}": [f"p{i}a", f"p{i}b"] for i in range(10)})
    fake.default = lambda body: decision([], "", "search", f"q{len(fake.requests)}")
    result = deep_research("q0", env, client(fake), DeepResearchSettings(max_steps=3))
    assert [q for kind, q in env.log if kind == "search"] == ["q0", "q1", "q2"]
    assert result.stopped == "max_steps" and len(fake.requests) == 3
    env = ToyEnv({"t": ["a", "b", "c"], "u": ["a", "b", "c", "d"]})
    fake.requests.clear()
    fake.push(decision([1], "", "search", "u"))
    result = deep_research("t", env, client(fake),
                           DeepResearchSettings(max_read=3, read_per_step=3))
    # step 1 reads a, b, c (the budget); step 2 finds only read papers and the budget is spent
    assert result.stopped == "read_budget" and len(fake.requests) == 1
    assert [pid for pid, _ in result.ranking] == ["a", "d", "b", "c"]


def test_repeated_query_stops(fake):
    env = ToyEnv({"t": ["a"]})
    fake.push(decision([1], "", "search", "t"))
    result = deep_research("t", env, client(fake))
    assert result.stopped == "repeated_query" and [p for p, _ in result.ranking] == ["a"]


@pytest.mark.parametrize("steps, unscored, failed", [
    ([Step(text="{not json"), Step(text='{"relevant": [9], "notes": "", "action": "search", '
                                        '"query": "x"}')], 1, 0),
    ([Step(text=json.dumps({"relevant": [], "notes": "", "action": "continue", "query": ""})),
      Step(text="[]")], 1, 0),
    ([Step(status=500)], 0, 1),
])
def test_failed_or_malformed_decisions_end_the_loop_with_what_was_found(fake, steps, unscored,
                                                                         failed):
    env = ToyEnv({"t": ["a", "b"]})
    fake.push(*steps)
    result = deep_research("t", env, client(fake))
    assert result.stopped == "llm_failure" and [p for p, _ in result.ranking] == ["a", "b"]
    info = result.info()
    assert info["llm"]["unscored"] == unscored and info["llm"]["failed"] == failed
    assert info["fallback"][0].startswith("stop: answer with what was found so far")


def test_settings_are_validated():
    with pytest.raises(ValueError, match="max_steps"):
        DeepResearchSettings(max_steps=0)


def test_tool_env_reads_titles_abstracts_and_applies_the_rule(corpus_dir):
    from scholarbench.tools.session import ToolSession
    corpus = Corpus.open(corpus_dir)
    query = ArenaQuery(S, "Graph learning: a survey", CUTOFF_S, S, None)
    session = ToolSession(corpus, access_rules(query))
    env = ToolEnv(session, abstract_chars=12)
    hits = [pid for pid, _ in env.search("graph benchmarks later survey", 100)]
    space = SearchSpace.of(corpus)
    assert hits and L not in hits and all(space.searchable(p, CUTOFF_S) for p in hits)
    [reading] = env.read([A])
    assert reading.title == "Graph attention networks" and reading.year == 2020
    assert reading.abstract == "Attention o…" and reading.paragraph == ""
    assert "Graph attention networks (2020)\n   abstract: Attention o…" == reading.render()
    assert [c.tool for c in session.calls] == ["search", "get_paper"]


def test_registered_agent_through_the_runner(tmp_path, corpus_dir, fake):
    def server(body):
        text = prompt(body)
        if "1. Graph learning: a survey\n" in text and "2. " not in text.split("Your notes")[0]:
            return decision([1], "attention is central", "search", "later benchmarks survey")
        return decision([], "nothing new", "stop", "")
    fake.default = server
    cache_path = tmp_path / "replies.sqlite"

    def roles():
        cache = ReplyCache(cache_path)
        return LLMRoles(agent=client(fake, cache), cache=cache)
    first = run(ArenaRunConfig("discovery", "deep-research", tmp_path / "one", corpus_dir,
                               progress=False, llm=roles))
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "one" / "generate.jsonl")
                                    .read_text().splitlines())}
    info = rows[S]["info"]
    assert info["queries"] == ["Graph learning: a survey", "later benchmarks survey"]
    assert info["notes"] == ["attention is central", "nothing new"]
    assert info["stopped"] == "model" and len(info["steps"]) == 2
    got = [pid for pid, _ in rows[S]["ranking"]]
    space = SearchSpace.of(Corpus.open(corpus_dir))
    assert got and all(space.searchable(pid, CUTOFF_S) for pid in got) and L not in got
    assert first["n_missing"] == 0 and first["n_scored"] == 2
    n = len(fake.requests)
    manifest = json.loads((tmp_path / "one" / "manifest.json").read_text())
    assert manifest["llm_usage"]["agent"]["calls"] == n == 3      # S: 2 steps, U: 1
    assert manifest["agent_config"]["max_steps"] == 4
    # the loop searched and read through the tools: its calls are the sample's trajectory
    calls = {r["id"]: r["calls"] for r in map(json.loads, (tmp_path / "one" / "tools.jsonl")
                                             .read_text().splitlines())}
    assert [(c["tool"], c["arguments"].get("query")) for c in calls[S]
            if c["tool"] == "search"] == [("search", q) for q in info["queries"]]
    assert all(L not in c["result_ids"] and S not in c["result_ids"] for c in calls[S])
    assert manifest["tools"]["calls"] == sum(len(v) for v in calls.values())
    # titles only by default: A's abstract ("Attention over graph neighbourhoods.") is not shown
    assert any("Graph attention networks (2020)" in prompt(b) for b in fake.requests)
    assert not any("Attention over graph" in prompt(b) for b in fake.requests)
    second = run(ArenaRunConfig("discovery", "deep-research", tmp_path / "two", corpus_dir,
                                progress=False, llm=roles))
    assert len(fake.requests) == n and second["metrics"] == first["metrics"]


def test_agent_can_read_abstracts_when_asked(corpus_dir, fake):
    fake.default = decision([], "", "stop", "")
    agent = make_arena_agent("deep-research", abstract_chars=300)
    query = ArenaQuery(S, "Graph attention", CUTOFF_S, S, None)
    agent.generate(query, ArenaContext("discovery", Corpus.open(corpus_dir), llm=client(fake)))
    assert "Graph attention networks (2020)\n   abstract: Attention over graph neighbourhoods." \
        in prompt(fake.requests[0])


def test_agent_context_checks(corpus_dir, fake):
    agent = make_arena_agent("deep-research")
    query = ArenaQuery(S, "Graph learning: a survey", CUTOFF_S, S, None)
    with pytest.raises(ValueError, match="chat model"):
        agent.generate(query, ArenaContext("discovery", Corpus.open(corpus_dir)))
    with pytest.raises(ValueError, match="corpus"):
        agent.generate(query, ArenaContext("discovery", None, llm=client(fake)))
