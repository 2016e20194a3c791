"""Every task family's leakage rule, as its benchmark states it (`Benchmark.tool_source`), held
by every tool: on the hand-made corpus (test_researcharena_fixtures), a sample of each benchmark
whose hidden survey is S (Graph learning: a survey, 2021-06-15), and a sweep that tries to
reach each hidden paper by search (BM25, dense, hybrid; titles and abstracts), by each of its
ids, by its title, and through references / citations / co-citation / coupling / citation
contexts of every visible paper. The expected hidden sets are written out by hand per rule.
The same sweep with no rules finds them — so it can fail."""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from conftest import FakeEmbedder
from test_researcharena_fixtures import PAPERS, build_tiny
from tools_sweep import leaked, run_in_process, sweep_calls

IDS = {name: p.ids[0] for name, p in PAPERS.items()}
ALL = set(IDS.values())
SURVEY_TITLE = "Graph learning: a survey"


def hidden_info(names):
    return {IDS[n]: {"title": PAPERS[n].title, "ids": list(PAPERS[n].ids)} for n in names}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from scholarbench.corpus.store import Corpus
    out = tmp_path_factory.mktemp("tiny-rules")
    build_tiny(out)
    corpus = Corpus.open(out)
    for fields in ("title", "title+abstract"):     # the tools search only a built dense index
        corpus.dense_index(fields, FakeEmbedder())
    return corpus


def _sample(native=None, gold=None):
    from scholarbench.core.benchmark import Sample
    return Sample("s", SimpleNamespace(native=native), gold=gold)


def _researcharena(corpus):
    from scholarbench.benchmarks.researcharena import ResearchArena
    from scholarbench.benchmarks.researcharena.agents.base import ArenaQuery
    query = ArenaQuery(IDS["S"], SURVEY_TITLE, date(2021, 6, 15), IDS["S"], None)
    return ResearchArena({}).tool_source("discovery").rules(_sample(query))


def _reportbench(corpus):
    from scholarbench.benchmarks.reportbench.benchmark import ReportBench
    native = SimpleNamespace(cutoff=date(2021, 6, 15), exclude_ids=("arxiv:2106.00100",),
                             task=SimpleNamespace(title=SURVEY_TITLE))
    return ReportBench({}).tool_source("shipped").rules(_sample(native))


def _taxobench(corpus):
    from scholarbench.benchmarks.taxobench.benchmark import TaxoBench
    native = SimpleNamespace(survey=SURVEY_TITLE, topic="Graph learning")
    return TaxoBench({}).tool_source("deep-research").rules(_sample(native))


def _deepsynth(corpus):
    from scholarbench.benchmarks.deepsynth.benchmark import DeepSynthBenchmark as DeepSynth
    from scholarbench.benchmarks.deepsynth.records import Task
    bench = DeepSynth({})
    bench._corpus = corpus
    return bench.tool_source("report").rules(_sample(gold=Task(task_id=1, checklist=(),
                                                               survey_id="2106.00100")))


# benchmark → (its rule, the papers it hides on this corpus, by hand)
CASES = {
    # ranking: non-surveys known before 2021-06-15, never S
    "researcharena": (_researcharena, {"S", "B", "D", "E", "F", "L", "T", "U", "V"}),
    # report: known before the cut-off (surveys allowed), never the original survey
    "reportbench": (_reportbench, {"S", "B", "D", "F", "L", "U"}),
    # taxonomy (Deep Research mode): everything but the survey
    "taxobench": (_taxobench, {"S"}),
    # report: known before the survey may first have appeared, never the survey
    "deepsynth": (_deepsynth, {"S", "B", "D", "F", "L", "U"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_tool_reaches_a_paper_the_rule_hides(name, corpus):
    from scholarbench.tools.session import ToolSession
    rules_of, hidden_names = CASES[name]
    rules = rules_of(corpus)
    session = ToolSession(corpus, rules, embedder=FakeEmbedder())
    hidden = hidden_info(hidden_names)
    assert {pid for pid in ALL if not session.visible(pid)} == set(hidden)
    visible = sorted(ALL - set(hidden))
    calls = sweep_calls(hidden, visible, modes=("bm25", "dense", "hybrid"))
    results = run_in_process(session, calls)
    assert leaked(results, hidden) == set()
    # a lookup of a hidden paper fails like one of a paper that does not exist
    errors = {str(r) for r, (tool, args) in zip(results, calls)
              if tool == "get_paper" and isinstance(r, Exception)}
    assert all(e.startswith("no paper matches ") for e in errors)
    assert len(errors) >= len(hidden)
    # what the rule leaves visible is reachable: every visible paper by its id
    found = {r["id"] for r, (tool, _) in zip(results, calls)
             if tool == "get_paper" and isinstance(r, dict)}
    assert found == set(visible)
    assert len(session.calls) == len(calls)


def test_the_sweep_finds_them_when_no_rule_hides_them(corpus):
    from scholarbench.tools.session import ToolSession
    session = ToolSession(corpus, None, embedder=FakeEmbedder())
    hidden = hidden_info(CASES["researcharena"][1])
    results = run_in_process(session, sweep_calls(hidden, sorted(ALL - set(hidden))))
    assert set(hidden) <= leaked(results, hidden)


def test_scinet_hides_no_paper_and_offers_no_measure(corpus):
    from scholarbench.benchmarks.scinet.benchmark import SciNet
    from scholarbench.tools.schemas import TOOLS
    from scholarbench.tools.session import ToolSession
    session = ToolSession(corpus, SciNet({}).tool_source("ego").rules(_sample()))
    assert session.visible.count() == corpus.count()
    assert not {"disruption", "novelty", "cd_index"} & set(TOOLS)
    # citation links are the network the paper's relation-aware agents use
    cites = session.call("citations", {"paper": IDS["A"], "k": 100})
    assert {r["id"] for r in cites["results"]} == {IDS[n] for n in ("N", "L", "V", "S", "U")}


def test_an_agent_may_leave_out_surveys_the_rule_allows(corpus):
    from scholarbench.tools.session import ToolSession
    session = ToolSession(corpus, _taxobench(corpus))          # surveys other than S visible
    query = {"query": "A survey of graph methods", "k": 100}
    assert IDS["E"] in {r["id"] for r in session.call("search", query)["results"]}
    without = session.call("search", {**query, "exclude_surveys": True})["results"]
    assert without and IDS["E"] not in {r["id"] for r in without}
    assert not {IDS[n] for n in ("S", "T", "U", "V")} & {r["id"] for r in without}
