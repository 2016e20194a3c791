"""What SciNet's report section shows: the metrics per task family (their display is on the
`Measure`, `measures.py`), the answers' counts, why a metric can be undefined, the notes, and
the summary entries a run's report reads (`families.<family>`, its judge counts)."""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.scinet.measures import (FAMILIES, FAMILY_METRICS, MICRO,  # noqa: F401
                                                    SPEC, measures_of)
from scholarbench.core.measure import Measure
from scholarbench.report.sections.base import ReportRun

# the metrics per family (deterministic, then LLM-judged), from the measures
KEYS: dict[str, tuple[str, ...]] = {f: tuple(k for k in FAMILY_METRICS[f] if not SPEC[k].judge)
                                    for f in FAMILIES}
LLM_KEYS: dict[str, tuple[str, ...]] = {f: tuple(k for k in FAMILY_METRICS[f]
                                                 if SPEC[k].judge) for f in FAMILIES}
ALL_KEYS = tuple(k for f in FAMILIES for k in KEYS[f] + LLM_KEYS[f])
COUNT_KEYS = ("returned", "distinct", "in_graph", "not_in_graph")


COLUMNS: dict[str, Measure] = {m.key: m for m in measures_of(None)}     # paper variant
COUNTS: dict[str, Measure] = {
    k: Measure("scinet", k, label=label, direction="none", decimals=0, bounds=(0.0, None))
    for k, label in zip(COUNT_KEYS, ("Returned", "Distinct", "In graph", "Not in graph"))}
UNDEFINED_WHY = {
    "cite_sentiment": "no citation context of the query paper",
    "comention_paragraph": "the query paper in no unArXive paragraph",
    "novelty_llm": "every judged paper unscored",
    "disruption_llm": "every judged paper unscored",
    "path_rationality_llm": "the judge's reply unscored",
    **{f"review_{d}": "no usable review, or the judge's reply unscored"
       for d in ("relevance", "completeness", "depth", "logical_consistency", "usefulness")},
}
FAMILY_TITLES = {"ego": "ego-centric tasks", "pair": "pair-wise tasks",
                 "path": "path-wise tasks", "review": "literature review (downstream, §6)"}
NO_PUBLISHED = ("No published rows: SciNet released its query files but no ground truth, so "
                "these tasks are built by rule from a real citation graph (arxiv-2023 by "
                "default) in SciNet's query wording and scored by deterministic metrics; the "
                "paper's numbers (OpenAlex, GPT-5 labels) are not on the same tasks and are not "
                "shown (docs/scinet.md).")
ORACLE_NOTE = ("relation-aware computes the very graph measures the ground truth is built "
               "from: close to an oracle for ego and path tasks (what graph access is worth, "
               "not a fair contest).")
LIST_LIMIT = 50


def family_summary(run: ReportRun) -> dict[str, Any]:
    """summary.json's `families.<family>` entry of the run."""
    return run.raw_summary["families"][run.mode]


def judge_entry(run: ReportRun) -> dict[str, Any]:
    entry = family_summary(run).get("judge")
    return entry if isinstance(entry, dict) else {}


def judged(run: ReportRun) -> bool:
    return any(k in run.summary.metrics for k in LLM_KEYS.get(run.mode, ()))
