"""SciNet's measure names, per task family, registered in the one registry (light: no numpy).

The definitions are in `metrics.py` (deterministic) and `judge.py` (LLM-judged); docs/scinet.md
has the table."""
from __future__ import annotations

from dataclasses import dataclass

from scholarbench.core.registry import register_measure

K = 50                       # only the first K answer items count, for every measure
EGO_METRICS = ("novelty_sos", "novelty_recall@50", "disruption_sos", "disruption_recall@50")
PAIR_METRICS = ("cite_acc", "cite_sentiment", "comention_acc", "comention_paragraph")
PATH_METRICS = ("path_consistency", "path_connectivity")
LLM_METRICS = ("novelty_llm", "disruption_llm", "path_rationality_llm")
METRICS = EGO_METRICS + PAIR_METRICS + PATH_METRICS
MICRO = ("cite_acc", "cite_sentiment", "comention_acc", "comention_paragraph",
         "path_consistency")
# the measures of each sub-task (SciNet's task family), deterministic first
FAMILY_METRICS = {"ego": EGO_METRICS + LLM_METRICS[:2], "pair": PAIR_METRICS,
                  "path": PATH_METRICS + LLM_METRICS[2:]}


@dataclass(frozen=True)
class MetricInfo:
    key: str
    family: str          # ego | pair | path
    llm: bool = False


for _name in METRICS + LLM_METRICS:
    _fam = next(f for f, keys in FAMILY_METRICS.items() if _name in keys)
    register_measure(_name)(MetricInfo(_name, _fam, _name in LLM_METRICS))
