"""ResearchArena's tasks rebuilt from the offline corpus, the way the paper builds them (§3, §5).

One task per survey: the topic is the survey's title; the gold set is the survey's references
that resolve to corpus papers (the paper: S2ORC references "with accessible citations"); the
searchable collection D is the corpus minus surveys minus papers not published before the survey
(§5: "documents in D must be non-survey and published before S").

Which surveys (`build_tasks(corpus, sources=...)`, or the named `TASK_SETS`):

- ``reference-lists`` (default): surveys (`is_survey`) with at least one citation edge read from
  a full reference list — ReportBench's ground-truth bibliographies (`reportbench`) or the
  deep-review bibliography (`deep-review`). On the shared data: ReportBench's 100 surveys plus
  the deep-review article = 101 tasks.
- ``all``: every survey with any outgoing citation edge. This adds the arxiv-2023 graph's
  surveys, whose flag is the title heuristic (precision 0.95, `corpus/survey.py`) and whose
  "reference lists" are only the citations the graph keeps between its own papers.

Gold and grades. A task's references are the survey's outgoing citation edges in the corpus, from
every source (a ReportBench survey that is also in the arxiv-2023 graph keeps the graph's
edges too; `counts.other_sources` counts those no listed entry names). Grades: 2 for an
influential citation, 1 otherwise. None of our sources label influence (S2ORC's "influential"
flag, paper §3.2), so every corpus-built grade is 1 and nDCG is binary; upstream `survey.jsonl`
files carry the labels and keep grade 2.

The leakage rule (`SearchSpace`), the same definition `Corpus.search_bm25(before=cutoff,
exclude_surveys=True)` filters with, so an agent that searches with those filters can reach
exactly the gold:

- cut-off: the survey's *earliest* possible date: its `published` day; else the first day of
  its arXiv id's month; else 1 January of its year; else no cut-off (task flagged `no_cutoff`:
  only the survey filter applies). Earliest, so nothing that might postdate the survey leaks.
- a paper is searchable when it is not a survey and its *latest* possible date (`published`;
  else the last day of its arXiv month; else 31 December of its year — the paper's own rule
  for year-only references, §3.2) is before the cut-off. Papers with no date at all are not
  searchable when a cut-off applies ("undated"): they cannot be shown to precede the survey.
- a resolved reference that is not searchable stays in `ArenaTask.references`, is listed in
  `ArenaTask.unsearchable` with its reason (survey, else undated, else not_before_cutoff) and
  counted; it is left out of the default qrels (an agent may not retrieve it), and in the
  qrels variant "all" (upstream's qrels, which judge every reference).

A task whose gold ends up empty is kept, flagged `empty_gold` and counted; the scorer lists it
as unscorable instead of scoring it 0 (it would only dilute every agent's mean alike).

Counts (`ReferenceCounts`). `resolved`, `searchable` and `unsearchable` come from the corpus.
`listed`, `unresolved`, `duplicates` and `other_sources` need the raw reference list, which the
corpus does not keep (it stores resolved edges only): `build_tasks` re-reads the bibliography
sources the corpus was built from (the folders in its manifest's `inputs`) and matches each
entry to the survey's edges — by id keys in priority order, then by normalised title; an entry
naming no corpus paper the survey cites is unresolved, one naming a paper an earlier entry named
is a duplicate. When the folders are gone those four counts are None (unknown), never guessed.
On the shared data every ReportBench entry resolves (the corpus is built from those very lists),
so `unresolved` is 0 there and the gap between listed and resolved is duplicates.

Task ids are the survey's corpus paper_id; tasks are sorted by id.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import duckdb

from scholarbench.corpus.schema import EDGES, PAPERS
from scholarbench.corpus.store import Corpus
from scholarbench.benchmarks.researcharena.records import (EMPTY_GOLD, INFLUENTIAL, NO_CUTOFF,
                                                           NO_MINDMAP, NOT_BEFORE, RELEVANT, SURVEY,
                                                           UNCHECKED, UNDATED, UNSEARCHABLE_REASONS,
                                                           ArenaTask, ReferenceCounts,
                                                           UpstreamSurvey, read_survey_jsonl)
from scholarbench.data.sources.dates import earliest_date, latest_date
from scholarbench.data.sources.keys import priority
from scholarbench.data.sources.records import EdgeRecord, Ref
from scholarbench.data.typology import mindmap_from_taxonomy
from scholarbench.errors import ScholarbenchError
from scholarbench.records import TaxoTask
from scholarbench.text.normalize import normalize_title
from scholarbench.data.sources import SOURCES

REFERENCE_LIST_SOURCES: tuple[str, ...] = ("reportbench", "deep-review")
TASK_SETS: dict[str, tuple[str, ...] | None] = {"reference-lists": REFERENCE_LIST_SOURCES,
                                                 "all": None}
GRADING_NOTE = ("binary: no source labels influential citations, so every corpus-built grade "
                "is 1 (upstream survey.jsonl files keep influential = 2)")


@dataclass(frozen=True)
class _Facts:
    is_survey: bool
    earliest: date | None
    latest: date | None


class SearchSpace:
    """The leakage rule over one corpus: for a cut-off, which papers are in the searchable
    collection D, and why the others are not. Reads `is_survey` and the dates of every paper
    once (43k papers: ~0.3 s)."""

    def __init__(self, facts: Mapping[str, _Facts]) -> None:
        self._facts = dict(facts)

    @classmethod
    def of(cls, corpus: Corpus, only: Sequence[str] | None = None) -> "SearchSpace":
        """`only`: the facts of these papers alone (a task's cut-off without the whole rule)."""
        path = corpus.directory / PAPERS
        con = duckdb.connect()
        try:
            cols = {r[0] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)",
                                              [str(path)]).fetchall()}
            sql = "SELECT paper_id, {s}, {p}, {i}, year FROM read_parquet(?)".format(
                s="is_survey" if "is_survey" in cols else "false",
                p="published" if "published" in cols else "NULL::DATE",
                i="ids" if "ids" in cols else "NULL::VARCHAR[]")
            params: list = [str(path)]
            if only is not None:
                sql += " WHERE paper_id = ANY(?::VARCHAR[])"
                params.append(list(only))
            rows = con.execute(sql, params).fetchall()
        finally:
            con.close()
        return cls({pid: _Facts(bool(s), earliest_date(p, i, y), latest_date(p, i, y))
                    for pid, s, p, i, y in rows})

    def __contains__(self, pid: object) -> bool:
        return pid in self._facts

    def cutoff(self, survey_id: str) -> date | None:
        """The survey's earliest possible date (the task's cut-off)."""
        return self._facts[survey_id].earliest

    def reason(self, pid: str, cutoff: date | None) -> str | None:
        """None when `pid` is searchable for this cut-off, else SURVEY / UNDATED / NOT_BEFORE
        (first that applies). KeyError for a paper not in the corpus."""
        facts = self._facts[pid]
        if facts.is_survey:
            return SURVEY
        if cutoff is None:
            return None
        if facts.latest is None:
            return UNDATED
        if facts.latest >= cutoff:
            return NOT_BEFORE
        return None

    def searchable(self, pid: str, cutoff: date | None) -> bool:
        return pid in self._facts and self.reason(pid, cutoff) is None


