"""A generate.jsonl record's references and their scores — shared by the run's scorer and
`scholarbench score reportbench`, so both give the same numbers for the same line.

References of a record: the report's (`report_refs.parse_report`), plus, for a family answer
(`"cited_scored": true`), its `cited` REFs that name a work the report does not already cite;
all resolved offline in one pass (`resolve.resolve_references`, the LLM title hook included).

A REF (`cited_references`) is read as: a corpus paper id when the corpus has it; a URL (its
paper ids, `identifiers_in_text.ids_in_url`); a DOI, arXiv id or other id `parse_id` knows;
else a title (a leading ``title:`` dropped). REFs repeating an id or title of the report's own
references (or of an earlier REF) add nothing; the same work under two spellings merges later
through the corpus title (`metrics.distinct_references`).

The hidden survey (`HiddenSurvey`: the task's arXiv id, DOI and title) is never a valid
citation: a reference naming it — by id, by the corpus paper those ids resolve to, or by its
normalised title — stays in the precision denominator but can match no ground-truth title
(`score_references`), and is counted (`n_hidden_survey` on the scores line). The shipped
ground truth never lists its own survey, so on the benchmark's data this only makes the rule
explicit; the writers never see the survey either (`exclude_ids`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scholarbench.text.normalize import normalize_title
from scholarbench.data.identifiers import parse_id
from scholarbench.references.extract import ExtractedReferences
from scholarbench.references.identifiers_in_text import ids_in_url
from scholarbench.benchmarks.reportbench.metrics import reference_scores
from scholarbench.references.report_refs import Mention, Reference, parse_report
from scholarbench.references.resolve import resolve_references

HIDDEN_MARK = "cited the hidden survey itself arxiv"


@dataclass(frozen=True)
class HiddenSurvey:
    arxiv_id: str
    title: str = ""
    doi: str = ""

    @classmethod
    def of(cls, task: Any) -> "HiddenSurvey":
        return cls(task.arxiv_id, getattr(task, "title", "") or "",
                   getattr(task, "doi", "") or "")

    def keys(self) -> set[str]:
        keys = {f"arxiv:{self.arxiv_id}"}
        if self.doi:
            keys.add(f"doi:{self.doi.lower()}")
        return keys

    def corpus_paper(self, corpus: Any) -> str | None:
        if corpus is None:
            return None
        for key in sorted(self.keys()):
            pid = corpus.resolve(key)
            if pid:
                return pid
        return None

    def names(self, ref: Any, corpus_paper: str | None = None) -> bool:
        if set(ref.ids) & self.keys():
            return True
        if corpus_paper is not None and ref.paper_id == corpus_paper:
            return True
        own = normalize_title(self.title)
        return bool(own) and any(normalize_title(t) == own for t in ref.titles())

    @property
    def sentinel(self) -> str:
        """The one title every reference to the hidden survey is scored under: it matches no
        ground-truth title, and all such references count as one reference."""
        return f"{HIDDEN_MARK} {self.arxiv_id}"


def _ref_of(ref: str, corpus: Any) -> tuple[list[str], list[str], list[str]]:
    """(ids, urls, stated titles) of one REF."""
    if corpus is not None and ref in corpus:
        return [ref], [], []
    if ref.lower().startswith(("http://", "https://")):
        return list(ids_in_url(ref)), [ref], []
    parsed = parse_id(ref)
    if parsed.kind != "title":
        return [str(parsed)], [], []
    title = ref[6:].strip() if ref.lower().startswith("title:") else ref
    return [], [], [title]


def cited_references(cited: Sequence[str], existing: Sequence[Any], corpus: Any = None
                     ) -> list[Any]:
    """`Reference`s for the REFs in `cited` that name no work of `existing` (see above)."""
    seen_ids = {k for r in existing for k in r.ids}
    seen_titles = {normalize_title(t) for r in existing for t in r.stated_titles}
    out = []
    for raw in cited:
        ref = raw.strip() if isinstance(raw, str) else ""
        if not ref:
            continue
        ids, urls, titles = _ref_of(ref, corpus)
        norms = {normalize_title(t) for t in titles} - {""}
        if (ids and set(ids) & seen_ids) or (not ids and norms and norms <= seen_titles):
            continue
        if not (ids or urls or norms):
            continue
        seen_ids.update(ids)
        seen_titles.update(norms)
        out.append(Reference(mentions=[Mention("cited", ref, 0)], ids=ids, urls=urls,
                             stated_titles=titles))
    return out


def cited_counts(cited: Sequence[str], corpus: Any, hidden: HiddenSurvey | None
                 ) -> dict[str, int]:
    """How the REFs of an answer's `cited` resolve offline (recorded in `info`)."""
    refs, _ = resolve_references(cited_references(cited, [], corpus), corpus)
    own = hidden.corpus_paper(corpus) if hidden is not None else None
    statuses = [r.status for r in refs]
    return {"n_cited_refs": len(cited), "n_cited_resolved": statuses.count("resolved"),
            "n_cited_titled": statuses.count("titled"),
            "n_cited_unresolved": statuses.count("unresolved"),
            "n_cited_hidden_survey": sum(1 for r in refs if hidden is not None
                                         and hidden.names(r, own))}


def references_for(record: dict[str, Any], corpus: Any = None, title_extractor: Any = None):
    """The `ExtractedReferences` of a record (`report`, and `cited` when `cited_scored`)."""
    report = record.get("report") if isinstance(record.get("report"), str) else ""
    refs = parse_report(report) if report else []
    if record.get("cited_scored") and isinstance(record.get("cited"), list):
        refs = refs + cited_references(record["cited"], refs, corpus)
    resolved, stats = resolve_references(refs, corpus, report, title_extractor)
    return ExtractedReferences(resolved, stats)


def score_references(found: Any, gt_titles: Sequence[str], hidden: HiddenSurvey | None,
                     corpus: Any = None, *, match: str = "exact", unresolved: str = "exclude"
                     ) -> tuple[Any, int]:
    """(`metrics.RefScores`, how many references name the hidden survey)."""
    own = hidden.corpus_paper(corpus) if hidden is not None else None
    titles, n_hidden = [], 0
    for ref in found.titled():
        if hidden is not None and hidden.names(ref, own):
            n_hidden += 1
            titles.append([hidden.sentinel])
        else:
            titles.append(ref.titles())
    scores = reference_scores(titles, gt_titles, unresolved_with_id=found.unresolved_with_id(),
                              match=match, unresolved=unresolved)  # type: ignore[arg-type]
    return scores, n_hidden
