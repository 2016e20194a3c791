"""ResearchArena's measures as `core.measure.Measure` objects: the one place their keys,
labels, directions, provenance and display (fractions with 4 decimals on [0, 1]; the tree
distance with 2, open above) are written (benchmark headline, scoring's primary keys,
report columns and `list measure` read them from here).

Every summary value is the plain mean over the sub-task's counted samples (paper §5 reports
per-survey means; nothing is pooled), so no measure has its own aggregator:

- discovery / selection: the mean of each ir_measures name over the tasks with gold (trec_eval
  ``-c``: a missing or malformed answer scores 0 and counts). The summary sums in qid order as
  trec_eval accumulates, so its value is bit-identical to trec_eval's; the interval is the
  bootstrap of that same mean.
- organisation: the mean over the tasks with a ground-truth mind-map whose value is defined
  (heading entity recall is undefined when the gold headings have no entity).

The ranking measures are parameterised: `ranking_measure(name)` builds the Measure of any
ir_measures name a run asks for with ``--measures``; the paper's nine are registered.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from scholarbench.core.measure import NOT_COUNTED, Measure, Row, is_number
from scholarbench.core.registry import add_measures

BENCHMARK = "researcharena"
DISCOVERY_KEYS: tuple[str, ...] = ("R@10", "R@100", "P@10", "P@100")
SELECTION_KEYS: tuple[str, ...] = ("nDCG@10", "nDCG@30", "nDCG@100", "RR")
RANKING_KEYS: tuple[str, ...] = (*DISCOVERY_KEYS, *SELECTION_KEYS, "AP")
ORGANISATION_KEYS: tuple[str, ...] = ("heading_soft_recall", "heading_entity_recall",
                                      "tree_semantic_distance")
RANKING_NOTE = ("mean over the tasks with gold, summed in qid order as trec_eval -c "
                "(a missing or malformed answer scores 0)")

_RANKING_TEXT = {
    "R": "recall at the cutoff: relevant in the top k / relevant (trec_eval)",
    "P": "precision at the cutoff: relevant in the top k / k (trec_eval)",
    "nDCG": "nDCG at the cutoff, linear gains (influential 2, other reference 1; trec_eval)",
    "RR": "reciprocal rank of the first relevant paper; its mean is MRR (trec_eval)",
    "AP": "average precision (trec_eval)",
}


@dataclass(frozen=True)
class RankingMeasure(Measure):
    """A ranking measure: the plain mean over the counted tasks, summed as trec_eval sums (qids
    ascending, one float addition at a time), so the summary is bit-identical to trec_eval's.
    Its key is any ir_measures name, also one `metrics.names` does not parse (`P(rel=2)@10`:
    parameters before the cutoff); the benchmark checks the names with ir_measures first."""

    def __post_init__(self) -> None:
        if self.benchmark != BENCHMARK:
            raise ValueError(f"bad benchmark namespace {self.benchmark!r}")
        self._settle_display()

    def value(self, rows: Sequence[Row]) -> float | None:
        total, n = 0.0, 0
        for row in sorted((r for r in rows if r.get("status") not in NOT_COUNTED),
                          key=lambda r: r["id"]):
            if is_number(row.get(self.key)):
                total, n = total + row[self.key], n + 1
        return total / n if n else None


def ranking_measure(key: str) -> RankingMeasure:
    """The Measure of one ir_measures name (its printed form is the key)."""
    base = key.split("@", 1)[0].split("(", 1)[0]
    if key in DISCOVERY_KEYS:
        provenance = "paper §5, Information Discovery (Recall, Precision at K = 10, 100)"
    elif key in SELECTION_KEYS:
        provenance = "paper §5, Information Selection (nDCG, MRR)"
    elif key in RANKING_KEYS:
        provenance = "trec_eval (scored beside the paper's measures)"
    else:
        provenance = "ir_measures name asked for with --measures (trec_eval's code)"
    return RankingMeasure(BENCHMARK, key,
                          _RANKING_TEXT.get(base, f"ir_measures {key} (trec_eval)"),
                          label="MRR" if key == "RR" else key, direction="higher",
                          unit="fraction", provenance=provenance, aggregate_note=RANKING_NOTE)


ORGANISATION: tuple[Measure, ...] = (
    Measure(BENCHMARK, "heading_soft_recall",
            "soft-cardinality recall of gold headings, MiniLM cosine",
            label="Heading Soft Recall", unit="fraction",
            provenance="paper §5, Information Organization (Heading Soft Recall)"),
    Measure(BENCHMARK, "heading_entity_recall",
            "gold heading entities also found in predicted headings (spaCy NER)",
            label="Heading Entity Recall", unit="fraction",
            provenance="paper §5, Information Organization (Heading Entity Recall; FLAIR there)"),
    Measure(BENCHMARK, "tree_semantic_distance",
            "ordered tree edit distance, relabel free when cos > 0.8",
            label="Tree Semantic Distance", direction="lower", unit="edit operations",
            decimals=2, bounds=(0.0, None),
            provenance="paper §5, Information Organization (Tree Semantic Distance)"),
)
RANKING: tuple[Measure, ...] = tuple(ranking_measure(k) for k in RANKING_KEYS)
BY_KEY: dict[str, Measure] = {m.key: m for m in (*RANKING, *ORGANISATION)}


def ranking_measures(keys: Sequence[str]) -> tuple[Measure, ...]:
    """Measures of a run's ranking keys (ir_measures names), in their order."""
    return tuple(BY_KEY.get(key) or ranking_measure(key) for key in keys)


def measures_of(subtask: str | None, keys: Sequence[str]) -> tuple[Measure, ...]:
    """The Measures of a run's summary keys: organisation's plain means (the declared three),
    else ranking measures."""
    if subtask == "organisation":
        return tuple(BY_KEY.get(key) or Measure(BENCHMARK, key) for key in keys)
    return ranking_measures(keys)


add_measures((*RANKING, *ORGANISATION))

__all__ = ["BY_KEY", "DISCOVERY_KEYS", "ORGANISATION", "ORGANISATION_KEYS", "RANKING",
           "RANKING_KEYS", "RANKING_NOTE", "SELECTION_KEYS", "RankingMeasure", "measures_of",
           "ranking_measure", "ranking_measures"]
