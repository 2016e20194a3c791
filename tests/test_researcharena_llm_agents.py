"""The ResearchArena LLM baselines (zero-shot, decomposer, self-rag, storm, few-shot) against a
scripted OpenAI-compatible server on the hand-made corpus: the exact prompts sent, the queries
searched, rank fusion checked by hand, the leakage filters, fallbacks on 500s and malformed
replies (counted, never a crash), and full runs through the runner (manifest, cache)."""
from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI, Step
from test_researcharena_fixtures import CUTOFF_S, build_tiny
from scholarbench.benchmarks.researcharena.agents import ArenaContext, ArenaQuery, make_arena_agent
from scholarbench.benchmarks.researcharena.agents.few_shot import examples_block, parse_reply
from scholarbench.benchmarks.researcharena.agents.common import (bullet_lines, clean_query, fuse,
                                                                 load_prompt, tagged_block)
from scholarbench.corpus.store import Corpus
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.roles import LLMRoles
from scholarbench.benchmarks.researcharena.runs import ArenaRunConfig, run
from scholarbench.benchmarks.researcharena.tasks import SearchSpace

S, U = "arxiv:2106.00100", "s2corpus:300"
A, C, G, H, N, L = ("doi:10.1/a", "arxiv:2105.00003", "arxiv:1903.00007", "doi:10.1/h",
                    "arxiv:2005.00009", "arxiv:2201.00010")
TOPIC_S = "Graph learning: a survey"
Q_S = ArenaQuery(S, TOPIC_S, CUTOFF_S, S, None)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-arena-llm")
    build_tiny(out)
    return out


@pytest.fixture(scope="module")
def corpus(corpus_dir):
    return Corpus.open(corpus_dir)


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def client(fake, cache=None, max_retries=1) -> ChatClient:
    config = ModelConfig(role="agent", model="fake-model", base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=max_retries)
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.05))


def ctx(corpus, llm, task="discovery"):
    return ArenaContext(task, corpus, llm=llm)


def prompt_of(body) -> str:
    return body["messages"][0]["content"]


def ids(output):
    return [pid for pid, _ in output.ranking]


def bm25(corpus, text, k=100, query=Q_S):
    from scholarbench.benchmarks.researcharena.agents import search_filters
    return [p.paper_id for p, _ in corpus.search_bm25(text, k, fields="title",
                                                       **search_filters(query))]


# ---- shared helpers ----------------------------------------------------------------------------

def test_prompts_are_upstreams_text():
    zs = load_prompt("zero_shot_v1").fill(topic="X")
    assert zs == ("Create a search query that gathers supporting materials for writing a survey "
                  "paper on the following topic: X.\n")
    dec = load_prompt("decomposer_v1").fill(topic="Graph learning")
    assert "\nQuestion: Graph learning\n\n### Instructions:" in dec and dec.endswith("guidance.\n")
    assert "only those that are critical to finding important information.  \n" in dec
    # one-pass filling: a topic holding a placeholder stays literal
    assert load_prompt("zero_shot_v1").fill(topic="{topic}").count("{topic}") == 1
    with pytest.raises(KeyError):
        load_prompt("zero_shot_v1").fill(query="x")


@pytest.mark.parametrize("reply, query", [
    ("graph neural networks survey", "graph neural networks survey"),
    ('"graph neural networks"', "graph neural networks"),
    ("Sure! Here is a query.\n\n**Search query:** \"graph  learning methods\"\nIt covers...",
     "graph learning methods"),
    ("```\ngraph learning\n```", "graph learning"),
    ("   \n  ", ""),
])
def test_clean_query(reply, query):
    assert clean_query(reply) == query


def test_queries_block_is_parsed_as_upstream():
    reply = ("<Decomposition>\n  - What is X?\n    - Why?\n</Decomposition>\n<Queries>\n"
             "   - graph attention\n  * graph attention\n2) contrastive graphs\n\n</Queries>")
    assert bullet_lines(tagged_block(reply, "Queries")) == ["graph attention",
                                                            "contrastive graphs"]
    assert bullet_lines(tagged_block(reply, "Decomposition")) == ["What is X?", "Why?"]
    assert tagged_block("<Queries>\n- a\n- b", "Queries") == "\n- a\n- b"   # unclosed: to the end
    assert tagged_block("no tags", "Queries") is None


