"""ReportBench's statement records (`statements` docstring): a cited (statement, work) pair's
verdict, a non-cited statement's votes, and one report's result with its metrics — made by
`StatementJudge` asking the judges itself or by `statement_verdicts` from the engine's
verdicts."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class CitedUnit:
    statement: str
    citation: str
    ref: int | None                   # index into the report's references
    status: str = "unscored"          # checked | unreachable | unscored
    match: bool | None = None
    reason: str | None = None         # judge's reason, unreachable detail or unscored reason
    unreachable: str | None = None    # the unreachable kind
    not_found: bool = False           # the passage step answered NOT_FOUND
    passage: str | None = None        # what the judge compared the statement with
    source: dict[str, Any] | None = None
    attempts: int = 0


@dataclass
class Vote:
    judge: str
    sample: int
    decision: bool | None
    reason: str | None = None
    unscored: str | None = None
    attempts: int = 0


@dataclass
class NonCitedVerdict:
    statement: str
    votes: list[Vote] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)    # sources of the evidence shown

    @property
    def n_true(self) -> int:
        return sum(1 for v in self.votes if v.decision is True)

    @property
    def n_false(self) -> int:
        return sum(1 for v in self.votes if v.decision is False)

    @property
    def outcome(self) -> str:
        t, f = self.n_true, self.n_false
        if t + f == 0:
            return "unscored"
        return "correct" if t > f else "incorrect" if f > t else "tie"

    @property
    def confidence(self) -> float | None:
        t, f = self.n_true, self.n_false
        return max(t, f) / (t + f) if t + f else None

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "outcome": self.outcome, "n_true": self.n_true,
                "n_false": self.n_false,
                "n_unscored": sum(1 for v in self.votes if v.decision is None),
                "confidence": self.confidence, "evidence": self.evidence,
                "votes": [asdict(v) for v in self.votes]}


@dataclass
class StatementResult:
    cited: list[CitedUnit] = field(default_factory=list)
    noncited: list[NonCitedVerdict] = field(default_factory=list)
    extraction: dict[str, Any] = field(default_factory=dict)
    panel: Any = None                 # `statement_panel.PanelVerdicts` with a judge panel

    def metrics(self) -> dict[str, Any]:
        if self.panel is not None:
            return self.panel.metrics(self)
        units = self.cited
        checked = [u for u in units if u.status == "checked"]
        unreachable = [u for u in units if u.status == "unreachable"]
        matched = sum(1 for u in checked if u.match)
        reasons: dict[str, int] = {}
        for u in unreachable:
            reasons[u.unreachable or "unknown"] = reasons.get(u.unreachable or "unknown", 0) + 1
        denom = len(checked) + len(unreachable)
        outcomes = [v.outcome for v in self.noncited]
        correct, incorrect, tie = (outcomes.count(k) for k in ("correct", "incorrect", "tie"))
        ex = self.extraction
        return {
            "cited_match_rate": matched / denom if denom else None,
            "cited_match_rate_checkable": matched / len(checked) if checked else None,
            "n_cited": len(units), "n_cited_statements": len({u.statement for u in units}),
            "n_cited_checked": len(checked), "n_cited_matched": matched,
            "n_cited_not_found": sum(1 for u in checked if u.not_found),
            "n_cited_unreachable": len(unreachable),
            "n_cited_unscored": sum(1 for u in units if u.status == "unscored"),
            "cited_unreachable_reasons": dict(sorted(reasons.items())),
            "noncited_accuracy": correct / (correct + incorrect) if correct + incorrect else None,
            "noncited_accuracy_upstream": (correct / (correct + incorrect + tie)
                                           if correct + incorrect + tie else None),
            "n_noncited": len(outcomes), "n_noncited_correct": correct,
            "n_noncited_incorrect": incorrect, "n_noncited_tie": tie,
            "n_noncited_unscored": outcomes.count("unscored"),
            "n_votes": sum(len(v.votes) for v in self.noncited),
            "n_votes_unscored": sum(1 for v in self.noncited for x in v.votes
                                    if x.decision is None),
            "n_extraction_unscored": (len(ex.get("cited_unscored", []))
                                      + len(ex.get("noncited_unscored", []))),
        }

    def to_record(self) -> dict[str, Any]:
        return {"metrics": self.metrics(), "extraction": self.extraction,
                "cited": [asdict(u) for u in self.cited],
                "noncited": [v.to_dict() for v in self.noncited],
                **({"panel": self.panel.to_record()} if self.panel is not None else {})}


__all__ = ["CitedUnit", "NonCitedVerdict", "StatementResult", "Vote"]
