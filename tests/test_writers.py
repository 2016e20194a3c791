"""The report writers (e2e-writer, agentic-writer) against a scripted OpenAI-compatible server
and the hand-made corpus of test_deepsynth_oracle: oracle ids, the References section,
cut-off and exclusions in every search, the token budget, failures returned as errors."""
from __future__ import annotations

import json
import re
from datetime import date

import pytest

from fake_openai import FakeOpenAI, Step
from test_deepsynth_oracle import (LATE, OLD, R1, R2, R2_PARAGRAPH, SURVEY, build_corpus,
                                   client, kind_of)
from scholarbench.agents.writers.base import (OracleReference, WriterContext, WritingRequest,
                                              make_writer)
from scholarbench.agents.writers.budget import pack, shares, tail_tokens, truncate_tokens
from scholarbench.agents.writers.common import (SourcePool, cited_numbers, finish_report,
                                                strip_bibliography)
from scholarbench.corpus.store import Corpus
from scholarbench.llm.tokens import count_message_tokens, count_tokens
from scholarbench.core.registry import REGISTRY

CUTOFF = date(2023, 1, 15)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return Corpus.open(build_corpus(tmp_path_factory.mktemp("writers-corpus")))


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


def oracle() -> tuple[OracleReference, ...]:
    return (OracleReference(1, "Widget transformers", R1, "Widget transformers attend."),
            OracleReference(2, "Gadget pooling for widgets", R2, "Gadget pooling pools."),
            OracleReference(3, "A paper outside the corpus", None, ""))


def request(**kw) -> WritingRequest:
    base = dict(task_id="7", prompt="Write a survey on widget learning.", topic="widget learning",
                cutoff=CUTOFF, exclude_ids=("arXiv:2301.00001",))
    base.update(kw)
    return WritingRequest(**base)


def section_of(text: str, name: str) -> str:
    """The body of a prompt's '=== name ===' block."""
    return text.split(f"=== {name} ===")[1].split("\n=== ")[0]


