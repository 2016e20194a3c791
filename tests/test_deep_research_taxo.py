"""TaxoBench `deep-research` (the deep-research loop, then llm-taxonomy's builder) against a
scripted OpenAI-compatible server on a hand-made corpus: the loop's queries, the exact tree,
leakage (the survey is never searched up, read or retrieved), model failures counted with the
stated fallbacks, config, and whole runs whose second identical pass makes no model call."""
from __future__ import annotations

import json
import re

import pytest

from conftest import FakeEmbedder
from fake_openai import FakeOpenAI, Step
from scholarbench.benchmarks.taxobench.agents.base import AgentContext, make_agent
from scholarbench.benchmarks.taxobench.agents.deep_research import NOTHING_FOUND, DeepResearchTaxoAgent
from scholarbench.benchmarks.taxobench.agents.llm_taxonomy import UNASSIGNED, LLMTaxonomyAgent
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.roles import LLMRoles
from scholarbench.records import TaxoNode, TaxoTask
from scholarbench.core.registry import REGISTRY
from scholarbench.benchmarks.taxobench.runner import RunConfig, run

SURVEY = "A Survey of Graph Neural Networks"
TOPIC = "Graph Neural Networks"
TRAFFIC, MOLECULES = "Graph neural networks for traffic", "Graph neural networks for molecules"
MPNN, GAT = "Message passing neural networks", "Graph attention networks"
OTHERS = ["Protein folding with deep learning",
          "Image classification with convolutional networks"]
TITLES = [MOLECULES, TRAFFIC, MPNN, GAT, *OTHERS]
DECIDE = "You are a research assistant collecting the papers"


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    """The survey itself (its title matches the topic best) and six papers."""
    from scholarbench.corpus.build import build_corpus
    tmp = tmp_path_factory.mktemp("taxo-deep-research")
    pdfs = [{"title": SURVEY, "abs": "We survey graph neural networks."}]
    pdfs += [{"title": t, "abs": f"About {t.lower()}."} for t in TITLES]
    inst = tmp / "inst.jsonl"
    inst.write_text(json.dumps({"id": 1, "survey": "x", "pdfs": pdfs,
                                "gt": {"name": "r", "papers": ["x"]}}) + "\n")
    build_corpus(tmp / "corpus", [inst], None)
    return tmp / "corpus"


TASK = TaxoTask("9", TOPIC, SURVEY, [], TaxoNode("GNN", papers=[TRAFFIC, MOLECULES]))


def client(fake, cache=None, max_retries=0, role="agent", concurrency=4) -> ChatClient:
    config = ModelConfig(role=role, model=f"fake-{role}", base_url=fake.base_url,
                         max_retries=max_retries, concurrency=concurrency)
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.02))


def ctx(llm, corpus_dir):
    return AgentContext("deep-research", FakeEmbedder(), corpus_dir=corpus_dir, llm=llm)


def node(name, papers=(), subtopics=()):
    return {"name": name, "subtopics": list(subtopics), "papers": list(papers)}


def decision(relevant=(), notes="", action="search", query=""):
    return Step(text=json.dumps({"relevant": list(relevant), "notes": notes, "action": action,
                                 "query": query}))


def readings(body) -> list[str]:
    """The titles a decide prompt shows ("1. Title (year)")."""
    text = body["messages"][0]["content"].split("had not read before")[1]
    return re.findall(r"^\d+\. (.+?)(?: \(\d{4}\))?$", text.split("\n\nReply with")[0],
                      re.MULTILINE)


def is_decide(body) -> bool:
    return DECIDE in body["messages"][0]["content"]


