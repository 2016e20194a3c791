"""What SciNet's report section shows: the metrics per task family, their display (labels,
decimals, bounds), why a metric can be undefined, the notes, and the summary entries a run's
report reads (`families.<family>`, its judge counts)."""
from __future__ import annotations

from typing import Any

from scholarbench.report.sections.base import MetricDisplay, ReportRun

FAMILIES = ("ego", "pair", "path")
KEYS: dict[str, tuple[str, ...]] = {
    "ego": ("novelty_sos", "novelty_recall@50", "disruption_sos", "disruption_recall@50"),
    "pair": ("cite_acc", "cite_sentiment", "comention_acc", "comention_paragraph"),
    "path": ("path_consistency", "path_connectivity"),
}
LLM_KEYS: dict[str, tuple[str, ...]] = {"ego": ("novelty_llm", "disruption_llm"), "pair": (),
                                        "path": ("path_rationality_llm",)}
MICRO = ("cite_acc", "cite_sentiment", "comention_acc", "comention_paragraph",
         "path_consistency")
ALL_KEYS = tuple(k for f in FAMILIES for k in KEYS[f] + LLM_KEYS[f])
COUNT_KEYS = ("returned", "distinct", "in_graph", "not_in_graph")


def _sos(key: str, label: str) -> MetricDisplay:
    return MetricDisplay(key, label, decimals=3, bounds=(0.0, 10.0))


def _rate(key: str, label: str) -> MetricDisplay:
    return MetricDisplay(key, label, decimals=3)


DISPLAY: dict[str, MetricDisplay] = {
    "novelty_sos": _sos("novelty_sos", "Novelty SoS"),
    "novelty_recall@50": _rate("novelty_recall@50", "Novelty Recall@50"),
    "disruption_sos": _sos("disruption_sos", "Disruption SoS"),
    "disruption_recall@50": _rate("disruption_recall@50", "Disruption Recall@50"),
    "cite_acc": _rate("cite_acc", "Cite Acc"),
    "cite_sentiment": _rate("cite_sentiment", "Cite Sentiment"),
    "comention_acc": _rate("comention_acc", "Co-mention Acc"),
    "comention_paragraph": _rate("comention_paragraph", "Co-mention Paragraph"),
    "path_consistency": _rate("path_consistency", "Path Consistency"),
    "path_connectivity": _rate("path_connectivity", "Path Connectivity"),
    "novelty_llm": MetricDisplay("novelty_llm", "Novelty (LLM)", decimals=2,
                                 bounds=(0.0, 10.0)),
    "disruption_llm": MetricDisplay("disruption_llm", "Disruption (LLM)", decimals=2,
                                    bounds=(0.0, 10.0)),
    "path_rationality_llm": MetricDisplay("path_rationality_llm", "Path Rationality (LLM)",
                                          decimals=2, bounds=(0.0, 10.0)),
}
for _k in MICRO:
    DISPLAY[f"{_k}_micro"] = _rate(f"{_k}_micro", f"{DISPLAY[_k].label} (micro)")
COUNT_DISPLAY = {k: MetricDisplay(k, label, decimals=0, bounds=(0.0, None), directional=False)
                 for k, label in zip(COUNT_KEYS, ("Returned", "Distinct", "In graph",
                                                  "Not in graph"))}
UNDEFINED_WHY = {
    "cite_sentiment": "no citation context of the query paper",
    "comention_paragraph": "the query paper in no unArXive paragraph",
    "novelty_llm": "every judged paper unscored",
    "disruption_llm": "every judged paper unscored",
    "path_rationality_llm": "the judge's reply unscored",
}
FAMILY_TITLES = {"ego": "ego-centric tasks", "pair": "pair-wise tasks",
                 "path": "path-wise tasks"}
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
