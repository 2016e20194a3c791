"""What is judged in one report (`statements` steps 1–2): the cited (statement, work) pairs
from the extraction, linked to the report's references, and the non-cited statements — built
the same way for `StatementJudge` and for the engine's judged items (`statement_items`) and
their verdicts (`statement_verdicts`), so a pair's or statement's position names the same
item in the requests and in the result.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.reportbench.citation_index import CitationIndex
from scholarbench.benchmarks.reportbench.statement_records import CitedUnit
from scholarbench.text.normalize import normalize_title

Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]


def norm_statement(text: str) -> str:
    return " ".join(normalize_title(text).split())


def in_order(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return [fn(x) for x in items]


@dataclass
class ReportUnits:
    """One report's cited pairs (`cited`, with the reference each links to in `refs_of`), the
    cited statements found per chunk, and the extraction's counts."""
    cited: list[CitedUnit] = field(default_factory=list)
    refs_of: list[Any] = field(default_factory=list)
    chunk_cited: list[list[str]] = field(default_factory=list)
    extraction: dict[str, Any] = field(default_factory=dict)


def cited_units(extract: Any, chunks: Sequence[str], refs: Sequence[Any],
                mapper: Mapper = in_order) -> ReportUnits:
    """The cited pairs of the chunks' extraction: a citation naming several works gives one
    pair per work; identical (statement, work) pairs count once."""
    index = CitationIndex(refs)
    out = ReportUnits(extraction={"chunks": len(chunks), "cited_unscored": [],
                                  "noncited_unscored": [], "n_items_dropped": 0,
                                  "n_duplicate_pairs": 0, "n_citations_unlinked": 0})
    extraction = out.extraction
    seen: set[tuple[str, int | None, str]] = set()
    for c, found in enumerate(mapper(lambda c: extract.cited(c, chunks[c]), range(len(chunks)))):
        extraction["n_items_dropped"] += found.dropped
        if found.problem is not None:
            extraction["cited_unscored"].append({"chunk": c, "reason": found.problem})
            out.chunk_cited.append([])
            continue
        out.chunk_cited.append([s for s, _ in found.items])
        for statement, citation in found.items:
            linked = index.link(citation)
            if not linked:
                extraction["n_citations_unlinked"] += 1
            for i in linked or [None]:
                key = (norm_statement(statement), i, citation if i is None else "")
                if key in seen:
                    extraction["n_duplicate_pairs"] += 1
                    continue
                seen.add(key)
                out.cited.append(CitedUnit(statement, citation, i))
                out.refs_of.append(index.refs[i] if i is not None else None)
    return out


def noncited_statements(extract: Any, chunks: Sequence[str], units: ReportUnits,
                        quoted: bool, mapper: Mapper = in_order) -> list[str]:
    """The non-cited statements of the chunks' extraction, each given the cited statements of
    its chunk (`quoted` False, the upstream prompts: of the whole report); one equal
    (normalised) to a cited or an earlier statement is dropped."""
    chunk_cited = units.chunk_cited if quoted else \
        [[s for one in units.chunk_cited for s in one]] * len(chunks)
    extraction = units.extraction
    known = {norm_statement(u.statement) for u in units.cited}
    statements: list[str] = []
    for c, found in enumerate(mapper(lambda c: extract.noncited(c, chunks[c], chunk_cited[c]),
                                     range(len(chunks)))):
        extraction["n_items_dropped"] += found.dropped
        if found.problem is not None:
            extraction["noncited_unscored"].append({"chunk": c, "reason": found.problem})
            continue
        for statement in found.items:
            norm = norm_statement(statement)
            if norm and norm not in known:
                known.add(norm)
                statements.append(statement)
    return statements


__all__ = ["ReportUnits", "cited_units", "in_order", "noncited_statements", "norm_statement"]
