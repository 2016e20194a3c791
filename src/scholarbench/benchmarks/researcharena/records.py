"""ResearchArena task records and the upstream `survey.jsonl` reader.

`ArenaTask` is one survey turned into a task: its topic (the survey title), the leakage cut-off,
its references resolved in the corpus with a grade each (qrels), which of them an agent may not
find under the leakage rule and why, the reference counts, and the ground-truth mind-map when
one is known. It is built from the corpus by `tasks.build_tasks`, from TaxoBench instances,
or from an upstream `survey.jsonl` (`read_survey_jsonl` here parses the file;
`tasks.load_survey_jsonl` resolves it into tasks).

Upstream `survey.jsonl` (github.com/cxcscmu/ResearchArena), one survey per line:

    id                  S2 corpus id of the survey (int, or a string)
    title               the survey title (the task's topic)
    publicationDate     "YYYY-MM-DD" or null
    references          {"influential": [S2 corpus ids], "relevant": [S2 corpus ids]}
    typology            the mind-map as a JSON *string*, or null (`scholarbench.data.typology`)
    abstract, referenceCount, semanticSource, externalSource, subjects: accepted, not used

Upstream's own qrels (`benchmark/sources/retrieve_title.py`) give influential references grade
2 and the others grade 1; we do the same. An id listed twice (in one list or in both) is one
judgement with the higher grade; the repeats are counted as duplicates.

Run directories keep the task set they were scored against as `tasks.jsonl` (`write_tasks`),
so a run can be re-scored without the corpus.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Iterable

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.trec import write_lines_atomic
from scholarbench.data.typology import parse_typology
from scholarbench.errors import DataError
from scholarbench.records import TaxoNode

INFLUENTIAL, RELEVANT = 2, 1

# Why a resolved reference is not searchable (paper §5's leakage rule), in the order tested:
SURVEY = "survey"                    # the reference is itself a survey
UNDATED = "undated"                  # no date, no arXiv id, no year: cannot be shown to precede
NOT_BEFORE = "not_before_cutoff"     # its latest possible date is on or after the cut-off
UNSEARCHABLE_REASONS = (SURVEY, UNDATED, NOT_BEFORE)

# Task flags (`ArenaTask.flags`)
EMPTY_GOLD = "empty_gold"            # no searchable reference: kept, listed, not scored
NO_CUTOFF = "no_cutoff"              # survey date unknown: only the survey filter applies
UNCHECKED = "searchability_unchecked"  # upstream file read without a corpus
NO_MINDMAP = "no_mindmap"            # no ground-truth mind-map: organisation cannot score it


@dataclass(frozen=True)
class ReferenceCounts:
    """How a survey's reference list became its qrels. None = not known (see the builder).

    Invariants (when the parts are known): listed = matched + duplicates + unresolved, where
    matched = resolved - other_sources; resolved = searchable + sum(unsearchable.values()).
    """
    listed: int | None           # entries in the raw reference list
    resolved: int                # distinct corpus papers the survey cites
    unresolved: int | None       # listed entries that name no corpus paper the survey cites
    duplicates: int | None       # listed entries naming a paper an earlier entry named
    other_sources: int | None    # resolved references no listed entry names (e.g. graph edges)
    searchable: int              # = the qrels of the default variant
    unsearchable: dict[str, int] = field(default_factory=dict)   # reason -> count

    def as_dict(self) -> dict[str, Any]:
        return {"listed": self.listed, "resolved": self.resolved, "unresolved": self.unresolved,
                "duplicates": self.duplicates, "other_sources": self.other_sources,
                "searchable": self.searchable, "unsearchable": dict(self.unsearchable)}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "ReferenceCounts":
        return cls(raw["listed"], raw["resolved"], raw["unresolved"], raw["duplicates"],
                   raw["other_sources"], raw["searchable"], dict(raw["unsearchable"]))


@dataclass
class ArenaTask:
    """One ResearchArena task (one survey).

    `references` maps every resolved reference to its grade (2 influential, 1 relevant); those
    in `unsearchable` (paper_id -> reason) are outside the searchable collection D. `gold` is
    the rest: the qrels an agent is scored against by default.
    """
    id: str
    topic: str
    source: str                          # "corpus", "survey.jsonl" or "taxobench"
    survey_id: str | None                # the survey's corpus paper_id, when it is in the corpus
    cutoff: date | None                  # searchable papers are known to precede this day
    references: dict[str, int]           # resolved reference -> grade, sorted by paper_id
    unsearchable: dict[str, str]         # resolved reference -> reason (UNSEARCHABLE_REASONS)
    counts: ReferenceCounts
    mindmap: TaxoNode | None = None      # ground truth for organisation (virtual root)
    mindmap_source: str | None = None    # "typology" or "taxobench"
    searchability_checked: bool = True

    @property
    def gold(self) -> dict[str, int]:
        return {pid: g for pid, g in self.references.items() if pid not in self.unsearchable}

    def qrels(self, variant: str = "searchable") -> dict[str, int]:
        """"searchable" (default): `gold`; "all": every resolved reference, as upstream's
        qrels (which ignore the leakage rule when judging)."""
        if variant == "searchable":
            return self.gold
        if variant == "all":
            return dict(self.references)
        raise ValueError(f"unknown qrels variant {variant!r}; use 'searchable' or 'all'")

    @property
    def flags(self) -> list[str]:
        out = []
        if not self.gold:
            out.append(EMPTY_GOLD)
        if self.cutoff is None:
            out.append(NO_CUTOFF)
        if not self.searchability_checked:
            out.append(UNCHECKED)
        if self.mindmap is None:
            out.append(NO_MINDMAP)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "topic": self.topic, "source": self.source,
                "survey_id": self.survey_id,
                "cutoff": self.cutoff.isoformat() if self.cutoff else None,
                "references": self.references, "unsearchable": self.unsearchable,
                "counts": self.counts.as_dict(),
                "mindmap": mindmap_to_json(self.mindmap) if self.mindmap is not None else None,
                "mindmap_source": self.mindmap_source,
                "searchability_checked": self.searchability_checked, "flags": self.flags}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "ArenaTask":
        return cls(id=raw["id"], topic=raw["topic"], source=raw["source"],
                   survey_id=raw["survey_id"],
                   cutoff=date.fromisoformat(raw["cutoff"]) if raw["cutoff"] else None,
                   references={str(k): int(v) for k, v in raw["references"].items()},
                   unsearchable=dict(raw["unsearchable"]),
                   counts=ReferenceCounts.from_dict(raw["counts"]),
                   mindmap=mindmap_from_json(raw["mindmap"], "mindmap")
                   if raw.get("mindmap") is not None else None,
                   mindmap_source=raw.get("mindmap_source"),
                   searchability_checked=raw.get("searchability_checked", True))


# ---------------------------------------------------------------------------------------------
# Mind-maps as JSON: {"name": str, "children": [...]} (order and repeated headings kept)
# ---------------------------------------------------------------------------------------------

def mindmap_to_json(node: TaxoNode) -> dict[str, Any]:
    """Nested {"name", "children"} (iterative; papers are not part of a mind-map)."""
    out: dict[str, Any] = {"name": node.name, "children": []}
    stack = [(node, out)]
    while stack:
        src, dst = stack.pop()
        for child in src.children:
            entry: dict[str, Any] = {"name": child.name, "children": []}
            dst["children"].append(entry)
            stack.append((child, entry))
    return out


def mindmap_from_json(raw: object, where: str = "mindmap") -> TaxoNode:
    """Inverse of `mindmap_to_json`; ValueError naming the path of a malformed node."""
    root = TaxoNode(name="")
    stack: list[tuple[object, TaxoNode, str]] = [(raw, root, where)]
    while stack:
        obj, node, path = stack.pop()
        if not isinstance(obj, dict) or set(obj) - {"name", "children"}:
            raise ValueError(f"{path}: expected an object with 'name' and 'children'")
        name, children = obj.get("name"), obj.get("children", [])
        if not isinstance(name, str):
            raise ValueError(f"{path}.name: must be a string")
        if not isinstance(children, list):
            raise ValueError(f"{path}.children: must be a list")
        node.name = name
        node.children = [TaxoNode(name="") for _ in children]
        for i, child in enumerate(children):
            stack.append((child, node.children[i], f"{path}.children[{i}]"))
    return root


# ---------------------------------------------------------------------------------------------
# tasks.jsonl
# ---------------------------------------------------------------------------------------------

def task_lines(tasks: Iterable[ArenaTask]) -> list[str]:
    return [json.dumps(t.to_json(), ensure_ascii=False, sort_keys=True) for t in tasks]


def tasks_sha256(tasks: Iterable[ArenaTask]) -> str:
    """Checksum of the task set's canonical JSON lines (identifies it in run manifests)."""
    digest = hashlib.sha256()
    for line in task_lines(tasks):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def write_tasks(path: str | Path, tasks: Iterable[ArenaTask]) -> None:
    write_lines_atomic(Path(path), task_lines(tasks))