def test_loop_queries_and_the_exact_tree(fake, corpus_dir):
    fake.push(decision([1, 2], "GNNs applied to traffic and molecules", "search",
                       "message passing"),
              decision([1], "MPNNs unify them", "stop"),
              Step(text=json.dumps(node("GNN", subtopics=[node("Applications", [1, 2]),
                                                          node("Architectures", [3])]))))
    agent = DeepResearchTaxoAgent(k=4, read_per_step=2, max_steps=3, depth=10)
    pred = agent.generate(TASK, ctx(client(fake), corpus_dir))
    decide, build = fake.requests[:2], fake.requests[2]
    assert len(fake.requests) == 3 and all(is_decide(b) for b in decide)
    # step 1: the topic, the two best unread hits (the survey, tied first, is excluded)
    assert "topic: Graph Neural Networks." in decide[0]["messages"][0]["content"]
    assert readings(decide[0]) == [TRAFFIC, MOLECULES]
    assert "1. Graph Neural Networks\n2. message passing" in decide[1]["messages"][0]["content"]
    assert readings(decide[1]) == [MPNN]
    # relevant papers first (judgement order), then the fused search lists, cut to k = 4
    assert pred.retrieved == [TRAFFIC, MOLECULES, MPNN, GAT]
    assert pred.error is None
    assert pred.taxonomy == TaxoNode("GNN", [
        TaxoNode("Applications", papers=[TRAFFIC, MOLECULES]),
        TaxoNode("Architectures", papers=[MPNN]),
        TaxoNode(UNASSIGNED, papers=[GAT])])
    assert pred.to_upstream()["retrieved_papers"] == pred.retrieved
    # the builder is llm-taxonomy's: its prompt over the retrieved papers, in ranking order
    user = build["messages"][1]["content"]
    assert "of the following 4 papers" in user and "Survey Topic: Graph Neural Networks" in user
    assert user.index(TRAFFIC) < user.index(MOLECULES) < user.index(MPNN) < user.index(GAT)
    info = pred.info
    assert (info["placed"], info["dropped"], info["research_llm_calls"],
            info["research_llm_failed"], info["research_llm_unscored"],
            info["research_queries"], info["judged_relevant"], info["judged_irrelevant"]) == \
        (3, 1, 2, 0, 0, 2, 3, 0)
    assert info["research"]["queries"] == [TOPIC, "message passing"]
    assert info["research"]["stopped"] == "model" and "fallback" not in info
    assert info["research"]["notes"] == ["GNNs applied to traffic and molecules",
                                         "MPNNs unify them"]


def test_the_survey_is_never_searched_up_read_or_retrieved(fake, corpus_dir):
    """Even when the model searches for the survey's exact title."""
    def answer(body):
        if is_decide(body):
            shown = readings(body)
            return decision(list(range(1, len(shown) + 1)), "n", "search",
                            f"{SURVEY} {len(fake.requests)}")
        return Step(text=json.dumps(node("GNN", subtopics=[node("All", [1])])))
    fake.default = answer
    pred = DeepResearchTaxoAgent(k=10, read_per_step=3, max_steps=3).generate(
        TASK, ctx(client(fake), corpus_dir))
    assert pred.retrieved and SURVEY not in pred.retrieved
    for body in fake.requests:
        if is_decide(body):
            assert SURVEY not in readings(body)
    # the same rule as bm25-title: the topic's and the survey's titles are excluded
    task = TaxoTask("10", SURVEY, SURVEY, [], TaxoNode("r", papers=["e"]))
    pred = DeepResearchTaxoAgent(k=10).generate(task, ctx(client(fake), corpus_dir))
    assert pred.retrieved and SURVEY not in pred.retrieved


@pytest.mark.parametrize("first, second, counted", [
    (Step(status=500), None, "research_llm_failed"),
    (Step(text="I think papers 1 and 2."), Step(text='{"relevant": [9]}'),
     "research_llm_unscored"),
])
def test_a_failed_decision_ends_the_loop_with_what_the_first_search_found(
        fake, corpus_dir, first, second, counted):
    """Rule: the loop stops and answers with the fused ranking of the searches run so far (here
    the topic's BM25 list); the taxonomy is still built over it; the failure is counted."""
    fake.push(first, *([second] if second else []),
              Step(text=json.dumps(node("GNN", subtopics=[node("All", [1, 2, 3, 4, 5])]))))
    pred = DeepResearchTaxoAgent(k=5).generate(TASK, ctx(client(fake), corpus_dir))
    assert pred.retrieved == [TRAFFIC, MOLECULES, GAT, MPNN, OTHERS[1]]   # BM25 order
    assert pred.error is None and pred.taxonomy.children[0].papers == pred.retrieved
    assert pred.info[counted] == 1 and pred.info["research"]["stopped"] == "llm_failure"
    assert pred.info["fallback"][0].startswith("stop: answer with what was found so far")


def test_a_failed_taxonomy_keeps_the_retrieved_list_and_an_empty_search_is_an_error(
        fake, corpus_dir):
    fake.push(decision([1], "n", "stop"), Step(text="no tree"), Step(text="still no tree"))
    pred = DeepResearchTaxoAgent(k=3).generate(TASK, ctx(client(fake), corpus_dir))
    assert pred.taxonomy is None and pred.error.startswith("taxonomy reply unusable")
    assert pred.retrieved == [TRAFFIC, MOLECULES, GAT]
    assert pred.to_upstream() == {"id": "9", "hierarchy_tree": None,
                                  "retrieved_papers": pred.retrieved}
    fake.push(decision([], "nothing", "stop"))
    nothing = TaxoTask("11", "zzzz qqqq", "zzzz qqqq: a survey", [], TaxoNode("r"))
    pred = DeepResearchTaxoAgent().generate(nothing, ctx(client(fake), corpus_dir))
    assert (pred.taxonomy, pred.retrieved, pred.error) == (None, [], NOTHING_FOUND)


