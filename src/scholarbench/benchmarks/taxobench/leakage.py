"""TaxoBench's leakage audit (docs/leakage.md): the answer's papers against the instance's
survey.

A TaxoBench instance gives the survey's title (`survey`) and nothing else of it: no id, no
abstract, no date. So the audit here is the `survey` check alone, by title (an id the corpus
knows was already replaced by its title when the answer was recorded: `benchmark._titles_of_ids`);
the cut-off check is not available for TaxoBench instances, and the answer holds no report text.
The papers audited are the retrieved list and every paper of the taxonomy, each distinct
reference once. The topic is not matched: it may be a short phrase every paper title holds.
"""
from __future__ import annotations

from typing import Any

from scholarbench.leakage.audit import AnswerKey, Findings, findings


def answer_key(task: Any) -> AnswerKey:
    """The survey an instance was made from, as far as the instance says (its title)."""
    survey = (getattr(task, "survey", "") or "").strip()
    return AnswerKey(titles=(survey,) if survey else ())


def leak_findings(task: Any, pred: Any) -> Findings:
    """The sample's audit (no findings without a usable prediction); each counted paper's
    `ref` is its title as the answer wrote it."""
    if pred is None or pred.error or pred.taxonomy is None:
        return Findings({})
    papers = list(pred.retrieved or []) + pred.taxonomy.all_papers()
    return findings(answer_key(task), papers)


def suspected_leak(task: Any, pred: Any) -> dict[str, int]:
    """The sample's `suspected_leak` counts ({} when none, or no usable prediction)."""
    return leak_findings(task, pred).counts


__all__ = ["answer_key", "leak_findings", "suspected_leak"]