def ids_in(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^\[(\d+)\]", text, re.MULTILINE)]


class Agentic:
    """Answers each agentic step from what its prompt shows (ids echoed back)."""

    def __init__(self, bad_plan_first=False, polish="keep"):
        self.bad_plan_first, self.polish = bad_plan_first, polish

    def __call__(self, body):
        text = body["messages"][0]["content"]
        kind = kind_of(body)
        if kind == "plan":
            if self.bad_plan_first and len(body["messages"]) == 1:
                return Step(text="Here is my plan: sections about widgets")
            shown = ids_in(section_of(text, "Sources"))
            return Step(text=json.dumps({"title": "Widget learning", "sections": [
                {"heading": "Transformers", "focus": "widget transformers",
                 "papers": shown[:1]},
                {"heading": "Pooling", "focus": "gadget pooling", "papers": shown[1:2]}]}))
        if kind == "select":
            return Step(text=json.dumps({"papers": ids_in(section_of(text,
                                                                     "Candidate sources"))[:2]}))
        if kind == "notes":
            return Step(text="\n".join(f"- detail [{n}]" for n in ids_in(section_of(text,
                                                                                 "Papers"))))
        if kind == "section":
            cited = sorted(set(int(n) for n in re.findall(r"\[(\d+)\]",
                                                          section_of(text, "Reading notes for "
                                                                           "this section"))))
            return Step(text="Body text " + " ".join(f"[{n}]" for n in cited) + ".")
        if kind == "polish":
            draft = text.split('" ===\n', 1)[1].split("\n\n=== Task ===")[0]
            if self.polish == "drop":
                return Step(text="A polished text without any citation marker at all, long.")
            return Step(text=draft + " Polished.")
        return Step(text="ok")


# ---- e2e ---------------------------------------------------------------------------------

def test_e2e_over_the_oracle_cites_its_ids(fake, corpus):
    fake.default = Step(text="# Widgets\n\n## Methods\n\nTransformers [1] and pooling [2, 3]; "
                             "bad [9].\n\n## References\n\n1. Model-made entry")
    out = make_writer("e2e-writer").write(request(oracle=oracle()),
                                          WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None
    prompt = fake.requests[0]["messages"][0]["content"]
    assert "[1] Widget transformers\nWidget transformers attend." in prompt
    assert "[3] A paper outside the corpus" in prompt
    assert "Write a survey on widget learning." in prompt
    assert "Model-made entry" not in out.markdown
    refs = out.markdown.split("## References\n\n")[1].splitlines()
    assert refs == ['[1] "Widget transformers." arXiv:2001.00001',
                    '[2] "Gadget pooling for widgets." doi:10.1234/r2',
                    '[3] "A paper outside the corpus."']
    assert out.cited == [R1, R2]
    assert out.info["sources"] == "oracle" and out.info["n_invalid_citations"] == 1
    assert out.info["n_cited"] == 3 and out.info["llm"] == {"calls": 1, "failed": 0,
                                                            "unscored": 0}


def test_the_references_section_reads_back_through_reportbench_parser(fake, corpus):
    from scholarbench.references.report_refs import parse_report
    fake.default = Step(text="# W\n\nA [1]. B [2].")
    out = make_writer("e2e-writer").write(request(oracle=oracle()),
                                          WriterContext(llm=client(fake), corpus=corpus))
    parsed = {r.label: r for r in parse_report(out.markdown)}
    assert parsed["1"].stated_titles == ["Widget transformers"]
    assert parsed["1"].ids == ["arxiv:2001.00001"]
    assert parsed["2"].stated_titles == ["Gadget pooling for widgets"]


@pytest.mark.parametrize("excluded", [("arXiv:2301.00001",), (SURVEY,),
                                      ("A survey of widget learning",)])
def test_e2e_without_oracle_searches_before_the_cutoff_without_the_survey(fake, corpus,
                                                                         excluded):
    fake.default = Step(text="# W\n\nA [1] B [2] C [3] D [4] E [5].")
    out = make_writer("e2e-writer").write(request(exclude_ids=excluded),
                                          WriterContext(llm=client(fake), corpus=corpus))
    sources = section_of(fake.requests[0]["messages"][0]["content"], "Sources")
    assert "Widget transformers" in sources and "Early widget learning methods" in sources
    assert "Widget learning after the survey" not in sources        # after the cut-off
    assert "A survey of widget learning" not in sources             # the excluded survey
    assert out.info["sources"] == "search"
    assert set(out.cited) <= {R1, R2, OLD, "arxiv:2002.00003"} and SURVEY not in out.cited
    assert LATE not in out.cited


def test_e2e_exclusions_drop_any_paper_and_no_corpus_means_no_sources(fake, corpus):
    fake.default = Step(text="# W\n\nText.")
    make_writer("e2e-writer").write(request(exclude_ids=(R1, "arXiv:2301.00001")),
                                    WriterContext(llm=client(fake), corpus=corpus))
    assert "Widget transformers" not in fake.requests[0]["messages"][0]["content"]
    out = make_writer("e2e-writer").write(request(), WriterContext(llm=client(fake)))
    assert out.info["sources"] == "none" and out.info["n_sources"] == 0
    assert "no sources are available" in fake.requests[1]["messages"][0]["content"]


# ---- agentic -----------------------------------------------------------------------------

def test_agentic_plans_selects_reads_full_text_writes_and_polishes(fake, corpus):
    fake.default = Agentic()
    out = make_writer("agentic-writer").write(request(oracle=oracle()),
                                              WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None, out.error
    kinds = [kind_of(b) for b in fake.requests]
    assert kinds == ["plan", "select", "notes", "section", "select", "notes", "section",
                     "polish", "polish"]
    notes_prompts = [b["messages"][0]["content"] for b in fake.requests
                     if kind_of(b) == "notes"]
    assert any(R2_PARAGRAPH in p for p in notes_prompts)     # read in full from the corpus
    section_prompts = [b["messages"][0]["content"] for b in fake.requests
                       if kind_of(b) == "section"]
    assert "(this is the first section)" in section_prompts[0]
    assert "## Transformers" in section_of(section_prompts[1],
                                           "End of the sections written so far")
    assert "Title: Widget learning\n1. Transformers — widget transformers" in section_prompts[0]
    md = out.markdown
    assert md.startswith("# Widget learning\n\n## Transformers\n\nBody text")
    assert "## Pooling" in md and "Polished." in md and "## References" in md
    assert out.info["sections_written"] == 2 and out.info["polish_applied"] == 2
    assert out.info["read_full_text"] >= 1 and out.info["llm"]["calls"] == 9
    assert set(out.cited) <= {R1, R2}


def test_polish_that_drops_citations_is_rejected(fake, corpus):
    fake.default = Agentic(polish="drop")
    out = make_writer("agentic-writer").write(request(oracle=oracle()),
                                              WriterContext(llm=client(fake), corpus=corpus))
    assert out.info["polish_rejected"] == 2 and "Polished" not in out.markdown
    assert "Body text [" in out.markdown


def test_agentic_without_oracle_searches_each_section_within_the_filters(fake, corpus):
    fake.default = Agentic()
    out = make_writer("agentic-writer", polish=False).write(
        request(oracle=None), WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None and out.info["sources"] == "search"
    for body in fake.requests:
        text = body["messages"][0]["content"]
        assert not re.search(r"\[\d+\] (Widget learning after the survey|A survey of widget "
                             r"learning)", text)
    assert LATE not in out.cited and SURVEY not in out.cited


@pytest.mark.parametrize("name, params", [
    ("e2e-writer", {}),
    ("agentic-writer", {}),
    ("agentic-writer", {"max_sections": 3, "papers_per_section": 5}),
])
def test_no_request_exceeds_the_token_budget(fake, corpus, name, params):
    big = "widget gadget transformer pooling " * 900
    refs = tuple(OracleReference(n, f"Widget paper number {n} " + "long title " * 30,
                                 R2 if n == 2 else None, big) for n in range(1, 301))
    fake.default = Agentic(bad_plan_first=True) if name == "agentic-writer" else \
        Step(text="# W\n\n" + "text [1] " * 300)
    writer = make_writer(name, context_window=4096, **params)
    out = writer.write(request(prompt="Survey widgets. " * 3000, oracle=refs),
                       WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None and fake.requests
    for body in fake.requests:
        used = count_message_tokens(body["messages"]) * 1.3 + body["max_tokens"] + 64
        assert used <= 4096, (kind_of(body), used)
    assert out.info["hard_cuts"] == 0
    if name == "agentic-writer":
        assert any(len(b["messages"]) == 3 for b in fake.requests)     # the repair turn
        assert out.info["llm"]["unscored"] == 0
    else:
        assert out.info["n_sources_dropped"] > 0


def test_failures_are_returned_as_errors_never_raised(fake, corpus):
    fake.default = Step(status=500)
    ctx = WriterContext(llm=client(fake), corpus=corpus)
    e2e = make_writer("e2e-writer").write(request(oracle=oracle()), ctx)
    assert e2e.markdown == "" and "call failed" in e2e.error and e2e.info["llm"]["failed"] == 1
    agentic = make_writer("agentic-writer").write(request(oracle=oracle()), ctx)
    assert agentic.markdown == "" and agentic.error.startswith("every section failed")
    assert agentic.info["sections_failed"] == 1                     # the fallback Overview
    assert agentic.info["fallback"][0].startswith("plan: one Overview section")
    fake.default = Step(text="   ")
    empty = make_writer("e2e-writer").write(request(oracle=oracle()), ctx)
    assert empty.error == "write: the model returned an empty report"
    no_model = make_writer("agentic-writer").write(request(), WriterContext(corpus=corpus))
    assert no_model.error and "needs the agent role" in no_model.error


def test_a_failed_section_is_dropped_and_counted(fake, corpus):
    agentic = Agentic()

    def server(body):
        if kind_of(body) == "section" and "Pooling" in section_of(
                body["messages"][0]["content"], "Task"):
            return Step(status=500)
        return agentic(body)
    fake.default = server
    out = make_writer("agentic-writer").write(request(oracle=oracle()),
                                              WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None and out.info["sections_failed"] == 1
    assert "## Transformers" in out.markdown and "## Pooling" not in out.markdown


def test_registered_names_configs_and_checks():
    assert {"e2e-writer", "agentic-writer"} <= set(REGISTRY.names("agent"))
    a, b = make_writer("agentic-writer"), make_writer("agentic-writer")
    assert a.config() == b.config() and a.uses_llm and a.name == "agentic-writer"
    assert make_writer("e2e-writer", k=5).config()["k"] == 5
    with pytest.raises(ValueError, match="max_sections"):
        make_writer("agentic-writer", max_sections=0)
    with pytest.raises(ValueError, match="k must be"):
        make_writer("e2e-writer", k="many")
    with pytest.raises(ValueError, match="leaves no room"):
        make_writer("e2e-writer", max_tokens=8000)


# ---- search="deep-research": the deep-research loop finds the initial sources -------------

DECIDE = "You are a research assistant collecting the papers"


def readings(body) -> list[str]:
    """The titles a deep-research decide prompt shows ("1. Title (year)")."""
    text = body["messages"][0]["content"].split("had not read before")[1].split("\n\nReply")[0]
    return re.findall(r"^\d+\. (.+?)(?: \(\d{4}\))?$", text, re.MULTILINE)


def researching(then, queries=("widget learning after the survey", "a survey of widget learning")):
    """Decide: every reading relevant, then the scripted queries (which name the late paper and
    the survey), then stop; every other prompt goes to ``then``."""
    def answer(body):
        text = body["messages"][0]["content"]
        if DECIDE not in text:
            return then(body) if callable(then) else then
        step = int(re.search(r"This is step (\d+)", text).group(1))
        more = step <= len(queries)
        return Step(text=json.dumps({"relevant": list(range(1, len(readings(body)) + 1)),
                                     "notes": f"step {step}", "action":
                                     "search" if more else "stop",
                                     "query": queries[step - 1] if more else ""}))
    return answer


def test_e2e_deep_research_search_keeps_the_cutoff_and_exclusions(fake, corpus):
    fake.default = researching(Step(text="# W\n\nA [1] B [2] C [3] D [4] E [5]."))
    writer = make_writer("e2e-writer", search="deep-research")
    out = writer.write(request(), WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None
    decide = [b for b in fake.requests if DECIDE in b["messages"][0]["content"]]
    write = [b for b in fake.requests if DECIDE not in b["messages"][0]["content"]]
    assert len(decide) == 3 and len(write) == 1
    # the loop's queries: the topic, then the model's (aimed at the late paper and the survey)
    assert out.info["research"]["queries"] == ["widget learning",
                                               "widget learning after the survey",
                                               "a survey of widget learning"]
    assert out.info["research"]["stopped"] == "model"
    shown = [t for b in decide for t in readings(b)]
    assert "Widget transformers" in shown and "Early widget learning methods" in shown
    assert "Widget learning after the survey" not in shown          # after the cut-off
    assert "A survey of widget learning" not in shown               # the excluded survey
    sources = section_of(write[0]["messages"][0]["content"], "Sources")
    assert "Widget learning after the survey" not in sources
    assert "A survey of widget learning" not in sources
    # the sources are the loop's answer in its order: papers judged relevant first
    assert re.findall(r"^\[\d+\] (.+?) \(\d{4}\)$", sources, re.MULTILINE)[:len(shown)] == shown
    assert LATE not in out.cited and SURVEY not in out.cited and out.cited
    # the loop's calls are the writer's: 3 decide + 1 write
    assert out.info["llm"] == {"calls": 4, "failed": 0, "unscored": 0}
    assert out.info["sources"] == "search" and "fallback" not in out.info


def test_deep_research_search_falls_back_to_what_it_found_when_a_decision_fails(fake, corpus):
    """Rule: the loop stops at the failed decision and its answer is the fused ranking of the
    searches already run (here BM25 for the topic); counted, named in ``fallback``."""
    fake.push(Step(status=500))
    fake.default = Step(text="# W\n\nA [1].")
    out = make_writer("e2e-writer", search="deep-research").write(
        request(), WriterContext(llm=client(fake), corpus=corpus))
    bm25 = make_writer("e2e-writer")
    fake.default = Step(text="# W\n\nA [1].")
    plain = bm25.write(request(), WriterContext(llm=client(fake), corpus=corpus))
    assert out.error is None and out.info["llm"] == {"calls": 2, "failed": 1, "unscored": 0}
    assert out.info["fallback"][0].startswith("stop: answer with what was found so far")
    assert out.info["research"]["stopped"] == "llm_failure"
    assert section_of(fake.requests[1]["messages"][0]["content"], "Sources") == \
        section_of(fake.requests[2]["messages"][0]["content"], "Sources")
    assert out.cited == plain.cited


def test_agentic_deep_research_search_and_a_repeated_write_makes_no_call(fake, corpus, tmp_path):
    from scholarbench.llm.cache import ReplyCache
    fake.default = researching(Agentic(), queries=("widget learning after the survey",))
    cache_path = tmp_path / "replies.sqlite"
    writer = make_writer("agentic-writer", search="deep-research", polish=False)
    first = writer.write(request(), WriterContext(llm=client(fake, cache=ReplyCache(cache_path)),
                                                   corpus=corpus))
    assert first.error is None and first.info["research"]["queries"][1] == \
        "widget learning after the survey"
    for body in fake.requests:
        text = body["messages"][0]["content"]
        assert not re.search(r"\[\d+\] (Widget learning after the survey|A survey of widget "
                             r"learning)", text)
        if DECIDE in text:
            assert not {"Widget learning after the survey",
                        "A survey of widget learning"} & set(readings(body))
    assert LATE not in first.cited and SURVEY not in first.cited
    n = len(fake.requests)
    again = writer.write(request(), WriterContext(llm=client(fake, cache=ReplyCache(cache_path)),
                                                  corpus=corpus))
    assert len(fake.requests) == n and again.markdown == first.markdown


def test_the_search_option_is_checked_and_in_the_config():
    bm25 = make_writer("e2e-writer").config()
    assert "search" not in bm25 and "research" not in bm25        # as before the option
    for name in ("e2e-writer", "agentic-writer"):
        config = make_writer(name, search="deep-research", research_steps=2, k=12).config()
        assert config["search"] == "deep-research"
        assert config["research"]["max_steps"] == 2 and config["research"]["k"] == 12
        assert config["research"]["prompt"].startswith("deep_research_decide_v1@")
        assert config["research"]["fields"] == "title+abstract"
        with pytest.raises(ValueError, match="search must be one of"):
            make_writer(name, search="web")
        with pytest.raises(ValueError, match="max_steps"):
            make_writer(name, search="deep-research", research_steps=0)


# ---- helpers -----------------------------------------------------------------------------

def test_markers_and_model_bibliographies():
    assert cited_numbers("A [1], B [2-4], C [5; 6] [x](y) [7](u) [3] ref[8]") == [1, 2, 3, 4,
                                                                                 5, 6]
    text, stripped = strip_bibliography("# T\n\nBody [1].\n\n**References**\n\n[1] X\n")
    assert stripped and text == "# T\n\nBody [1].\n"
    text, stripped = strip_bibliography("# T\n\nBody.\n\n## Sources\n- a\n\n## Outlook\nMore.")
    assert stripped and "## Outlook\nMore." in text and "- a" not in text
    assert strip_bibliography("# T\n\nNo list.")[1] is False
    pool = SourcePool()
    md, cited, counts = finish_report("No citations here.", pool)
    assert "References" not in md and cited == [] and counts["n_cited"] == 0


def test_truncation_and_packing_rules():
    text = "word " * 500
    cut = truncate_tokens(text, 50)
    assert count_tokens(cut) <= 50 and cut.endswith(" …") and text.startswith(cut[:-2])
    assert truncate_tokens("short", 50) == "short" and truncate_tokens("x y", 0) == ""
    tail = tail_tokens(text + "END", 20)
    assert tail.startswith("… ") and tail.endswith("END") and count_tokens(tail) <= 20
    assert shares([10, 100, 1000], 300) == [10, 100, 190]
    assert shares([10, 200, 1000], 300) == [10, 145, 145]
    assert shares([5, 5], 100) == [5, 5] and sum(shares([50] * 7, 100)) <= 100
    packed = pack(["tiny", "word " * 400, "word " * 400], 200)
    assert packed[0] == "tiny" and sum(count_tokens(p) for p in packed) <= 200