# ---------------------------------------------------------------------------------------------
# Tasks from the corpus
# ---------------------------------------------------------------------------------------------

def survey_ids(corpus: Corpus, sources: Sequence[str] | None = REFERENCE_LIST_SOURCES
               ) -> list[str]:
    """paper_ids of surveys with an outgoing citation edge (from one of `sources`; None: any),
    sorted."""
    edges = corpus.directory / EDGES
    if not edges.is_file():
        raise ScholarbenchError(f"{corpus.directory} has no citation edges ({EDGES}): rebuild "
                                "the corpus with `scholarbench corpus build`")
    con = duckdb.connect()
    try:
        sql = ("SELECT DISTINCT e.citing FROM read_parquet(?) e JOIN read_parquet(?) p "
               "ON p.paper_id = e.citing WHERE p.is_survey")
        params: list = [str(edges), str(corpus.directory / PAPERS)]
        if sources is not None:
            sql += " AND e.source = ANY(?::VARCHAR[])"
            params.append(list(sources))
        return sorted(r[0] for r in con.execute(sql + " ORDER BY 1", params).fetchall())
    finally:
        con.close()


def _candidates(corpus: Corpus, ref: Ref) -> list[str]:
    """Corpus papers a raw reference entry may name: its id keys in priority order, then its
    title (every paper of that title)."""
    out: list[str] = []
    for key in sorted(ref.keys, key=priority):
        for pid in corpus.resolve_all(key):
            if pid not in out:
                out.append(pid)
    if ref.title and normalize_title(ref.title):
        for pid in corpus.resolve_all(ref.title):
            if pid not in out:
                out.append(pid)
    return out


