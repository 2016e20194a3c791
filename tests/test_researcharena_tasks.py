"""ResearchArena tasks from a hand-made corpus: which surveys, the leakage rule, the reference
counts, empty gold, deterministic ids, task records round-tripping, and the upstream loader."""
from __future__ import annotations

import json
from datetime import date

import pytest

from test_researcharena_fixtures import CUTOFF_S, REFERENCE_LISTS, build_tiny
from scholarbench.corpus.store import Corpus
from scholarbench.benchmarks.researcharena.records import (ArenaTask, read_survey_jsonl, read_tasks,
                                                           tasks_sha256, write_tasks)
from scholarbench.data.typology import mindmap_from_taxonomy
from scholarbench.errors import DataError
from scholarbench.records import Paper, TaxoNode, TaxoTask
from scholarbench.benchmarks.researcharena.tasks import (TASK_SETS, SearchSpace,
                                                         attach_taxobench_mindmaps, build_tasks,
                                                         count_totals, earliest_date,
                                                         load_survey_jsonl, tasks_from_taxobench)

S, T, U, V = "arxiv:2106.00100", "arxiv:2001.00200", "s2corpus:300", "s2corpus:400"
A, B, C, D, E, F, G, H = ("doi:10.1/a", "doi:10.1/b", "arxiv:2105.00003", "arxiv:2106.00004",
                          "doi:10.1/e", "doi:10.1/f", "arxiv:1903.00007", "doi:10.1/h")
N, L = "arxiv:2005.00009", "arxiv:2201.00010"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-arena")
    build_tiny(out)
    return Corpus.open(out)


@pytest.fixture(scope="module")
def tasks(corpus):
    return {t.id: t for t in build_tasks(corpus, reference_lists=REFERENCE_LISTS)}


def test_one_task_per_survey_with_a_reference_list_sorted_by_id(corpus, tasks):
    assert list(tasks) == sorted(tasks) == [T, S, U]      # V cites through the graph only
    assert [t.id for t in build_tasks(corpus, TASK_SETS["all"], reference_lists=None)] == \
        [T, S, U, V]
    assert tasks[S].topic == "Graph learning: a survey" and tasks[S].survey_id == S
    assert {t.source for t in tasks.values()} == {"corpus"}


def test_leakage_rule_on_every_case(tasks):
    s = tasks[S]
    assert s.cutoff == CUTOFF_S
    assert s.references == {pid: 1 for pid in sorted([A, B, C, D, E, F, G])}
    assert s.unsearchable == {B: "not_before_cutoff", D: "not_before_cutoff", E: "survey",
                              F: "undated"}
    assert s.gold == {A: 1, C: 1, G: 1}
    assert s.qrels("all") == s.references
    with pytest.raises(ValueError):
        s.qrels("nope")


def test_cutoff_is_the_earliest_possible_date_and_no_date_means_no_cutoff(tasks):
    assert tasks[T].cutoff == date(2020, 1, 1)   # year only: 1 January
    assert tasks[U].cutoff is None and "no_cutoff" in tasks[U].flags
    assert tasks[U].gold == {A: 1}               # only the survey filter applies
    assert earliest_date(None, ["arxiv:2103.01234"], 2021) == date(2021, 3, 1)
    assert earliest_date(date(2021, 3, 9), ["arxiv:2103.01234"], 2021) == date(2021, 3, 9)
    assert earliest_date(None, [], None) is None


def test_search_space_is_the_same_rule_as_the_corpus_search_filters(corpus, tasks):
    space = SearchSpace.of(corpus)
    for task in tasks.values():
        if task.cutoff is None:
            continue
        hits = {p.paper_id for p, _ in corpus.search_bm25("graph", 100, fields="title",
                                                          before=task.cutoff,
                                                          exclude_surveys=True)}
        every = {p.paper_id for p, _ in corpus.search_bm25("graph", 100, fields="title")}
        assert len(every) == corpus.count()      # every title has the word
        assert hits == {pid for pid in every if space.searchable(pid, task.cutoff)}
        assert set(task.gold) <= hits and not set(task.unsearchable) & hits


