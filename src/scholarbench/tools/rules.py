"""What one task may see of the corpus: its leakage rules, enforced inside every tool.

A session of the literature tools is bound to one sample, and the sample's benchmark says
which papers it hides (the `rules` of its `Benchmark.tool_source`):

- `before`: only papers known to exist before this day (the corpus's own date rule:
  `Corpus.search_bm25`'s `before`, a paper's latest possible date is its published day, else
  the end of its arXiv month, else 31 December of its year; undated papers are hidden);
- `exclude_surveys`: no paper flagged as a survey;
- `exclude_ids`: these papers never (the survey the task was made from); each entry may be a
  paper_id, any identifier or a title, and every corpus paper it names is hidden.

The rules are one boolean mask over the corpus (`Corpus.visible_rows`, the mask the searches
filter with), so search, lookup by any identifier or title, references, citations, co-citation,
coupling and citation contexts hide exactly the same papers. A hidden paper and an absent one
get the same answer, so an agent cannot even learn that a hidden paper exists.
"""
from __future__ import annotations

from datetime import date
from typing import Any, Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field


class AccessRules(BaseModel):
    """One task's leakage rules (see the module docstring); no rules = the whole corpus."""
    model_config = ConfigDict(frozen=True, extra="forbid")
    before: date | None = None
    exclude_surveys: bool = False
    exclude_ids: tuple[str, ...] = ()
    why: str = Field("", description="the rule in the benchmark's words, shown to agents")

    def filters(self) -> dict[str, Any]:
        """The same rules as keyword arguments of `Corpus.search_*`."""
        return {"before": self.before, "exclude_surveys": self.exclude_surveys,
                "exclude_ids": list(self.exclude_ids)}

    def describe(self) -> str:
        parts = []
        if self.before is not None:
            parts.append(f"only papers published before {self.before.isoformat()}")
        if self.exclude_surveys:
            parts.append("no surveys")
        if self.exclude_ids:
            parts.append(f"{len(self.exclude_ids)} paper(s) of the task hidden")
        rule = "; ".join(parts) or "the whole corpus"
        return f"{self.why}: {rule}" if self.why else rule


class Visibility:
    """The rules applied to one open corpus: a mask over its rows, computed once."""

    def __init__(self, corpus: Any, rules: AccessRules) -> None:
        self.corpus = corpus
        self.rules = rules
        filters = rules.filters()
        # an excluded id may be any identifier or title: every paper it names is hidden
        filters["exclude_ids"] = sorted(named_papers(corpus, rules.exclude_ids))
        self.mask: np.ndarray = corpus.visible_rows(**filters)
        self._no_surveys: np.ndarray | None = None

    def rows(self, exclude_surveys: bool = False) -> np.ndarray:
        """The mask searches rank within (surveys also dropped when the agent asks)."""
        if not exclude_surveys or self.rules.exclude_surveys:
            return self.mask
        if self._no_surveys is None:
            self._no_surveys = self.mask & ~self.corpus.survey_rows()
        return self._no_surveys

    def __call__(self, pid: str | None) -> bool:
        row = self.corpus.row_of(pid) if pid else None
        return row is not None and bool(self.mask[row])

    def keep(self, pids: list[str]) -> list[str]:
        return [p for p in pids if self(p)]

    def count(self) -> int:
        return int(self.mask.sum())


def named_papers(corpus: Any, refs: Iterable[str]) -> set[str]:
    """Every corpus paper the refs name (a paper_id itself, any identifier, a title)."""
    out: set[str] = set()
    for ref in refs:
        if not str(ref or "").strip():
            continue
        try:
            out.update(corpus.resolve_all(ref))
        except Exception:        # an unparsable identifier names no paper
            continue
    return out