def read_tasks(path: str | Path) -> list[ArenaTask]:
    out = []
    for line, obj in iter_jsonl(path):
        try:
            out.append(ArenaTask.from_json(obj))
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"not a ResearchArena task record ({exc})", file=str(path),
                            line=line) from exc
    return out


# ---------------------------------------------------------------------------------------------
# Upstream survey.jsonl
# ---------------------------------------------------------------------------------------------

@dataclass
class UpstreamSurvey:
    """One line of upstream `survey.jsonl`, validated; ids kept as upstream writes them."""
    id: str
    title: str
    publication_date: date | None
    influential: list[str]
    relevant: list[str]
    mindmap: TaxoNode | None
    line: int


def _id(value: object) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip() and not any(c.isspace() for c in value.strip()):
        return value.strip()
    return None


def read_survey_jsonl(path: str | Path) -> list[UpstreamSurvey]:
    """Every survey of an upstream `survey.jsonl`; DataError naming file, line and field."""
    path = Path(path)
    out: list[UpstreamSurvey] = []
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        def fail(msg: str, fld: str) -> DataError:
            return DataError(msg, file=str(path), line=line, field=fld)

        sid = _id(obj.get("id"))
        if sid is None:
            raise fail("missing, or not an int / a string without spaces", "id")
        if sid in seen:
            raise fail(f"survey id {sid!r} repeated (first at line {seen[sid]})", "id")
        seen[sid] = line
        title = obj.get("title")
        if not isinstance(title, str) or not title.strip():
            raise fail("missing or empty title", "title")
        raw_date = obj.get("publicationDate")
        published = None
        if raw_date is not None:
            try:
                published = date.fromisoformat(raw_date) if isinstance(raw_date, str) else None
            except ValueError:
                published = None
            if published is None:
                raise fail(f"not a YYYY-MM-DD date: {raw_date!r}", "publicationDate")
        refs = obj.get("references")
        if not isinstance(refs, dict):
            raise fail("need an object {influential: [...], relevant: [...]}", "references")
        lists: dict[str, list[str]] = {}
        for key in ("influential", "relevant"):
            items = refs.get(key, [])
            if items is None:
                items = []
            if not isinstance(items, list):
                raise fail("must be a list of ids", f"references.{key}")
            lists[key] = []
            for i, item in enumerate(items):
                rid = _id(item)
                if rid is None:
                    raise fail(f"not an id: {item!r}", f"references.{key}[{i}]")
                lists[key].append(rid)
        unknown = set(refs) - {"influential", "relevant"}
        if unknown:
            raise fail(f"unknown key(s) {sorted(unknown)}", "references")
        raw_typology = obj.get("typology")
        mindmap = (parse_typology(raw_typology, file=str(path), line=line, field="typology")
                   if raw_typology is not None else None)
        out.append(UpstreamSurvey(sid, title.strip(), published, lists["influential"],
                                  lists["relevant"], mindmap, line))
    return out


__all__ = ["ArenaTask", "ReferenceCounts", "UpstreamSurvey", "INFLUENTIAL", "RELEVANT",
           "SURVEY", "UNDATED", "NOT_BEFORE", "UNSEARCHABLE_REASONS", "EMPTY_GOLD", "NO_CUTOFF",
           "UNCHECKED", "NO_MINDMAP", "mindmap_to_json", "mindmap_from_json", "read_tasks",
           "write_tasks", "tasks_sha256", "task_lines", "read_survey_jsonl"]
