"""Answers name papers in every form a task's own prompt offers (core.refs): the paper numbers
of the task's list, its ids, titles — resolved per task, the rest counted as `unresolved` in
each score row and the summary; a reply that is not the family's answer is `malformed`."""
from __future__ import annotations

import io
import json

import pytest

from conftest import FakeEmbedder, shared_path
from scholarbench.core import refs
from scholarbench.core.families import Malformed, parse_answer
from scholarbench.core.refs import Listed, TaskRefs, number_of

PAPERS = [Listed("W1", "Attention is all you need"),
          Listed("arxiv:1810.04805", "BERT: Pre-training of deep bidirectional transformers"),
          Listed("doi:10.1145/3292500.3330851", "Deep residual learning for image recognition")]


@pytest.mark.parametrize("ref,n", [(3, 3), ("3", 3), ("[3]", 3), ("#3", 3), ("Paper 3", 3),
                                   ("(12)", 12), (" 7. ", 7), (3.0, 3), (True, None),
                                   ("BERT", None), ("1810.04805", None), ("", None)])
def test_paper_numbers_in_every_spelling(ref, n):
    assert number_of(ref) == n


def test_a_task_list_resolves_numbers_ids_and_titles_and_nothing_else():
    listed = TaskRefs(PAPERS)
    answer = [1, "2", "[3]", "W1", "arXiv:1810.04805v2", "https://doi.org/10.1145/3292500.3330851",
              "attention is all you need.", "Deep residual learning for image recognition (2016)",
              "4", 0, "A paper nobody listed", "doi:10.9/other"]
    assert listed.resolve_all(answer) == [0, 1, 2, 0, 1, 2, 0, 2, None, None, None, None]


def test_task_refs_come_from_the_fields_the_prompt_lists():
    assert refs.task_refs({"topic": "t"}) is None
    taxo = refs.task_refs({"papers": [{"title": "A title", "abstract": "", "id": None}]})
    assert taxo.resolve_all(["1", "a title"]) == [0, 0]
    arena = refs.task_refs({"references": [{"id": "doi:10.1/a", "title": None}]})
    assert arena.resolve_all(["1", "10.1/a", "2"]) == [0, 0, None]     # untitled: listed by id


def test_integer_references_fit_every_family_schema():
    tree = parse_answer("taxonomy", {"taxonomy": {"name": "r", "papers": [1, "2"]},
                                     "retrieved": [3]})
    assert tree.taxonomy.papers == ["1", "2"] and tree.retrieved == ["3"]
    assert parse_answer("ranking", {"papers": [1, {"id": 2, "score": 1}]}).refs() == ["1", "2"]
    assert parse_answer("path", {"papers": [5, 6]}).refs() == ["5", "6"]
    with pytest.raises(Malformed, match=r"field papers\.0"):
        parse_answer("path", {"papers": [True]})


# ---- a reply that is not the family's answer ---------------------------------------------------

class _Reply:
    def __init__(self, text):
        self.text = text


class _ScriptedLLM:
    def __init__(self, text):
        self.text = text

    def complete(self, messages, max_tokens=None):
        return _Reply(self.text)


@pytest.mark.parametrize("family", ["taxonomy", "ranking", "path", "report"])
@pytest.mark.parametrize("reply", ['{"score": 3}', '```json\n{"score": 3, "reason": "ok"}\n```'])
def test_a_judge_style_reply_is_malformed_never_an_empty_answer(family, reply):
    from scholarbench.core.agent import AgentContext, Task
    from scholarbench.core.endpoint import EndpointAgent
    task = Task(id="1", benchmark="b", family=family, prompt="p", fields={"topic": "t"})
    with pytest.raises(Malformed, match="none of the answer's keys"):
        EndpointAgent().solve(task, AgentContext(benchmark="b", llm=_ScriptedLLM(reply)))


@pytest.mark.parametrize("family", ["taxonomy", "ranking"])
def test_prose_with_no_answer_in_it_is_malformed(family):
    from scholarbench.core.agent import AgentContext, Task
    from scholarbench.core.endpoint import EndpointAgent
    task = Task(id="1", benchmark="b", family=family, prompt="p")
    with pytest.raises(Malformed, match="no "):
        EndpointAgent().solve(task, AgentContext(benchmark="b", llm=_ScriptedLLM(
            "I am sorry, I cannot help with that.")))


def test_answers_that_are_answers_still_parse():
    from scholarbench.core.parse_text import papers_from_text, report_from_text
    assert papers_from_text('{"papers": []}') == []
    assert papers_from_text("1. Attention is all you need\n2. BERT") == [
        "Attention is all you need", "BERT"]
    assert report_from_text('{"report": "# R"}') == "# R"
    assert report_from_text("# Report\n\ntext {\"a\": 1}") == "# Report\n\ntext {\"a\": 1}"


