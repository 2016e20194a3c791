"""DeepSynth-Eval's leakage audit (docs/leakage.md): a report's cited works and text against
the survey its task was made from.

A task names its survey by arXiv id only (`survey_id`; the prompt gives a topic, never the
title). The writers' rule (the tools' rules of `benchmark.tool_source`) hides the survey and
every paper not known to precede the day it may first have appeared (`oracle.survey_cutoff`:
its corpus date, else the first day of its arXiv month). So the answer key is the survey's
arXiv id and, when the scoring corpus holds the survey, its corpus id, title and abstract, and
that cut-off.

The audited works are every reference the report's text gives (parsed and resolved as
ReportBench does: `references.extract.extract_references`, each once) and the answer's
`cited` REFs not already among them (a corpus id or the REF as given). The text adds
`title_quoted` (the prompt does not give the title, so quoting it is a finding) and
`abstract_words`, both only when the corpus gives the title / abstract. No rule excludes a
class of papers, so `excluded` is never counted. Without a corpus the survey is seen by its
arXiv id (or its arXiv DOI) and a later paper by an arXiv id only.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.citations import resolve_ref
from scholarbench.benchmarks.deepsynth.oracle import survey_cutoff, survey_paper_id
from scholarbench.leakage import AnswerKey, Cited, Findings, findings, from_corpus
from scholarbench.leakage.audit import id_keys
from scholarbench.references.extract import extract_references
from scholarbench.text.normalize import normalize_title


def answer_key(task: Any, corpus: Any = None) -> AnswerKey:
    """The survey of a task: its arXiv id, and with the corpus its corpus id, title and
    abstract; the cut-off of the writers' rule."""
    pid = survey_paper_id(task, corpus)
    row = corpus.get_rows([pid])[0] if pid is not None else {}
    ids = tuple(i for i in (task.survey_id, pid, *(row.get("ids") or ())) if i)
    title = (row.get("title") or "").strip()
    return AnswerKey(titles=(title,) if title else (), ids=ids,
                     abstract=(row.get("abstract") or "").strip() or None,
                     cutoff=survey_cutoff(task, corpus))


def leak_findings(task: Any, record: dict[str, Any] | None, corpus: Any = None) -> Findings:
    """The sample's audit ({} counts without a report or cited works). A counted reference's
    `ref` is `#i` (its position among the report's references) or the `cited` REF, its
    `label` the report's bibliography label and first title or id."""
    record = record or {}
    report = record.get("report") if isinstance(record.get("report"), str) else None
    refs = extract_references(report, corpus).references if report and report.strip() else []
    given: list[tuple[Cited | str, str | None]] = [
        (Cited(f"#{i}", titles=tuple(r.titles()), ids=tuple(r.ids)), r.paper_id)
        for i, r in enumerate(refs)]
    labels = [_label(r) for r in refs]
    for ref in _extra_cited(record.get("cited"), refs):
        given.append((Cited(ref), resolve_ref(corpus, ref)))
        labels.append(ref)
    found = findings(answer_key(task, corpus), from_corpus(corpus, given), report)
    return replace(found, items=tuple(dict(i, label=labels[i["index"]]) for i in found.items))


def _extra_cited(cited: Any, refs: Sequence[Any]) -> list[str]:
    """The answer's `cited` REFs the text's references do not already name (by corpus id,
    id or normalised title)."""
    if not isinstance(cited, list):
        return []
    seen = {r.paper_id for r in refs if r.paper_id}
    seen |= {i for r in refs for i in r.ids}
    seen |= {normalize_title(t) for r in refs for t in r.titles()}
    return [str(c) for c in cited if isinstance(c, str) and c.strip()
            and not (id_keys([c]) | {normalize_title(c)}) & seen]


def _label(ref: Any) -> str:
    name = next(iter(ref.titles()), None) or next(iter(ref.ids), None) or ""
    return (f"[{ref.label}] " if getattr(ref, "label", None) else "") + name


def suspected_leak(task: Any, record: dict[str, Any] | None,
                   corpus: Any = None) -> dict[str, int]:
    """The sample's `suspected_leak` counts ({} when none)."""
    return leak_findings(task, record, corpus).counts


__all__ = ["answer_key", "leak_findings", "suspected_leak"]