def reference_lists_from_sources(corpus: Corpus, sources: Sequence[str] = REFERENCE_LIST_SOURCES
                                 ) -> tuple[list[EdgeRecord], dict[str, str]]:
    """The raw citation records of the bibliography sources the corpus was built from (read
    again from the folders in its manifest's `inputs`), and {source: folder} of those read.
    A source whose folder is not recorded or no longer exists is skipped."""
    try:
        inputs = corpus.manifest().get("inputs", {}) or {}
    except FileNotFoundError:
        inputs = {}
    by_name = {s.name: s for s in SOURCES}
    records: list[EdgeRecord] = []
    used: dict[str, str] = {}
    for name in sources:
        folder = inputs.get(name)
        if name not in by_name or not isinstance(folder, str) or not Path(folder).is_dir():
            continue
        used[name] = folder
        records.extend(r for r in by_name[name].read(Path(folder)) if isinstance(r, EdgeRecord))
    return records, used


def _group_by_survey(corpus: Corpus, records: Iterable[EdgeRecord], wanted: set[str]
                     ) -> dict[str, list[Ref]]:
    """Raw reference entries per survey paper_id (citing ends resolved like entries)."""
    cache: dict[Ref, str | None] = {}
    out: dict[str, list[Ref]] = {}
    for rec in records:
        if rec.citing not in cache:
            found = [p for p in _candidates(corpus, rec.citing) if p in wanted]
            cache[rec.citing] = found[0] if found else None
        sid = cache[rec.citing]
        if sid is not None:
            out.setdefault(sid, []).append(rec.cited)
    return out


def _match_entries(corpus: Corpus, entries: Sequence[Ref], cited: set[str]
                   ) -> tuple[int, int, set[str]]:
    """(unresolved, duplicates, matched paper_ids) of a raw list against the survey's edges."""
    unresolved = duplicates = 0
    matched: set[str] = set()
    for ref in entries:
        hit = next((p for p in _candidates(corpus, ref) if p in cited), None)
        if hit is None:
            unresolved += 1
        elif hit in matched:
            duplicates += 1
        else:
            matched.add(hit)
    return unresolved, duplicates, matched


def _classify(space: SearchSpace, refs: Mapping[str, int], cutoff: date | None
              ) -> tuple[dict[str, str], dict[str, int]]:
    unsearchable: dict[str, str] = {}
    per_reason = {r: 0 for r in UNSEARCHABLE_REASONS}
    for pid in refs:
        reason = space.reason(pid, cutoff)
        if reason is not None:
            unsearchable[pid] = reason
            per_reason[reason] += 1
    return unsearchable, per_reason


def build_tasks(corpus: Corpus, sources: Sequence[str] | None = REFERENCE_LIST_SOURCES, *,
                reference_lists: Iterable[EdgeRecord] | None | str = "auto",
                space: SearchSpace | None = None) -> list[ArenaTask]:
    """One task per survey in the corpus (see the module docstring), sorted by id.

    `sources`: edge sources that make a survey a task (None: any outgoing edge).
    `reference_lists`: the raw citation records to count listed / unresolved / duplicate
    entries from; "auto" re-reads the corpus's own bibliography sources; None: counts unknown.
    """
    space = space or SearchSpace.of(corpus)
    ids = survey_ids(corpus, sources)
    if reference_lists == "auto":
        reference_lists, _ = reference_lists_from_sources(corpus)
    raw = (_group_by_survey(corpus, reference_lists, set(ids))
           if reference_lists is not None else {})
    titles = {row["paper_id"]: row["title"] for row in corpus.get_rows(ids)}
    tasks = []
    for sid in ids:
        cutoff = space.cutoff(sid)
        refs = {pid: RELEVANT for pid in corpus.references(sid)}
        unsearchable, per_reason = _classify(space, refs, cutoff)
        if sid in raw:
            unresolved, duplicates, matched = _match_entries(corpus, raw[sid], set(refs))
            listed: int | None = len(raw[sid])
            other: int | None = len(set(refs) - matched)
        else:
            listed = unresolved = duplicates = other = None
        counts = ReferenceCounts(listed, len(refs), unresolved, duplicates, other,
                                 len(refs) - len(unsearchable), per_reason)
        tasks.append(ArenaTask(id=sid, topic=titles[sid], source="corpus", survey_id=sid,
                               cutoff=cutoff, references=dict(sorted(refs.items())),
                               unsearchable=unsearchable, counts=counts))
    return tasks


# ---------------------------------------------------------------------------------------------
# Tasks from an upstream survey.jsonl
# ---------------------------------------------------------------------------------------------