def test_fuse_by_hand():
    lists = [[("a", 9.0), ("b", 5.0)], [("b", 7.0), ("c", 6.0)], [("d", 1.0)]]
    # rrf: b = 1/62 + 1/61, a = 1/61, d = 1/61 (ties by id), c = 1/62
    assert [p for p, _ in fuse(lists, 10)] == ["b", "a", "d", "c"]
    assert fuse(lists, 10)[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fuse(lists, 2) == fuse(lists, 10)[:2]
    assert fuse(lists, 10, "max-score") == [("a", 9.0), ("b", 7.0), ("c", 6.0), ("d", 1.0)]


# ---- zero-shot ---------------------------------------------------------------------------------

def test_zero_shot_sends_the_papers_prompt_and_searches_the_reply(fake, corpus):
    fake.push(Step(text='Query: "graph attention networks"'))
    out = make_arena_agent("zero-shot").generate(Q_S, ctx(corpus, client(fake)))
    [body] = fake.requests
    assert prompt_of(body) == ("Create a search query that gathers supporting materials for "
                               "writing a survey paper on the following topic: "
                               "Graph learning: a survey.\n")
    assert body["max_tokens"] == 128 and body["temperature"] == 0.0
    assert out.info["query"] == "graph attention networks"
    assert ids(out) == bm25(corpus, "graph attention networks")
    assert ids(out)[:2] == [A, N] and out.info["llm"] == {"calls": 1, "failed": 0,
                                                          "unscored": 0}
    assert "fallback" not in out.info


def test_zero_shot_falls_back_to_the_topic_on_500s_and_counts_it(fake, corpus):
    fake.default = Step(status=500)
    out = make_arena_agent("zero-shot").generate(Q_S, ctx(corpus, client(fake, max_retries=1)))
    assert len(fake.requests) == 2                       # one try + one retry, then give up
    assert out.info["query"] == "graph learning: a survey"
    assert out.info["llm"] == {"calls": 1, "failed": 1, "unscored": 0}
    assert out.info["fallback"][0].startswith("query: the topic (query: call failed")
    title = make_arena_agent("title-bm25").generate(Q_S, ctx(corpus, None))
    assert out.ranking == title.ranking                  # the fallback is exactly TITLE


def test_zero_shot_empty_reply_falls_back(fake, corpus):
    fake.push(Step(text="  "))
    out = make_arena_agent("zero-shot").generate(Q_S, ctx(corpus, client(fake)))
    assert out.info["query"] == "graph learning: a survey"
    assert "no query" in out.info["fallback"][0] and out.info["llm"]["failed"] == 0


# ---- decomposer --------------------------------------------------------------------------------

DECOMPOSITION = ("<Decomposition>\n    - How does attention work on graphs?\n</Decomposition>\n"
                 "<Queries>\n    - attention\n    - convolution recommendation\n"
                 "    - attention networks\n    - attention\n</Queries>")


def test_decomposer_queries_and_rrf_by_hand(fake, corpus):
    fake.push(Step(text=DECOMPOSITION))
    out = make_arena_agent("decomposer").generate(Q_S, ctx(corpus, client(fake)))
    assert prompt_of(fake.requests[0]) == load_prompt("decomposer_v1").fill(topic=TOPIC_S)
    assert fake.requests[0]["max_tokens"] == 1024
    assert out.info["queries"] == ["attention", "convolution recommendation",
                                   "attention networks"]          # the repeat dropped
    assert out.info["sub_questions"] == ["How does attention work on graphs?"]
    # lists: attention -> [A]; convolution recommendation -> [G]; attention networks -> [A, N]
    assert [bm25(corpus, q) for q in out.info["queries"]] == [[A], [G], [A, N]]
    # RRF (K=60): A = 1/61 + 1/61, G = 1/61, N = 1/62
    assert out.ranking == [(A, pytest.approx(2 / 61)), (G, pytest.approx(1 / 61)),
                           (N, pytest.approx(1 / 62))]


def test_decomposer_max_score_fusion_is_upstreams_merge(fake, corpus):
    fake.push(Step(text=DECOMPOSITION))
    out = make_arena_agent("decomposer", fusion="max-score", max_queries=2).generate(
        Q_S, ctx(corpus, client(fake)))
    assert out.info["queries"] == ["attention", "convolution recommendation"]
    assert out.info["queries_dropped"] == 1
    scores = {p.paper_id: s for q in out.info["queries"]
              for p, s in corpus.search_bm25(q, 100, fields="title", before=CUTOFF_S,
                                             exclude_surveys=True, exclude_ids=[S])}
    assert out.ranking == sorted(scores.items(), key=lambda x: (-x[1], x[0]))


@pytest.mark.parametrize("step", [Step(text="I cannot help with that."),
                                  Step(text="<Queries>\n\n</Queries>"), Step(status=500)])
def test_decomposer_falls_back_to_the_topic(fake, corpus, step):
    fake.default = step
    out = make_arena_agent("decomposer").generate(Q_S, ctx(corpus, client(fake, max_retries=0)))
    assert out.info["queries"] == ["graph learning: a survey"]
    assert out.info["fallback"][0].startswith("queries: the topic")
    assert out.info["llm"]["failed"] == (1 if step.status == 500 else 0)


# ---- self-rag ----------------------------------------------------------------------------------

def test_self_rag_judges_refines_and_pins_relevant_papers(fake, corpus):
    fake.push(Step(text="attention networks"),
              Step(text=json.dumps({"relevant": [1], "next_query": "convolution"})),
              Step(text=json.dumps({"relevant": [], "next_query": ""})))
    out = make_arena_agent("self-rag", judge_top=2).generate(Q_S, ctx(corpus, client(fake)))
    judge = prompt_of(fake.requests[1])
    assert "1. attention networks" in judge                       # the queries run so far
    assert "1. Graph attention networks\n2. Message passing graph networks" in judge
    assert "1. Graph convolution for recommendation" in prompt_of(fake.requests[2])
    assert fake.requests[1]["response_format"]["type"] == "json_schema"
    assert out.info["queries"] == ["attention networks", "convolution"]
    assert out.info["stopped"] == "model" and out.info["rounds"] == 2
    # A judged relevant (pinned); N and G judged irrelevant (demoted, in judgement order)
    assert ids(out) == [A, N, G]
    assert out.info["llm"] == {"calls": 3, "failed": 0, "unscored": 0}


def test_self_rag_malformed_judgement_keeps_what_was_found(fake, corpus):
    fake.push(Step(text="attention networks"), Step(text="not json"),
              Step(text='{"relevant": [7], "next_query": ""}'))      # 7 is not a shown number
    out = make_arena_agent("self-rag").generate(Q_S, ctx(corpus, client(fake)))
    assert len(fake.requests) == 3                                  # query, judge, one repair
    assert "not valid JSON" in fake.requests[2]["messages"][-1]["content"]
    assert out.info["llm"] == {"calls": 3, "failed": 0, "unscored": 1}
    assert out.info["stopped"] == "llm_failure" and "stop: keep rounds so far" in \
        out.info["fallback"][0]
    assert ids(out) == [A, N]                                     # round 1's list


def test_self_rag_last_query_ranking_is_the_papers_reading(fake, corpus):
    fake.push(Step(text="attention"),
              Step(text=json.dumps({"relevant": [1], "next_query": "convolution"})))
    out = make_arena_agent("self-rag", rounds=2, ranking="last-query").generate(
        Q_S, ctx(corpus, client(fake)))
    assert len(fake.requests) == 2 and ids(out) == [G] and out.info["stopped"] == "rounds"


# ---- storm -------------------------------------------------------------------------------------

def storm_server(body) -> Step:
    text = prompt_of(body)
    if "group of researchers" in text:
        return Step(text=json.dumps({"perspectives": ["recommender systems engineer"]}))
    if "recommender systems engineer" in text:
        if "conversation so far" in text:
            return Step(text=json.dumps({"questions": []}))
        return Step(text=json.dumps({"questions": [
            {"question": "Which graph models recommend items?",
             "query": "convolution recommendation"}]}))
    if "conversation so far" in text:          # the default perspective, turn 2
        return Step(text=json.dumps({"questions": [
            {"question": "What about attention?", "query": "attention networks"}]}))
    return Step(text=json.dumps({"questions": [
        {"question": "What is attention on graphs?", "query": "attention"}]}))


def test_storm_conversations_and_fusion(fake, corpus):
    fake.default = storm_server
    out = make_arena_agent("storm", perspectives=1).generate(Q_S, ctx(corpus, client(fake)))
    assert out.info["perspectives"] == ["a researcher writing a broad overview of the topic",
                                        "recommender systems engineer"]
    assert out.info["queries"] == ["attention", "attention networks",
                                   "convolution recommendation"]
    turn2 = [prompt_of(b) for b in fake.requests if "conversation so far" in prompt_of(b)]
    assert "Q: What is attention on graphs?\n   query: attention\n   - Graph attention " \
           "networks" in turn2[0]
    # lists [A], [A, N], [G]: RRF A = 2/61, G = 1/61, N = 1/62
    assert ids(out) == [A, G, N] and len(fake.requests) == 5
    discovery = make_arena_agent("storm", perspectives=1, fusion="discovery").generate(
        Q_S, ctx(corpus, client(fake)))
    assert ids(discovery) == [A, N, G]                      # the order of the retrieval history


def test_storm_fallbacks_are_counted(fake, corpus):
    fake.default = Step(status=500)
    out = make_arena_agent("storm").generate(Q_S, ctx(corpus, client(fake, max_retries=0)))
    assert out.info["perspectives"] == ["a researcher writing a broad overview of the topic"]
    assert out.info["queries"] == ["graph learning: a survey"]
    assert [f.split(" (")[0] for f in out.info["fallback"]] == [
        "perspectives: the default one only",
        "questions: end the conversation of 'a researcher writing a broad overview of the "
        "topic'", "queries: the topic"]
    assert out.info["llm"]["failed"] == 2
    assert out.info["fallback"][2] == "queries: the topic (no conversation produced a query)"
    assert ids(out) == bm25(corpus, "graph learning: a survey")


def test_storm_with_no_questions_asked_falls_back_to_the_topic(fake, corpus):
    fake.default = lambda body: Step(text=json.dumps(
        {"perspectives": ["x"]} if "group of researchers" in prompt_of(body)
        else {"questions": []}))
    out = make_arena_agent("storm", perspectives=1).generate(Q_S, ctx(corpus, client(fake)))
    assert out.info["fallback"] == ["queries: the topic (no conversation produced a query)"]
    assert out.info["llm"] == {"calls": 3, "failed": 0, "unscored": 0}


# ---- leakage -----------------------------------------------------------------------------------

LEAKY = "graph survey later benchmarks kernels databases drawing transformers diffusion folklore"


def leaky_server(body) -> Step:
    text = prompt_of(body)
    if "<Decomposition>" in text:
        return Step(text=f"<Queries>\n- {LEAKY}\n- graph methods survey\n</Queries>")
    if "Create a search query" in text:
        return Step(text=LEAKY)
    if "group of researchers" in text:
        return Step(text=json.dumps({"perspectives": ["historian"]}))
    if '"questions"' in text:
        return Step(text=json.dumps({"questions": [{"question": "q", "query": LEAKY}]}))
    if '"action"' in text:
        return Step(text=json.dumps({"relevant": [1], "notes": "n", "action": "search",
                                     "query": LEAKY + " again"}))
    return Step(text=json.dumps({"relevant": [1, 2], "next_query": LEAKY + " more"}))


@pytest.mark.parametrize("agent", ["zero-shot", "decomposer", "self-rag", "storm",
                                   "deep-research"])
def test_llm_agents_respect_the_leakage_filters(tmp_path, corpus_dir, fake, agent):
    fake.default = leaky_server
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", agent, out, corpus_dir, progress=False,
                                 llm=LLMRoles(agent=client(fake))))
    assert summary["n_scored"] == 2 and summary["n_missing"] == 0
    space = SearchSpace.of(Corpus.open(corpus_dir))
    rows = {r["id"]: r for r in map(json.loads, (out / "generate.jsonl").read_text()
                                    .splitlines())}
    for qid, cutoff in ((S, CUTOFF_S), (U, None)):
        got = [pid for pid, _ in rows[qid]["ranking"]]
        assert got and all(space.searchable(pid, cutoff) and pid != qid for pid in got)
    assert L not in [pid for pid, _ in rows[S]["ranking"]]               # after S's cut-off
    assert L in [pid for pid, _ in rows[U]["ranking"]]                   # U has no cut-off
    assert rows[S]["info"]["llm"]["failed"] == 0