def test_counts_are_complete_and_add_up(tasks):
    c = tasks[S].counts
    assert (c.listed, c.resolved, c.unresolved, c.duplicates, c.other_sources) == (8, 7, 1, 1, 1)
    assert c.searchable == 3 and c.unsearchable == {"survey": 1, "undated": 1,
                                                    "not_before_cutoff": 2}
    for task in tasks.values():
        c = task.counts
        assert c.listed == (c.resolved - c.other_sources) + c.duplicates + c.unresolved
        assert c.resolved == c.searchable + sum(c.unsearchable.values()) == len(task.references)
        assert c.searchable == len(task.gold)


def test_counts_are_unknown_without_the_raw_lists_never_guessed(corpus):
    task = {t.id: t for t in build_tasks(corpus, reference_lists=None)}[S]
    c = task.counts
    assert (c.listed, c.unresolved, c.duplicates, c.other_sources) == (None,) * 4
    assert c.resolved == 7 and c.searchable == 3
    totals = count_totals([task])
    assert totals["listed"] == 0 and totals["listed_unknown_tasks"] == 1


def test_empty_gold_task_is_kept_and_flagged(tasks):
    t = tasks[T]
    assert t.gold == {} and t.unsearchable == {H: "not_before_cutoff"}
    assert "empty_gold" in t.flags
    totals = count_totals(list(tasks.values()))
    assert totals["flags"]["empty_gold"] == 1 and totals["tasks"] == 3


def test_auto_reference_lists_without_recorded_inputs_gives_unknown_counts(corpus):
    task = {t.id: t for t in build_tasks(corpus)}[S]     # manifest inputs are empty here
    assert task.counts.listed is None


def test_task_records_round_trip_and_checksum(tmp_path, tasks):
    t = tasks[S]
    t.mindmap = mindmap_from_taxonomy(TaxoNode("Graphs", [TaxoNode("Kernels"),
                                                          TaxoNode("GNNs", [TaxoNode("GAT")])]))
    t.mindmap_source = "taxobench"
    path = tmp_path / "tasks.jsonl"
    write_tasks(path, tasks.values())
    back = read_tasks(path)
    assert [b.to_json() for b in back] == [x.to_json() for x in tasks.values()]
    assert tasks_sha256(back) == tasks_sha256(tasks.values())
    t.mindmap, t.mindmap_source = None, None
    assert tasks_sha256(back) != tasks_sha256(tasks.values())


# ---- upstream survey.jsonl ----------------------------------------------------------------

TYPOLOGY = json.dumps({"Graph learning": {"Attention": None, "Contrastive": None}})


def _survey_jsonl(path, lines):
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


UPSTREAM = [
    {"id": 100, "title": "Graph learning: a survey", "publicationDate": "2021-06-15",
     "abstract": "...", "referenceCount": "8", "subjects": ["computer-science"],
     # A (1) influential; 3 = C, 7 = G, 2 = B, 4 = D, 5 = E relevant; 1 again; 999 unknown
     "references": {"influential": [1], "relevant": [3, 7, 2, 4, 5, 1, 999]},
     "typology": TYPOLOGY},
    {"id": "300", "title": "Graph databases: a survey", "publicationDate": None,
     "references": {"influential": [], "relevant": [1]}, "typology": None},
]


def test_upstream_loader_makes_the_same_task_record(tmp_path, corpus, tasks):
    path = _survey_jsonl(tmp_path / "survey.jsonl", UPSTREAM)
    loaded = {t.id: t for t in load_survey_jsonl(path, corpus)}
    s = loaded["100"]
    assert s.source == "survey.jsonl" and s.survey_id == S and s.cutoff == CUTOFF_S
    assert s.references == {A: 2, B: 1, C: 1, D: 1, E: 1, G: 1}   # influential = 2
    assert s.unsearchable == {k: v for k, v in tasks[S].unsearchable.items() if k != F}
    assert set(s.gold) == set(tasks[S].gold) and s.gold[A] == 2
    c = s.counts
    assert (c.listed, c.resolved, c.unresolved, c.duplicates) == (8, 6, 1, 1)
    assert s.mindmap is not None and s.mindmap_source == "typology"
    assert [n.name for n in s.mindmap.walk()] == ["", "Graph learning", "Attention",
                                                  "Contrastive"]
    u = loaded["300"]
    assert u.cutoff is None and u.survey_id == U and u.gold == tasks[U].gold == {A: 1}
    assert u.mindmap is None and "no_mindmap" in u.flags
    assert type(s) is type(tasks[S]) is ArenaTask


