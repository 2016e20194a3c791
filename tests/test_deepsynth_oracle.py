"""The DeepSynth-Eval oracle context: reference lists from a file or the corpus, stable [n] ids,
summaries through the LLM layer (cached), title-only and not-in-corpus references counted,
budgets. Also the hand-made corpus, tasks and scripted server the writer and run tests share.

The corpus (dates beside each paper):
    SURVEY  arxiv:2301.00001  "A survey of widget learning"   2023-01-15  cites R1, R2, R3, stub
    R1      arxiv:2001.00001  abstract                         2020-01-10
    R2      doi:10.1234/r2    abstract + 3 full-text paragraphs 2019-05-01
    R3      arxiv:2002.00003  no abstract (title only)         2020-02-01
    stub    "Widget folklore revisited" (only a reference-list title: a stub paper)
    OLD     arxiv:1901.00009  widget paper, not cited          2019-01-20   (search: before)
    LATE    arxiv:2306.00010  widget paper                     2023-06-01   (search: after cut-off)
Task 7 is the survey's; task 8's survey (2302.99999) is not in the corpus.
"""
from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Step
from scholarbench.corpus.build import build
from scholarbench.corpus.store import Corpus
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, ParagraphRecord, Ref
from scholarbench.benchmarks.deepsynth import load_tasks
from scholarbench.benchmarks.deepsynth.oracle import (NOT_IN_CORPUS, SUMMARIZED, SUMMARY_FAILED,
                                                      TITLE_ONLY, OracleBuilder, OracleContext,
                                                      oracle_counts, read_reference_lists,
                                                      survey_cutoff, survey_paper_id)
from scholarbench.agents.writers.budget import TokenBudget
from scholarbench.errors import DataError
from scholarbench.llm.cache import ReplyCache
from scholarbench.llm.client import ChatClient
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.tokens import count_message_tokens

SURVEY, R1, R2, R3 = "arxiv:2301.00001", "arxiv:2001.00001", "doi:10.1234/r2", "arxiv:2002.00003"
OLD, LATE = "arxiv:1901.00009", "arxiv:2306.00010"
R2_PARAGRAPH = "Gadget pooling reaches 91.5 percent accuracy on WidgetBench."


def P(ids, title, year, published=None, abstract="", survey=None):
    return PaperRecord("tiny", tuple(ids), title, abstract, year, published, survey)


PAPERS = {
    "SURVEY": P([SURVEY], "A survey of widget learning", 2023, date(2023, 1, 15), survey=True),
    "R1": P([R1], "Widget transformers", 2020, date(2020, 1, 10),
            "We propose widget transformers for widget learning."),
    "R2": P([R2], "Gadget pooling for widgets", 2019, date(2019, 5, 1),
            "Gadget pooling summarises widget sets."),
    "R3": P([R3], "Widget graphs without abstract", 2020, date(2020, 2, 1)),
    "OLD": P([OLD], "Early widget learning methods", 2019, date(2019, 1, 20),
             "Classic widget learning baselines."),
    "LATE": P([LATE], "Widget learning after the survey", 2023, date(2023, 6, 1),
              "Newer widget learning results."),
}
STUB = Ref((), "Widget folklore revisited")


def build_corpus(out: Path) -> Path:
    records: list = list(PAPERS.values())
    records += [EdgeRecord("reportbench", PAPERS["SURVEY"].ref(), PAPERS[k].ref())
                for k in ("R1", "R2", "R3")]
    records.append(EdgeRecord("reportbench", PAPERS["SURVEY"].ref(), STUB))
    records += [ParagraphRecord("tiny", PAPERS["R2"].ref(), "Method", i, text) for i, text in
                enumerate(["Gadget pooling groups widgets by shape.", R2_PARAGRAPH,
                           "Limitations: gadgets must be small."])]
    build(out, [("tiny", records)], {})
    return out