# ---- full runs: manifest, usage, cache --------------------------------------------------------

def test_run_records_the_model_and_usage_and_a_second_run_makes_no_calls(tmp_path, corpus_dir,
                                                                         fake):
    fake.default = lambda body: Step(text=DECOMPOSITION)
    cache_path = tmp_path / "replies.sqlite"

    def roles():
        cache = ReplyCache(cache_path)
        return LLMRoles(agent=client(fake, cache), cache=cache)
    first = run(ArenaRunConfig("discovery", "decomposer", tmp_path / "one", corpus_dir,
                               progress=False, llm=roles))
    assert len(fake.requests) == 2                                      # tasks S and U
    manifest = json.loads((tmp_path / "one" / "manifest.json").read_text())
    assert manifest["models"]["agent"]["model"] == "fake-model"
    assert manifest["agent_model"]["model_id"].endswith("|fake-model")
    assert manifest["llm_usage"]["agent"]["calls"] == 2
    assert manifest["llm_usage"]["agent"]["prompt_tokens"] == 22
    assert manifest["agent_config"]["prompts"][0].startswith("decomposer_v1@")
    second = run(ArenaRunConfig("discovery", "decomposer", tmp_path / "two", corpus_dir,
                                progress=False, llm=roles))
    assert len(fake.requests) == 2                                      # all from the cache
    again = json.loads((tmp_path / "two" / "manifest.json").read_text())
    assert again["llm_usage"]["agent"]["calls"] == 0
    assert again["llm_usage"]["agent"]["cache_hits"] == 2
    assert first["metrics"] == second["metrics"]
    assert (tmp_path / "one" / "run.trec").read_text().replace("decomposer", "x") == \
        (tmp_path / "two" / "run.trec").read_text().replace("decomposer", "x")