def _upstream_grades(survey: UpstreamSurvey) -> tuple[dict[str, int], int]:
    """id -> grade (influential wins) in list order, and how many entries repeated an id."""
    grades: dict[str, int] = {}
    repeats = 0
    for grade, ids in ((INFLUENTIAL, survey.influential), (RELEVANT, survey.relevant)):
        for rid in ids:
            if rid in grades:
                repeats += 1
                grades[rid] = max(grades[rid], grade)
            else:
                grades[rid] = grade
    return grades, repeats


def corpus_key(upstream_id: str) -> str:
    """How an id of a survey.jsonl is looked up in the corpus: upstream's ids are S2 corpus ids
    (digits: `CorpusId:<id>`); any other id is looked up as written (a corpus paper_id such as
    `doi:10.1098/…` or `arxiv:1706.03762`, as `scholarbench build` writes them)."""
    return f"CorpusId:{upstream_id}" if upstream_id.isdigit() else upstream_id


def tasks_from_upstream(surveys: Sequence[UpstreamSurvey], corpus: Corpus | None = None, *,
                        space: SearchSpace | None = None) -> list[ArenaTask]:
    """Upstream surveys as tasks (the same record `build_tasks` makes), sorted by id.

    With a corpus: the survey and each reference are looked up by S2 corpus id
    (`CorpusId:<id>`; an id that is not digits as written, `corpus_key`); an id naming no
    corpus paper is unresolved (counted); two ids naming one paper are a duplicate; the
    leakage rule classifies the resolved ones exactly as for corpus-built tasks. The cut-off
    is `publicationDate`, else the survey's earliest corpus date.
    Without a corpus: references keep their upstream ids as docids (so upstream run files score
    as upstream scores them), nothing is resolved or classified (`searchability_checked` False,
    `unresolved` None) and the gold is every reference, as in upstream's qrels.
    """
    if corpus is not None:
        space = space or SearchSpace.of(corpus)
    tasks = []
    for survey in surveys:
        grades, repeats = _upstream_grades(survey)
        listed = len(survey.influential) + len(survey.relevant)
        if corpus is None:
            counts = ReferenceCounts(listed, len(grades), None, repeats, 0, len(grades),
                                     {r: 0 for r in UNSEARCHABLE_REASONS})
            tasks.append(ArenaTask(id=survey.id, topic=survey.title, source="survey.jsonl",
                                   survey_id=None, cutoff=survey.publication_date,
                                   references=dict(sorted(grades.items())), unsearchable={},
                                   counts=counts, mindmap=survey.mindmap,
                                   mindmap_source="typology" if survey.mindmap else None,
                                   searchability_checked=False))
            continue
        assert space is not None
        survey_id = corpus.resolve(corpus_key(survey.id))
        cutoff = survey.publication_date or (space.cutoff(survey_id) if survey_id else None)
        refs: dict[str, int] = {}
        unresolved, duplicates = 0, repeats
        for rid, grade in grades.items():
            pid = corpus.resolve(corpus_key(rid))
            if pid is None:
                unresolved += 1
            elif pid in refs:
                duplicates += 1
                refs[pid] = max(refs[pid], grade)
            else:
                refs[pid] = grade
        unsearchable, per_reason = _classify(space, refs, cutoff)
        counts = ReferenceCounts(listed, len(refs), unresolved, duplicates, 0,
                                 len(refs) - len(unsearchable), per_reason)
        tasks.append(ArenaTask(id=survey.id, topic=survey.title, source="survey.jsonl",
                               survey_id=survey_id, cutoff=cutoff,
                               references=dict(sorted(refs.items())), unsearchable=unsearchable,
                               counts=counts, mindmap=survey.mindmap,
                               mindmap_source="typology" if survey.mindmap else None))
    return sorted(tasks, key=lambda t: t.id)


def load_survey_jsonl(path: str | Path, corpus: Corpus | None = None) -> list[ArenaTask]:
    """Read an upstream `survey.jsonl` into tasks (see `tasks_from_upstream`)."""
    return tasks_from_upstream(read_survey_jsonl(path), corpus)


# ---------------------------------------------------------------------------------------------
# TaxoBench trees as mind-maps
# ---------------------------------------------------------------------------------------------

