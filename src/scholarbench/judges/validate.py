"""`judge validate`: SciNet's citation-sentiment judge against human-labelled citation contexts.

Per data set: a seeded sample of the mapped items (`labelled.py`) is classified by the judge;
accuracy and Cohen's κ (sklearn) are computed over the items the judge scored, beside the
papers' own agreement figures. Unscored items (reply unusable after the repair, or the call
failed) are counted and left out of accuracy and κ.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Sequence

from scholarbench.benchmarks.scinet.sentiment import LABELS
from scholarbench.benchmarks.scinet.sentiment_judge import SentimentJudge
from scholarbench.judges.labelled import Labelled
from scholarbench.judges.labelled import MAPPINGS

# The papers' own figures, quoted (docs/judges.md).
SCINET_PUBLISHED = {
    "figure": "98% agreement (GPT-5 vs human experts), 200 citation contexts",
    "agreement": 0.98, "n": 200,
    "where": "SciNet (arXiv:2601.03260) §4 'Human Validation of Sentiment Annotation'; "
             "appendix Table 6, row 4",
}
TAXOBENCH_PUBLISHED = {
    "figure": "Cohen's kappa GPT-4o vs human: Cov 0.9295, Org 0.8905, Log 0.8807, "
              "Topo 0.8627, Avg 0.8909 (190 trees, 5-point scale)",
    "kappa": {"coverage": 0.9295, "organization": 0.8905, "logic": 0.8807,
              "topology": 0.8627, "avg": 0.8909},
    "where": "TaxoBench, appendix B 'LLM-as-Judge Validation', Table 6",
}
NO_HUMAN_LABELS = {
    "deepsynth": "no human labels of its checklist judge's verdicts are released or here",
    "reportbench": "no human labels of its statement judges' verdicts are released or here",
}


def sample(items: Sequence[Any], limit: int | None, seed: int) -> list[Any]:
    """Every item, or `limit` of them drawn with `random.Random(seed)` (in file order)."""
    if limit is None or limit >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), limit))
    return [items[i] for i in keep]


def agreement(gold: Sequence[str], pred: Sequence[str]) -> dict[str, Any]:
    """Accuracy, Cohen's κ (null when undefined: < 2 items or one class on both sides) and the
    confusion matrix rows = human, columns = judge, over `LABELS`."""
    from sklearn.metrics import cohen_kappa_score
    n = len(gold)
    acc = sum(g == p for g, p in zip(gold, pred)) / n if n else None
    kappa = None
    if n >= 2 and len(set(gold) | set(pred)) >= 2:
        value = float(cohen_kappa_score(gold, pred, labels=list(LABELS)))
        kappa = value if value == value else None          # NaN → null
    counts = Counter(zip(gold, pred))
    confusion = {g: {p: counts[(g, p)] for p in LABELS} for g in LABELS}
    return {"accuracy": acc, "kappa": kappa, "confusion": confusion}


def validate_dataset(judge: SentimentJudge, data: Labelled, *, limit: int | None = None,
                     seed: int = 0, progress: Any = None) -> dict[str, Any]:
    chosen = sample(data.items, limit, seed)
    gold, pred, unscored, rows = [], [], Counter(), []
    for item in chosen:
        j = judge.classify(item.text)
        rows.append({"id": item.item_id, "human": item.human, "gold": item.gold,
                     "judge": j.label, "unscored": j.unscored, "attempts": j.attempts})
        if j.label is None:
            unscored["call_failed" if (j.unscored or "").startswith("call failed")
                     else "bad_label"] += 1
        else:
            gold.append(item.gold)
            pred.append(j.label)
        if progress is not None:
            progress()
    out = {"dataset": data.dataset, "source": data.source,
           "mapping": dict(_mapping(data)),
           "n_available": len(data.items), "n_sampled": len(chosen), "n_used": len(gold),
           "n_left_out": sum(data.left_out.values()), "left_out": dict(data.left_out),
           "n_unscored": sum(unscored.values()), "unscored": dict(unscored),
           "gold_counts": dict(Counter(gold))}
    out.update(agreement(gold, pred))
    out["items"] = rows
    return out


def _mapping(data: Labelled) -> dict[str, str]:
    return MAPPINGS[data.dataset]


def _num(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f}%" if pct else f"{value:.3f}"


def format_validation(result: dict[str, Any]) -> str:
    lines = [f"judge validate: SciNet citation sentiment, judge {result['judge']['model_id']} "
             f"(prompt {result['judge']['prompt']})",
             f"{'data set':<11} {'accuracy':>9} {'kappa':>7} {'n used':>7} {'left out':>9} "
             f"{'unscored':>9}   published (SciNet)"]
    for ds in result["datasets"]:
        lines.append(f"{ds['dataset']:<11} {_num(ds['accuracy'], True):>9} "
                     f"{_num(ds['kappa']):>7} {ds['n_used']:>7} {ds['n_left_out']:>9} "
                     f"{ds['n_unscored']:>9}   {SCINET_PUBLISHED['figure']}")
    for ds in result["datasets"]:
        if ds["n_used"]:
            lines.append(f"  {ds['dataset']} confusion (rows human, columns judge "
                         f"{'/'.join(LABELS)}): "
                         + "; ".join(f"{g} {' '.join(str(ds['confusion'][g][p]) for p in LABELS)}"
                                     for g in LABELS))
        if ds["left_out"]:
            lines.append(f"  {ds['dataset']} left out (no honest sentiment mapping): "
                         + ", ".join(f"{k} {v}" for k, v in sorted(ds["left_out"].items())))
        if ds["unscored"]:
            lines.append(f"  {ds['dataset']} unscored: "
                         + ", ".join(f"{k} {v}" for k, v in sorted(ds["unscored"].items())))
    lines.append(f"reference: {TAXOBENCH_PUBLISHED['figure']} — {TAXOBENCH_PUBLISHED['where']}")
    lines.append(f"published SciNet figure: {SCINET_PUBLISHED['where']}")
    for bench, why in NO_HUMAN_LABELS.items():
        lines.append(f"no human labels: {bench} — {why}")
    lines.append("caveat: the human labels are citation intent mapped to sentiment "
                 "(docs/judges.md), not sentiment; no item here is human-labelled Negative")
    return "\n".join(lines)