def test_run_with_a_dead_endpoint_scores_every_sample_by_the_fallback(tmp_path, corpus_dir,
                                                                      fake):
    fake.default = Step(status=503)
    out = tmp_path / "run"
    # the engine makes a failed model call `error` (test_researcharena_engine.py); the fallback
    # is scored as the answer only when the run asks for it
    summary = run(ArenaRunConfig("discovery", "zero-shot", out, corpus_dir, progress=False,
                                 agent_params={"on_model_failure": "fallback"},
                                 llm=LLMRoles(agent=client(fake, max_retries=0))))
    title = run(ArenaRunConfig("discovery", "title-bm25", tmp_path / "t", corpus_dir,
                               progress=False))
    assert summary["n_missing"] == 0 and summary["metrics"] == title["metrics"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["llm_usage"]["agent"]["failures"] == 2
    rows = [json.loads(x) for x in (out / "generate.jsonl").read_text().splitlines()]
    assert all(r["info"]["fallback"] for r in rows)


def test_an_llm_agent_without_a_model_is_refused(tmp_path, corpus_dir):
    from scholarbench.errors import ScholarbenchError
    with pytest.raises(ScholarbenchError, match="uses a chat model"):
        run(ArenaRunConfig("discovery", "zero-shot", tmp_path / "r", corpus_dir,
                           progress=False))


@pytest.mark.parametrize("params", [{"search": "sparse"}, {"k": 0}, {"fusion": "sum"}])
def test_bad_parameters_are_refused(params):
    name = "decomposer"
    with pytest.raises(ValueError):
        make_arena_agent(name, **params)


def test_dense_search_needs_an_embedder(fake, corpus):
    agent = make_arena_agent("zero-shot", search="dense")
    assert agent.needs_embedder and not make_arena_agent("zero-shot").needs_embedder
    with pytest.raises(ValueError, match="embedder"):
        agent.generate(Q_S, ctx(corpus, client(fake)))


# ---- few-shot ----------------------------------------------------------------------------------

TYPOLOGY = {"Graph learning": {"Attention": None, "Contrastive": {"Augmentations": None}}}
Q_ORG = ArenaQuery(S, TOPIC_S, CUTOFF_S, S, (A, C, "doi:10.1/f"))


def test_few_shot_prompt_parse_and_papers(fake, corpus):
    fake.push(Step(text=f"Here it is.\n<typology>\n{json.dumps(TYPOLOGY)}\n</typology>"))
    out = make_arena_agent("few-shot").generate(Q_ORG, ctx(corpus, client(fake), "organisation"))
    text = prompt_of(fake.requests[0])
    assert text.startswith("### Examples\n<topic>\nA Survey on LiDAR Scanning Mechanisms\n")
    assert "<papers>\n- Graph attention networks (2020)\n- Graph contrastive learning (2021)\n" \
           "- Graph folklore without a date\n</papers>\n<topic>\nGraph learning: a survey\n" \
           "</topic>\n" in text
    assert out.error is None and out.info["papers_shown"] == 3
    [top] = out.mindmap.children
    assert out.mindmap.name == "" and top.name == "Graph learning"
    assert [c.name for c in top.children] == ["Attention", "Contrastive"]
    assert top.children[1].children[0].name == "Augmentations"


def test_few_shot_without_papers_is_the_papers_prompt(fake, corpus):
    fake.push(Step(text=f"<typology>{json.dumps(TYPOLOGY)}</typology>"))
    agent = make_arena_agent("few-shot", papers=False)
    agent.generate(Q_ORG, ctx(None, client(fake), "organisation"))
    examples, dropped = examples_block(TOPIC_S)
    assert prompt_of(fake.requests[0]) == load_prompt("few_shot_v1").fill(examples=examples,
                                                                          topic=TOPIC_S)
    assert dropped == 0 and "<papers>" not in prompt_of(fake.requests[0])


def test_few_shot_drops_an_example_on_the_tasks_own_topic():
    examples, dropped = examples_block("A survey on large language models for recommendation")
    assert dropped == 1 and "LLM4Rec" not in examples and "LiDAR" in examples


@pytest.mark.parametrize("reply", [
    '```json\n{"A": {"B": null}}\n```', '{"A": {"B": null}}',
    '<typology>\n```json\n{"A": {"B": null}}\n```\n</typology>'])
def test_few_shot_reply_forms(reply):
    assert [c.name for c in parse_reply(reply).children] == ["A"]


@pytest.mark.parametrize("reply", ["no typology here", "<typology>{\"A\": 3}</typology>",
                                   "<typology>{}</typology>", '<typology>{"": null}</typology>',
                                   "<typology>[\"A\"]</typology>"])
def test_few_shot_rejects_malformed_typologies(reply):
    with pytest.raises(ValueError):
        parse_reply(reply)


def test_few_shot_repairs_once_then_counts_an_error(fake, corpus):
    fake.push(Step(text="<typology>{\"A\": 3}</typology>"),
              Step(text="<typology>{\"A\": {\"B\": null}}</typology>"))
    out = make_arena_agent("few-shot").generate(Q_ORG, ctx(corpus, client(fake), "organisation"))
    assert out.mindmap is not None and out.info["repairs_used"] == 1
    assert "a heading's value must be" in fake.requests[1]["messages"][-1]["content"]
    fake.requests.clear()
    fake.default = Step(text="still not a typology")
    bad = make_arena_agent("few-shot").generate(Q_ORG, ctx(corpus, client(fake), "organisation"))
    assert bad.mindmap is None and bad.error.startswith("unparseable typology")
    assert bad.info["unparseable"] == 1 and bad.info["llm"] == {"calls": 2, "failed": 0,
                                                                 "unscored": 1}
    fake.default = Step(status=500)
    dead = make_arena_agent("few-shot").generate(
        Q_ORG, ctx(corpus, client(fake, max_retries=0), "organisation"))
    assert dead.mindmap is None and "call failed" in dead.error and dead.info["llm"]["failed"] == 1


def test_few_shot_organisation_run_counts_unparseable_as_missing(tmp_path, corpus_dir, fake):
    from conftest import FakeEmbedder
    from test_researcharena_runner import NoEntities
    survey = tmp_path / "survey.jsonl"
    survey.write_text(json.dumps({
        "id": 100, "title": "Graph learning: a survey", "publicationDate": "2021-06-15",
        "references": {"influential": [1], "relevant": [3]},
        "typology": json.dumps({"Graph": {"Attention": None, "Contrastive": None}})}) + "\n" +
        json.dumps({"id": 400, "title": "Graph drawing: a survey",
                    "references": {"relevant": [1]},
                    "typology": json.dumps({"Drawing": None})}) + "\n")
    fake.default = lambda body: Step(
        text="<typology>{\"Graph\": {\"Attention\": null}}</typology>"
        if "Graph learning" in prompt_of(body) else "no idea")
    import scholarbench.benchmarks.researcharena.measures.organisation as org
    original = org.default_entity_extractor
    org.default_entity_extractor = lambda: NoEntities()
    try:
        summary = run(ArenaRunConfig("organisation", "few-shot", tmp_path / "run", corpus_dir,
                                     tasks_from=str(survey), progress=False,
                                     llm=LLMRoles(agent=client(fake))), FakeEmbedder())
    finally:
        org.default_entity_extractor = original
    assert summary["n_samples"] == 2 and summary["n_missing"] == 1
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "run" / "scores.jsonl").read_text()
                                    .splitlines())}
    assert rows["400"]["missing"] and "unparseable typology" in rows["400"]["error"]
    assert rows["100"]["tree_semantic_distance"] >= 0 and not rows["100"]["missing"]