def attach_taxobench_mindmaps(tasks: Sequence[ArenaTask], instances: Sequence[TaxoTask]) -> int:
    """Give each task without a mind-map the TaxoBench expert tree (papers removed) of the
    instance whose survey title (or topic) equals the task's topic after title normalisation.
    Returns how many tasks got one. A typology already attached is never replaced."""
    trees: dict[str, TaxoTask] = {}
    for inst in instances:
        for title in (inst.survey, inst.topic):
            trees.setdefault(normalize_title(title), inst)
    attached = 0
    for task in tasks:
        inst = trees.get(normalize_title(task.topic))
        if task.mindmap is None and inst is not None:
            task.mindmap = mindmap_from_taxonomy(inst.gold)
            task.mindmap_source = "taxobench"
            attached += 1
    return attached


def tasks_from_taxobench(instances: Sequence[TaxoTask], corpus: Corpus, *,
                         space: SearchSpace | None = None) -> list[ArenaTask]:
    """TaxoBench instances as ResearchArena tasks, for organisation: topic = the survey topic,
    references = the expert papers resolved in the corpus by title (a title several corpus
    papers share resolves to the one TaxoBench contributed, else is unresolved), ground truth =
    the expert tree with papers removed. TaxoBench gives no survey date, so there is no cut-off
    (flag `no_cutoff`); ids are `taxobench:<id>`."""
    space = space or SearchSpace.of(corpus)
    tasks = []
    for inst in instances:
        refs: dict[str, int] = {}
        unresolved = duplicates = 0
        for paper in inst.papers:
            found = corpus.resolve_all(paper.title) if normalize_title(paper.title) else []
            if len(found) > 1:
                found = [r["paper_id"] for r in corpus.get_rows(found)
                         if "taxobench" in (r.get("sources") or [])]
            if len(found) != 1:
                unresolved += 1
            elif found[0] in refs:
                duplicates += 1
            else:
                refs[found[0]] = RELEVANT
        survey = corpus.resolve(inst.survey)
        unsearchable, per_reason = _classify(space, refs, None)
        counts = ReferenceCounts(len(inst.papers), len(refs), unresolved, duplicates, 0,
                                 len(refs) - len(unsearchable), per_reason)
        tasks.append(ArenaTask(id=f"taxobench:{inst.id}", topic=inst.topic, source="taxobench",
                               survey_id=survey, cutoff=None,
                               references=dict(sorted(refs.items())), unsearchable=unsearchable,
                               counts=counts, mindmap=mindmap_from_taxonomy(inst.gold),
                               mindmap_source="taxobench"))
    return sorted(tasks, key=lambda t: t.id)


COUNTED_FLAGS = (EMPTY_GOLD, NO_CUTOFF, UNCHECKED, NO_MINDMAP)


def reference_counts(task: ArenaTask) -> dict[str, Any]:
    """One task's reference counts and counted flags, as its score row carries them
    (`reference_counts`), so a summary's totals are rebuilt from scores.jsonl alone."""
    counts = task.counts.as_dict()
    counts["unsearchable"] = dict(sorted(counts["unsearchable"].items()))  # as tasks.jsonl
    return {**counts, "flags": [f for f in COUNTED_FLAGS if f in task.flags]}


def count_totals(tasks: Sequence[ArenaTask]) -> dict:
    """Reference counts summed over tasks (see `sum_counts`)."""
    return sum_counts([reference_counts(t) for t in tasks])


def sum_counts(per_task: Sequence[dict[str, Any]]) -> dict:
    """Reference counts summed over tasks (each `reference_counts`); a part unknown for some
    task is summed over the others and the number of tasks where it is unknown is reported
    beside it."""
    out: dict = {"tasks": len(per_task)}
    for key in ("listed", "resolved", "unresolved", "duplicates", "other_sources", "searchable"):
        values = [c.get(key) for c in per_task]
        known = [v for v in values if v is not None]
        out[key] = sum(known)
        if len(known) < len(values):
            out[f"{key}_unknown_tasks"] = len(values) - len(known)
    out["unsearchable"] = {r: sum((c.get("unsearchable") or {}).get(r, 0) for c in per_task)
                           for r in UNSEARCHABLE_REASONS}
    out["flags"] = {f: sum(1 for c in per_task if f in (c.get("flags") or ()))
                    for f in COUNTED_FLAGS}
    return out


__all__ = ["REFERENCE_LIST_SOURCES", "TASK_SETS", "GRADING_NOTE", "SearchSpace",
           "earliest_date", "survey_ids", "build_tasks", "reference_lists_from_sources",
           "corpus_key", "tasks_from_upstream", "load_survey_jsonl", "attach_taxobench_mindmaps",
           "tasks_from_taxobench", "count_totals", "reference_counts", "sum_counts",
           "COUNTED_FLAGS"]