def checklist():
    return [
        {"group_name": "Methods", "strict": False, "clip_factor": 1.0, "weight": 1.0,
         "sub_groups": [
             {"sub_group_name": "Transformers", "requirements": [
                 {"content": "Describes widget transformers.", "reward": 1.0},
                 {"content": "Mentions gadget pooling accuracy.", "reward": 1.0}]},
             {"sub_group_name": "Graphs", "requirements": [
                 {"content": "Covers widget graphs.", "reward": 1.0}]},
             {"sub_group_name": "Empty", "requirements": []}]},
        {"group_name": "Structure", "strict": True, "clip_factor": 0.8, "weight": 1.0,
         "detailed_prompt": "Organise the widget methods by input type.",
         "sub_groups": [{"sub_group_name": "Taxonomy", "requirements": [
             {"content": "Organises widget methods by input type.", "reward": 1.0},
             {"content": "Discusses limitations of gadget methods.", "reward": 1.0}]}]},
    ]


def write_tasks(path: Path, ids=(7, 8)) -> Path:
    surveys = {7: "2301.00001", 8: "2302.99999"}
    lines = [{"task_id": i, "survey_id": surveys[i],
              "general_prompt": "Please write a comprehensive survey paper on widget learning "
                                "based on the provided papers.",
              "checklist": checklist()} for i in ids]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def client(fake: FakeOpenAI, role: str = "agent", model: str | None = None,
           cache: ReplyCache | None = None, max_retries: int = 0) -> ChatClient:
    config = ModelConfig(role=role, model=model or f"fake-{role}", base_url=fake.base_url,
                         api_key_env="FAKE_KEY_FOR_TESTS", timeout=5.0, max_retries=max_retries)
    return ChatClient(config, cache=cache, retry_wait=(0.01, 0.05))


def prompt_of(body: dict) -> str:
    return body["messages"][-1]["content"] if body["messages"][-1]["role"] == "user" and \
        len(body["messages"]) == 1 else body["messages"][0]["content"]


def kind_of(body: dict) -> str:
    text = body["messages"][0]["content"]
    for marker, kind in (("You are an expert evaluator.", "judge"),
                         ("You are preparing reading material", "summary"),
                         ("You are an expert researcher writing", "e2e"),
                         ("You are the architect", "plan"),
                         ("Choose the sources this section needs", "select"),
                         ("reading notes for this section", "notes"),
                         ("You are the editor", "polish"),
                         ("Write the section", "section")):
        if marker in text:
            return kind
    return "other"


def judge_labels(prompt: str) -> list[str]:
    """A deterministic judge: per requirement, correct when the report names its key word."""
    report = prompt.split("=== Input Data: Survey Content ===")[1].split(
        "=== Input Data: Criteria ===")[0]
    criteria = prompt.split("=== Input Data: Criteria ===")[1].split("=== Evaluation")[0]
    labels = []
    for line in criteria.strip().splitlines():
        req = line.split(". ", 1)[1].lower()
        key = "transformers" if "transformers" in req else "pooling" if "pooling" in req \
            else "graphs" if "graphs" in req else "limitations" if "limitations" in req \
            else "input type"
        labels.append("mentioned_correct" if key in report.lower() else "not_mentioned")
    return labels


def router(*, judge=None, summary="A dense summary.", e2e=None):
    """A scripted server answering by prompt kind; ``judge(prompt) -> labels``."""
    def answer(body: dict) -> Step:
        kind = kind_of(body)
        text = body["messages"][0]["content"]
        if kind == "judge":
            return Step(text="```json\n" + json.dumps((judge or judge_labels)(text)) + "\n```")
        if kind == "summary":
            title = re.search(r"Title: (.*)", text).group(1)
            return Step(text=f"{summary} ({title})")
        if kind == "e2e":
            return Step(text=e2e(text) if e2e else
                        "# Widget learning\n\n## Methods\n\nWidget transformers [1] and gadget "
                        "pooling [2].\n\n## References\n\n1. model-made list")
        return Step(text="ok")
    return answer


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory):
    return build_corpus(tmp_path_factory.mktemp("deepsynth-corpus"))


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def tasks(tmp_path):
    return load_tasks(write_tasks(tmp_path / "tasks.jsonl"))