# ---- the real local model (slow: marked, tiny) ------------------------------------------------

@pytest.mark.local_llm
def test_zero_shot_with_the_local_model_end_to_end(tmp_path, corpus_dir):
    from test_llm_local import _require_local
    _require_local()
    from scholarbench.llm.roles import bind_roles
    cache = tmp_path / "replies.sqlite"
    out = tmp_path / "run"
    summary = run(ArenaRunConfig("discovery", "zero-shot", out, corpus_dir, limit=2,
                                 agent_params={"max_tokens": 24}, progress=False,
                                 llm=lambda: bind_roles(need_agent=True, cache_path=cache)))
    assert summary["n_scored"] == 1 and summary["n_missing"] == 0       # S (T is unscorable)
    [row] = [json.loads(x) for x in (out / "generate.jsonl").read_text().splitlines()]
    assert row["info"]["query"] and row["ranking"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agent_model"]["model_id"].startswith("local:qwen2.5-coder-0.5b:")
    assert manifest["llm_usage"]["agent"]["calls"] + manifest["llm_usage"]["agent"][
        "cache_hits"] == 1
    space = SearchSpace.of(Corpus.open(corpus_dir))
    assert all(space.searchable(pid, CUTOFF_S) for pid, _ in row["ranking"])
    again = run(ArenaRunConfig("discovery", "zero-shot", tmp_path / "again", corpus_dir,
                               limit=2, agent_params={"max_tokens": 24}, progress=False,
                               llm=lambda: bind_roles(need_agent=True, cache_path=cache)))
    usage = json.loads((tmp_path / "again" / "manifest.json").read_text())["llm_usage"]["agent"]
    assert usage["calls"] == 0 and usage["cache_hits"] == 1
    assert again["metrics"] == summary["metrics"]
