"""SciNet's measures as objects (`core.measure.Measure`), per task family and scoring variant,
registered as `scinet/<key>` (light: no numpy).

One entry of `SPECS` is one measure: its key, family, label, unit, what it is and where it comes
from. Everything else is derived from it: the key tuples below, each precision-type measure's
micro twin `<key>_micro` (`MICRO`; `micro_pooled` pools hits over the tasks — the summary's
own code and, in numpy, its interval's resamples), the keys under SciNet's released scripts
(`--variant upstream`: `<key>(upstream=1)`, provenance the variant), the report's columns,
labels and display (a rate with 3 decimals on [0, 1]; SoS on 0–10 with 3, a judge's score with 2;
`report_display.py`). The definitions are in `metrics.py` / `upstream.py` (deterministic) and
`judge.py` (LLM-judged); docs/scinet.md has the table.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Sequence

from scholarbench.core.measure import Measure
from scholarbench.core.pooled import Pooled, ratio_of
from scholarbench.core.registry import add_measures

K = 50                       # only the first K answer items count, for every measure
UPSTREAM_COMMIT = "ed5c76f"  # tsinghua-fib-lab/SciNet Evaluation/ scripts of `--variant upstream`
VARIANTS = ("paper", "upstream")


@dataclass(frozen=True)
class Spec:
    key: str                 # the score rows' column and the summary's key (paper variant)
    family: str              # ego | pair | path
    label: str               # the paper's column header
    unit: str
    description: str
    paper: str               # where the paper defines it
    script: str              # upstream's script (Evaluation/ @ UPSTREAM_COMMIT)
    judge: bool = False
    micro: bool = False      # precision-type: also pooled over the tasks (`<key>_micro`)


UNIT_RATE = "fraction"
_SOS, _RATE, _JUDGE = "SoS 0–10", UNIT_RATE, "judge score 0–10"
_REVIEW = "judge score 1–10"
SPECS: tuple[Spec, ...] = (
    Spec("novelty_sos", "ego", "Novelty SoS", _SOS, "mean percentile (/10) of the returned "
         "papers' novelty in the graph", "paper §3, Novelty-SoS (Table 1)",
         "task1-novelty-sos.py + task1-novelty-rank.py"),
    Spec("novelty_recall@50", "ego", "Novelty Recall@50", _RATE, "share of the field's 50 most "
         "novel papers returned", "paper §3, Novelty-Recall@50 (Table 1)",
         "task1-novelty-recall.py"),
    Spec("disruption_sos", "ego", "Disruption SoS", _SOS, "mean percentile (/10) of the "
         "returned papers' CD index in the graph", "paper §3, Disruption-SoS (Table 1)",
         "task1-disruptive-sos.py + task1-disruption-rank.py"),
    Spec("disruption_recall@50", "ego", "Disruption Recall@50", _RATE, "share of the field's "
         "50 most disruptive papers returned", "paper §3, Disruption-Recall@50 (Table 1)",
         "task1-disruptive-recall.py"),
    Spec("cite_acc", "pair", "Cite Acc", _RATE, "share of the returned papers that cite the "
         "query paper", "paper §4, Cite-Acc (Table 2)", "task2-sentiment-cite-acc.py",
         micro=True),
    Spec("cite_sentiment", "pair", "Cite Sentiment", _RATE, "share of the returned papers that "
         "cite the query paper positively", "paper §4, Cite-Sentiment (Table 2)",
         "task2-sentiment-context-acc.py", micro=True),
    Spec("comention_acc", "pair", "Co-mention Acc", _RATE, "share of the returned papers "
         "co-cited with the query paper", "paper §4, CoMention-Acc (Table 2)",
         "task2-comention-acc.py", micro=True),
    Spec("comention_paragraph", "pair", "Co-mention Paragraph", _RATE, "share of the returned "
         "papers co-mentioned with the query paper in one paragraph",
         "paper §4, CoMention-Paragraph (Table 2)", "task2-comention-context-acc.py",
         micro=True),
    Spec("path_consistency", "path", "Path Consistency", _RATE, "share of the returned papers "
         "on the ground-truth path", "paper §5, Consistency (Table 3)",
         "task3-path-connectivity.py", micro=True),
    Spec("path_connectivity", "path", "Path Connectivity", _RATE, "1 when the returned papers "
         "form a citation chain between the endpoints", "paper §5, Connectivity (Table 3)",
         "task3-path-connectivity.py"),
    Spec("novelty_llm", "ego", "Novelty (LLM)", _JUDGE, "the judge's mean novelty score of the "
         "returned papers", "paper §3, Novelty-LLM (Table 1; appendix C prompt)",
         "task1-novelty-llm.py", judge=True),
    Spec("disruption_llm", "ego", "Disruption (LLM)", _JUDGE, "the judge's mean disruption "
         "score of the returned papers", "paper §3, Disruption-LLM (Table 1; appendix C prompt)",
         "task1-disruptive-llm.py", judge=True),
    Spec("path_rationality_llm", "path", "Path Rationality (LLM)", _JUDGE, "the judge's score "
         "of the returned path as an evolution of ideas",
         "paper §5, Rationality-LLM (Table 3; appendix C prompt)", "task3-path-llm.py",
         judge=True),
    # the downstream review (paper §6): the judge scores each review once on five dimensions,
    # 1–10; upstream released no script for it
    *(Spec(f"review_{key}", "review", label, _REVIEW, f"the judge's {label} score (1–10) of "
           "the review", "paper §6, LLM automatic scoring (Figure 6)", "", judge=True)
      for key, label in (("relevance", "Relevance"), ("completeness", "Completeness"),
                         ("depth", "Depth"), ("logical_consistency", "Logical Consistency"),
                         ("usefulness", "Usefulness"))),
)
SPEC = {s.key: s for s in SPECS}
FAMILIES = ("ego", "pair", "path", "review")
EGO_METRICS = tuple(s.key for s in SPECS if s.family == "ego" and not s.judge)
PAIR_METRICS = tuple(s.key for s in SPECS if s.family == "pair" and not s.judge)
PATH_METRICS = tuple(s.key for s in SPECS if s.family == "path" and not s.judge)
LLM_METRICS = tuple(s.key for s in SPECS if s.judge)
METRICS = EGO_METRICS + PAIR_METRICS + PATH_METRICS
MICRO = tuple(s.key for s in SPECS if s.micro)
# the measures of each sub-task (SciNet's task family), deterministic first
FAMILY_METRICS = {f: tuple(s.key for s in SPECS if s.family == f and not s.judge)
                  + tuple(s.key for s in SPECS if s.family == f and s.judge) for f in FAMILIES}


def metric_key(key: str, variant: str = "paper") -> str:
    """The summary's name of a metric: `cite_acc`, or `cite_acc(upstream=1)` under upstream's
    rules (so a table never mixes the two)."""
    return f"{key}(upstream=1)" if variant == "upstream" else key


def micro_terms(row: dict[str, Any], metric: str) -> tuple[Any, Any]:
    """A task's (hits, denominator) in the micro average of `metric`: the denominator is the
    distinct papers returned (the paper's rules; an empty answer adds nothing) or the row's
    `<metric>_den` (upstream's: every item); (0, 0) where `metric` is not defined."""
    if row.get(metric) is None:
        return 0, 0
    den = 0 if row.get("empty") else row.get(f"{metric}_den", row.get("distinct", 0))
    return row.get(f"{metric}_hits", 0), den


def micro_pooled(metric: str) -> Pooled:
    """Σ hits / Σ denominators over the tasks (`micro_terms`); None when nothing was returned."""
    return ratio_of(partial(micro_terms, metric=metric), note=f"Σ {metric}_hits / Σ returned")


def micro_value(rows: Sequence[dict[str, Any]], metric: str) -> float | None:
    """The micro average of `metric` over `rows` (`micro_pooled`)."""
    return micro_pooled(metric).value(rows)


def _defined(row: dict[str, Any], metric: str) -> bool:
    """The rows a micro average draws on (its interval resamples only these)."""
    return row.get(metric) is not None


def carried_counts(rows: Sequence[dict[str, Any]], metric: str) -> tuple[int, int]:
    """(n, n_null) of a metric over the rows that carry it (`metrics.aggregate`'s): a task of
    another kind, or one not judged, is not its null; the micro twin counts the same tasks."""
    present = [r[metric] for r in rows if metric in r]
    n = sum(1 for v in present if v is not None and not (isinstance(v, float) and math.isnan(v)))
    return n, len(present) - n


def _provenance(spec: Spec, variant: str) -> str:
    if variant == "upstream":
        return f"upstream variant: SciNet Evaluation/{spec.script} @ {UPSTREAM_COMMIT}"
    return spec.paper


def spec_measures(spec: Spec, variant: str) -> tuple[Measure, ...]:
    """The measure of one spec under `variant`, and its micro twin. A review dimension counts
    every counted task (a review not judged is its null); the others count only the tasks that
    carry them (`carried_counts`)."""
    if variant == "upstream" and not spec.script:
        return ()                    # no upstream script: no upstream variant (the review)
    rate = spec.unit == UNIT_RATE
    common = {"direction": "higher", "provenance": _provenance(spec, variant),
              "decimals": 2 if spec.judge and not rate else 3,
              "bounds": (0.0, 1.0) if rate else (0.0, 10.0),
              "judge": spec.judge, "counts": None if spec.family == "review" else
              partial(carried_counts, metric=spec.key)}
    out = [Measure("scinet", metric_key(spec.key, variant), description=spec.description,
                   label=spec.label, unit=spec.unit,
                   aggregate_note="mean over the tasks with a defined value", **common)]
    if spec.micro:
        den = "items" if variant == "upstream" else "distinct papers returned"
        out.append(Measure("scinet", metric_key(f"{spec.key}_micro", variant),
                           description=f"{spec.description}, pooled over the tasks",
                           label=f"{spec.label} (micro)", unit=spec.unit,
                           pooled=micro_pooled(spec.key),
                           defined_on=partial(_defined, metric=spec.key),
                           aggregate_note=f"Σ hits / Σ {den} over the tasks where it is "
                           "defined (micro average)",
                           **{**common, "provenance": "scholarbench: the micro average of "
                              + common["provenance"]}))
    return tuple(out)


def measures_of(family: str | None, variant: str = "paper") -> tuple[Measure, ...]:
    """The measures a summary of `family` (None: every family) reports under `variant`, in the
    summary's order: each metric, then its micro twin."""
    families = FAMILIES if family is None else (family,)
    return tuple(m for f in families for key in FAMILY_METRICS.get(f, ())
                 for m in spec_measures(SPEC[key], variant))


add_measures(m for v in VARIANTS for m in measures_of(None, v))