# ---- tests ---------------------------------------------------------------------------------

def test_reference_list_from_the_corpus_numbered_by_paper_id(corpus_dir, tasks):
    corpus = Corpus.open(corpus_dir)
    context = OracleBuilder(mode="abstract").build(tasks[0], corpus)
    assert context.source == "corpus" and context.survey_paper_id == SURVEY
    refs = corpus.references(SURVEY)
    assert refs == sorted(refs) and len(refs) == 4
    assert [(e.n, e.paper_id) for e in context.entries] == list(enumerate(refs, start=1))
    by_id = {e.paper_id: e for e in context.entries}
    assert by_id[R1].status == "abstract" and by_id[R1].text.startswith("We propose widget")
    assert by_id[R2].full_text and R2_PARAGRAPH in by_id[R2].text
    assert by_id[R3].status == TITLE_ONLY and by_id[R3].text == ""
    stub = next(e for e in context.entries if e.title == "Widget folklore revisited")
    assert stub.status == TITLE_ONLY
    assert context.counts() == {"n_references": 4, "n_full_text": 1, "n_summarized": 0,
                                "n_abstract": 2, "n_summary_failed": 0, "n_title_only": 2,
                                "n_not_in_corpus": 0}
    refs_for_writer = context.references()
    assert [r.n for r in refs_for_writer] == [1, 2, 3, 4]
    # task 8's survey is not in the corpus: no oracle
    none = OracleBuilder(mode="abstract").build(tasks[1], corpus)
    assert none.source == "none" and none.references() is None
    assert oracle_counts([context, none])["tasks_none"] == 1


def test_summaries_through_the_llm_layer_are_cached_and_ids_stable(corpus_dir, tasks, fake,
                                                                    tmp_path):
    fake.default = router()
    cache = ReplyCache(tmp_path / "replies.sqlite")
    corpus = Corpus.open(corpus_dir)
    first = OracleBuilder(client(fake, "judge", cache=cache)).build(tasks[0], corpus)
    summarized = [e for e in first.entries if e.status == SUMMARIZED]
    assert len(summarized) == 2 and len(fake.requests) == 2      # title-only refs: no call
    assert all(e.text.startswith("A dense summary.") for e in summarized)
    prompt = fake.requests[0]["messages"][0]["content"]
    assert "Organise the widget methods by input type." in prompt   # the unified prompt
    assert fake.requests[0]["max_tokens"] == 300
    r2_prompt = next(b["messages"][0]["content"] for b in fake.requests
                     if "Gadget pooling for widgets" in b["messages"][0]["content"])
    assert R2_PARAGRAPH in r2_prompt                                 # full text read
    again = OracleBuilder(client(fake, "judge", cache=ReplyCache(tmp_path / "replies.sqlite"))
                          ).build(tasks[0], corpus)
    assert len(fake.requests) == 2                                   # all from the cache
    assert again == first                                            # same ids, same texts
    assert OracleContext.from_json(json.loads(json.dumps(first.to_json()))) == first


def test_a_failed_summary_falls_back_to_the_source_text_and_is_counted(corpus_dir, tasks, fake):
    fake.default = Step(status=500)
    context = OracleBuilder(client(fake, "judge")).build(tasks[0], Corpus.open(corpus_dir))
    failed = [e for e in context.entries if e.status == SUMMARY_FAILED]
    assert len(failed) == 2 and context.counts()["n_summary_failed"] == 2
    assert any(e.text.startswith("We propose widget transformers") for e in failed)


