"""ReportBench's leakage audit (docs/leakage.md): a report's references and text against the
task's survey.

The task gives the survey's arXiv id, DOI, title and abstract, and the prompt's cut-off. Every
reference the scorer found (resolved or not, each once) is audited with what the scorer knows
of it (its ids, stated, extracted and corpus titles), plus, with a corpus, the resolved paper's
facts (`leakage.from_corpus`: its corpus id and ids, its earliest date); the survey's own corpus
paper_id counts as one of its ids. The report's text adds `abstract_words`; the title is not
looked for in the text, since the prompt names it ("Do not refer to the survey titled …").
No rule excludes a class of papers here, so `excluded` is never counted.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from scholarbench.benchmarks.reportbench.refscore import HiddenSurvey
from scholarbench.leakage import AnswerKey, Cited, Findings, findings, from_corpus


def answer_key(task: Any, corpus: Any = None) -> AnswerKey:
    """The survey a task was made from: its title, ids (with its corpus paper_id when the
    corpus holds it), abstract and the prompt's cut-off."""
    hidden = HiddenSurvey.of(task)
    own = hidden.corpus_paper(corpus)
    ids = tuple(k for k in (*sorted(hidden.keys()), own) if k)
    return AnswerKey(titles=(task.title,) if task.title else (), ids=ids,
                     abstract=task.abstract or None, cutoff=task.cutoff)


def leak_findings(task: Any, references: Any, report: str | None,
                  corpus: Any = None) -> Findings:
    """The sample's audit: counts, the references counted (`ref` is `#i`, the reference's
    position among the scorer's; `label` its bibliography label, first title or first id)
    and the abstract's verbatim spans."""
    references = list(references)
    cited = from_corpus(corpus, [(Cited(f"#{i}", titles=tuple(r.titles()), ids=tuple(r.ids)),
                                  r.paper_id) for i, r in enumerate(references)])
    found = findings(answer_key(task, corpus), cited, report or None, quote_title=False)
    items = tuple(dict(item, label=_label(references[item["index"]]))
                  for item in found.items)
    return replace(found, items=items)


def _label(ref: Any) -> str:
    name = next(iter(ref.titles()), None) or next(iter(ref.ids), None) or ""
    return (f"[{ref.label}] " if getattr(ref, "label", None) else "") + name


def suspected_leak(task: Any, references: Any, report: str | None,
                   corpus: Any = None) -> dict[str, int]:
    """The sample's `suspected_leak` counts ({} when none)."""
    return leak_findings(task, references, report, corpus).counts


__all__ = ["answer_key", "leak_findings", "suspected_leak"]