# ---- TaxoBench Bottom-Up: the prompt's paper numbers score as the titles -------------------------

def _taxo_sample():
    from scholarbench.benchmarks.taxobench.benchmark import TaxoBench
    from scholarbench.data.taxobench import load_instances
    task = load_instances(shared_path("data", "taxobench", "taxobench_5_instances.jsonl"))[0]
    bench = TaxoBench(embedder=FakeEmbedder())
    return bench, bench._sample(task, "bottom-up")


def _numbered(node, number):
    return {"name": node.name, "subtopics": [_numbered(c, number) for c in node.children],
            "papers": [number(t) for t in node.papers]}


def test_bottom_up_answered_with_paper_numbers_scores_as_with_titles():
    from scholarbench.benchmarks.taxobench.measures import score_instance
    from scholarbench.data.taxobench import parse_prediction
    bench, sample = _taxo_sample()
    assert '"papers": [<actual paper numbers>]' in sample.task.prompt
    titles = [p["title"] for p in sample.task.fields["papers"]]
    index = {t: i + 1 for i, t in reversed(list(enumerate(titles)))}
    gold = sample.gold
    as_numbers = bench.record(sample, {"taxonomy": _numbered(gold, lambda t: index[t])})
    as_strings = bench.record(sample, {"taxonomy": _numbered(gold, lambda t: f"[{index[t]}]")})
    as_titles = bench.record(sample, {"taxonomy": _numbered(gold, lambda t: t)})
    assert as_numbers["prediction"] == as_titles["prediction"] == as_strings["prediction"]
    n = len(gold.all_papers())
    assert as_numbers["info"] == as_titles["info"] == {"refs": n, "unresolved": 0}
    emb = FakeEmbedder()
    by_number = score_instance(gold, parse_prediction(as_numbers["prediction"]), emb)
    by_title = score_instance(gold, parse_prediction(as_titles["prediction"]), emb)
    assert by_number == by_title and by_number["ari"] == pytest.approx(1.0)


def test_bottom_up_references_that_name_no_listed_paper_are_counted():
    bench, sample = _taxo_sample()
    n = len(sample.task.fields["papers"])
    record = bench.record(sample, {"taxonomy": {"name": "r", "subtopics": [
        {"name": "a", "papers": [1, n + 1, "A title no task lists at all"]}]}})
    assert record["info"] == {"refs": 3, "unresolved": 2}
    assert record["prediction"]["hierarchy_tree"]["subtopics"][0]["papers"][1] == str(n + 1)


# ---- the run's counts ------------------------------------------------------------------------

def test_rows_get_unresolved_from_every_benchmarks_info_spelling():
    generated = {"a": {"info": {"refs": 4, "unresolved": 3}},
                 "b": {"info": {"refs": 2, "refs_unresolved": 1}},
                 "c": {"info": {"n_cited_refs": 5, "n_cited_unresolved": 0}},
                 "d": {}, "e": {"info": {"refs": 9, "unresolved": 9}}}
    rows = [{"id": k} for k in "abcd"] + [{"id": "e", "unresolved": 1, "n_refs": 2}]
    refs.attach(rows, generated, "id")
    assert [(r["n_refs"], r["unresolved"]) for r in rows] == [(4, 3), (2, 1), (5, 0), (0, 0),
                                                               (2, 1)]


def test_a_run_where_most_references_fail_warns_once():
    err = io.StringIO()
    rows = [{"unresolved": 3, "n_refs": 4, "status": "scored"},
            {"unresolved": 9, "n_refs": 9, "status": "error"}]         # errored: no result
    assert refs.summarise(rows, "taxobench bottom-up", err) == {"n_unresolved": 3, "n_refs": 4}
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and "taxobench bottom-up: 3 of 4" in lines[0]
    assert "paper numbers" in lines[0] and "titles" in lines[0]
    quiet = io.StringIO()
    assert refs.summarise([{"unresolved": 2, "n_refs": 4}], "x", quiet)["n_unresolved"] == 2
    assert quiet.getvalue() == ""
    json.dumps(rows)


def test_nsp_above_one_is_the_papers_formula_not_the_references():
    """NSP reads category labels only: Counterexample 2 (A.6) with the lists swapped is 5/3,
    and answering with paper numbers or titles changes no label."""
    import numpy as np
    from scholarbench.metrics.soft_cardinality import soft_scores
    sim = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=float)   # A = (b1, b2), B = (a)
    assert soft_scores(sim, n_gold=2)["nsp"] == pytest.approx(5 / 3)