def test_reference_file_order_and_references_not_in_the_corpus(corpus_dir, tasks, tmp_path):
    path = tmp_path / "refs.jsonl"
    path.write_text(json.dumps({"task_id": 7, "references": [
        {"title": "A paper nobody has", "id": "doi:10.9/none"},
        "arXiv:2002.00003",
        {"title": "Widget Transformers"},
        "Some title only in this list"]}) + "\n", encoding="utf-8")
    lists = read_reference_lists(path)
    context = OracleBuilder(mode="abstract").build(tasks[0], Corpus.open(corpus_dir), lists)
    assert context.source == "file"
    got = [(e.n, e.paper_id, e.status, e.title) for e in context.entries]
    assert got == [(1, None, NOT_IN_CORPUS, "A paper nobody has"),
                   (2, R3, TITLE_ONLY, "Widget graphs without abstract"),
                   (3, R1, "abstract", "Widget transformers"),
                   (4, None, NOT_IN_CORPUS, "Some title only in this list")]
    assert context.counts()["n_not_in_corpus"] == 2
    # no corpus at all: every reference is kept with its title only
    bare = OracleBuilder(mode="abstract").build(tasks[0], None, lists)
    assert [e.status for e in bare.entries] == [NOT_IN_CORPUS] * 4
    assert [e.title for e in bare.entries][1] == "arXiv:2002.00003"


@pytest.mark.parametrize("line, field", [
    ({"references": []}, None),
    ({"task_id": 7, "references": "x"}, "references"),
    ({"task_id": 7, "references": [{"tittle": "x"}]}, "references[0].tittle"),
    ({"task_id": 7, "references": [{}]}, "references[0]"),
    ({"task_id": 7, "refs": []}, "refs"),
])
def test_malformed_reference_files_name_the_line_and_field(tmp_path, line, field):
    path = tmp_path / "refs.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_reference_lists(path)
    assert err.value.line == 1 and err.value.field == field


def test_summary_requests_fit_a_small_context(corpus_dir, tasks, fake, monkeypatch):
    fake.default = router()
    corpus = Corpus.open(corpus_dir)
    long = "widget " * 20000
    real = corpus.paragraphs
    monkeypatch.setattr(corpus, "paragraphs", lambda pid: [
        p.__class__(p.paper_id, p.section, p.position, long, p.cited, p.cited_unresolved,
                    p.source) for p in real(pid)])
    budget = TokenBudget(context_window=2048)
    OracleBuilder(client(fake, "judge"), budget=budget, summary_tokens=200,
                  source_tokens=50000).build(tasks[0], corpus)
    assert fake.requests
    for body in fake.requests:
        assert count_message_tokens(body["messages"]) * 1.3 + body["max_tokens"] + 64 <= 2048


def test_survey_dates_and_ids(corpus_dir, tasks):
    corpus = Corpus.open(corpus_dir)
    assert survey_paper_id(tasks[0], corpus) == SURVEY
    assert survey_cutoff(tasks[0], corpus) == date(2023, 1, 15)
    assert survey_paper_id(tasks[1], corpus) is None
    assert survey_cutoff(tasks[1], corpus) == date(2023, 2, 1)   # first day of its arXiv month
    assert survey_cutoff(tasks[1], None) == date(2023, 2, 1)


def test_builder_settings_are_checked():
    with pytest.raises(ValueError, match="needs a chat model"):
        OracleBuilder()
    with pytest.raises(ValueError, match="unknown oracle mode"):
        OracleBuilder(mode="full")
    with pytest.raises(ValueError, match="source_tokens"):
        OracleBuilder(mode="abstract", source_tokens=0)


def test_shared_tasks_have_no_bibliography(tmp_path):
    """The 4 real tasks carry only survey_id: without a corpus or a file there is no oracle."""
    from conftest import shared_path
    tasks = load_tasks(shared_path("data", "deepsynth", "example_gen_result.jsonl"))
    assert [t.survey_id for t in tasks] == ["2209.06428", "2209.15179", "2210.09292",
                                            "2301.05712"]
    contexts = [OracleBuilder(mode="abstract").build(t, None) for t in tasks]
    assert {c.source for c in contexts} == {"none"}
