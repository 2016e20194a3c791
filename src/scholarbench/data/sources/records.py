"""Typed records that every source reader yields: papers, citation edges, full-text paragraphs.

A reader never resolves anything: it states what its files say, as canonical id keys
(`kind:value`, see `keys.py`) plus a title where it has one. The corpus builder merges them.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Union


@dataclass(frozen=True)
class Ref:
    """A pointer to a paper as a source writes it: id keys, and a title and year when known."""
    keys: tuple[str, ...] = ()
    title: str = ""
    year: int | None = None


@dataclass(frozen=True)
class PaperRecord:
    """One paper as one source describes it. `title` is "" for id-only records (an S2 abstract,
    a paper-ids row): those only add ids to a paper another source names."""
    source: str
    ids: tuple[str, ...]
    title: str = ""
    abstract: str = ""
    year: int | None = None
    published: date | None = None     # an exact date, when the source gives one
    is_survey: bool | None = None     # True when the source knows it is a survey, else None
    category: str | None = None       # arXiv primary category

    def ref(self) -> Ref:
        return Ref(self.ids, self.title, self.year)


@dataclass(frozen=True)
class EdgeRecord:
    """`citing` cites `cited`."""
    source: str
    citing: Ref
    cited: Ref


@dataclass(frozen=True)
class ParagraphRecord:
    """One paragraph of a paper's full text; `cited` are the references its markers point to,
    in order of first mention. `position` is the paragraph's index in the source's own order."""
    source: str
    paper: Ref
    section: str
    position: int
    text: str
    cited: tuple[Ref, ...] = ()


Record = Union[PaperRecord, EdgeRecord, ParagraphRecord]