def test_upstream_ids_that_are_not_digits_are_corpus_ids_as_written(tmp_path, corpus, tasks):
    """`scholarbench build` writes corpus paper_ids (docs/build.md): looked up as written, while
    digits stay S2 corpus ids (`CorpusId:1` is A)."""
    path = _survey_jsonl(tmp_path / "survey.jsonl", [
        {"id": S, "title": "Graph learning: a survey", "publicationDate": None,
         "references": {"influential": [], "relevant": [A, B, "1", "doi:10.9/none"]}}])
    (task,) = load_survey_jsonl(path, corpus)
    assert task.survey_id == S and task.cutoff == CUTOFF_S
    assert task.references == {A: 1, B: 1}
    assert (task.counts.unresolved, task.counts.duplicates) == (1, 1)   # "1" names A again


def test_upstream_loader_without_a_corpus_keeps_upstream_ids(tmp_path):
    path = _survey_jsonl(tmp_path / "survey.jsonl", UPSTREAM)
    s = {t.id: t for t in load_survey_jsonl(path)}["100"]
    assert s.references == {"1": 2, "2": 1, "3": 1, "4": 1, "5": 1, "7": 1, "999": 1}
    assert s.gold == s.references and s.unsearchable == {}
    assert "searchability_unchecked" in s.flags and s.counts.unresolved is None
    assert s.counts.duplicates == 1


@pytest.mark.parametrize("bad, field", [
    ({"title": "x", "references": {}}, "id"),
    ({"id": 1, "title": "", "references": {}}, "title"),
    ({"id": 1, "title": "x", "publicationDate": "June 2021", "references": {}},
     "publicationDate"),
    ({"id": 1, "title": "x", "references": []}, "references"),
    ({"id": 1, "title": "x", "references": {"relevant": [1, 2.5]}}, "references.relevant[1]"),
    ({"id": 1, "title": "x", "references": {"cited": [1]}}, "references"),
    ({"id": 1, "title": "x", "references": {}, "typology": "{not json"}, "typology"),
])
def test_upstream_loader_names_file_line_and_field(tmp_path, bad, field):
    path = _survey_jsonl(tmp_path / "survey.jsonl", [UPSTREAM[1], bad])
    with pytest.raises(DataError) as err:
        read_survey_jsonl(path)
    assert err.value.line == 2 and err.value.field == field and err.value.file == str(path)


def test_upstream_loader_refuses_a_repeated_survey_id(tmp_path):
    path = _survey_jsonl(tmp_path / "survey.jsonl", [UPSTREAM[1], UPSTREAM[1]])
    with pytest.raises(DataError, match="repeated"):
        read_survey_jsonl(path)


# ---- TaxoBench trees -------------------------------------------------------------------------

def test_taxobench_trees_as_ground_truth(corpus, tasks):
    gold = TaxoNode("Graph learning: a survey", [TaxoNode("Attention", papers=["x"])])
    inst = TaxoTask("7", "Graph Learning: A Survey", "Graph learning: a survey",
                    [Paper("Graph attention networks"), Paper("Graph contrastive learning"),
                     Paper("Graph attention networks"), Paper("No such paper")], gold)
    fresh = build_tasks(corpus, reference_lists=None)
    assert attach_taxobench_mindmaps(fresh, [inst]) == 1
    s = next(t for t in fresh if t.id == S)
    assert s.mindmap_source == "taxobench" and "no_mindmap" not in s.flags
    assert [n.name for n in s.mindmap.walk()] == ["", "Graph learning: a survey", "Attention"]
    [tb] = tasks_from_taxobench([inst], corpus)
    assert tb.id == "taxobench:7" and tb.cutoff is None and tb.mindmap is not None
    assert tb.references == {A: 1, C: 1}
    assert (tb.counts.listed, tb.counts.unresolved, tb.counts.duplicates) == (4, 1, 1)