def test_registered_and_config_names_what_changes_the_output():
    assert "deep-research" in REGISTRY.names("agent")
    agent = make_agent("deep-research", k=7, input="summary", max_steps=2)
    assert isinstance(agent, DeepResearchTaxoAgent) and agent.modes == ("deep-research",)
    assert agent.uses_llm and isinstance(agent.builder, LLMTaxonomyAgent)
    config = agent.config()
    assert config["research"]["k"] == 7 and config["research"]["max_steps"] == 2
    assert config["research"]["prompt"].startswith("deep_research_decide_v1@")
    assert {"fields", "search", "abstract_chars", "paragraph_chars", "depth", "read_per_step",
            "max_read", "max_tokens", "exclude"} <= set(config["research"])
    assert config["builder"]["input"] == "summary" and "retrieval" not in config["builder"]
    assert config != make_agent("deep-research", k=7, input="summary").config()
    with pytest.raises(ValueError, match="input must be one of"):
        make_agent("deep-research", input="full-text")
    with pytest.raises(ValueError, match="fields"):
        make_agent("deep-research", fields="abstract")


# ---- whole runs ------------------------------------------------------------------------------

def _gold(tmp_path):
    rows = [{"id": i, "survey": SURVEY, "survey_topic": topic,
             "pdfs": [{"title": t, "abs": ""} for t in (TRAFFIC, MOLECULES, MPNN)],
             "gt": {"name": "GNN", "subtopics": [
                 {"name": "Applications", "papers": [TRAFFIC, MOLECULES]},
                 {"name": "Architectures", "papers": [MPNN]}]}}
            for i, topic in ((1, TOPIC), (2, "Graph neural networks for science"))]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _answer(body):
    """Decide: every reading relevant, one follow-up query, then stop; taxonomy: papers 1-2 and
    the rest; judge: 3s."""
    system = body["messages"][0]["content"]
    if "senior, rigorous, and objective" in system:
        dims = ("semantic_coverage", "sibling_organization", "hierarchical_logic",
                "structural_topology")
        return Step(text=json.dumps({d: {"score": 3, "reasoning": "r"} for d in dims}))
    if is_decide(body):
        n = len(readings(body))
        step = int(re.search(r"This is step (\d+)", system).group(1))
        return decision(list(range(1, n + 1)), "n", "search" if step == 1 else "stop",
                        "message passing" if step == 1 else "")
    count = int(re.search(r"of the following (\d+) papers", body["messages"][1]["content"])
                .group(1))
    return Step(text=json.dumps(node("GNN", subtopics=[
        node("First", [1, 2]), node("Rest", list(range(3, count + 1)))])))


def test_full_run_in_deep_research_mode_and_a_second_run_makes_no_call(tmp_path, fake,
                                                                       corpus_dir):
    gold = _gold(tmp_path)
    fake.default = _answer
    cache_path = tmp_path / "replies.sqlite"

    def roles():
        cache = ReplyCache(cache_path)
        # concurrency 1: one sample at a time, as the scripted replies assume
        return LLMRoles(agent=client(fake, cache, 1, concurrency=1),
                        judge=client(fake, cache, 1, "judge"), cache=cache)

    def config(out, r):
        return RunConfig(gold, "deep-research", "deep-research", out, corpus_dir=corpus_dir,
                         progress=False, agent_params={"k": 3, "read_per_step": 2},
                         llm=r, judge=r.judge)

    first = roles()
    out = tmp_path / "run"
    summary = run(config(out, first), FakeEmbedder())
    calls = len(fake.requests)
    # per instance: 2 decide calls + 1 taxonomy; one judgement: the two instances' judge
    # requests are identical (same tree, same gold) and identical requests are sent once
    judged = [b for b in fake.requests
              if "senior, rigorous, and objective" in b["messages"][0]["content"]]
    assert len(judged) == 1
    assert calls == 2 * 3 + 1
    assert summary["n_missing"] == summary["n_malformed"] == 0
    assert summary["metrics"]["recall"]["mean"] == 1.0
    assert summary["metrics"]["judge_avg"]["mean"] == 3.0
    assert summary["agent_info"]["research_llm_calls"] == 4
    assert summary["agent_info"]["research_queries"] == 4
    assert all(SURVEY not in readings(b) for b in fake.requests if is_decide(b))
    generated = [json.loads(line) for line in (out / "generate.jsonl").read_text().splitlines()]
    assert generated[0]["prediction"]["retrieved_papers"] == [TRAFFIC, MOLECULES, MPNN]
    assert generated[0]["info"]["research"]["queries"] == [TOPIC, "message passing"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agent_config"]["research"]["k"] == 3
    assert manifest["llm_usage"]["agent"]["calls"] == 6

    again = roles()
    summary2 = run(config(tmp_path / "run2", again), FakeEmbedder())
    assert len(fake.requests) == calls                             # zero new model calls
    assert again.agent.usage.calls == again.judge.usage.calls == 0
    assert summary2["metrics"] == summary["metrics"]
