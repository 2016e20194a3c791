"""ResearchArena's leakage audit for discovery and selection (docs/leakage.md): the ranked
paper_ids against the task's rule.

The rule (paper §5, `agents.base.access_rules`) hides the survey itself, papers not known to
precede its cut-off, and the other surveys. An answer is a list of corpus paper_ids, so the
audit reads each id's corpus row (`leakage.from_corpus`: its title, ids, earliest date, survey
flag) when the scorer holds the corpus; the topic is the survey's title. A REF that did not
resolve is recorded in the ranking as written when it looks like an id (an arXiv id there
still gives a date) and as `unresolved:<rank>` when it has spaces (a title); such titles are
audited from the record's `info.unresolved_examples` (the first five unresolved REFs), so a
subtitled survey title the corpus does not resolve is still seen there. Without a corpus (a
re-score with none) an id is audited as written: the survey is still seen by its paper_id and
a post-cut-off paper only by an arXiv id, and no paper is seen as a survey.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.leakage import AnswerKey, Cited, Findings, findings, from_corpus


def answer_key(task: Any) -> AnswerKey:
    """The survey a task was made from: its title (the topic), its corpus id, the cut-off."""
    return AnswerKey(titles=(task.topic,) if task.topic else (),
                     ids=(task.survey_id,) if task.survey_id else (), cutoff=task.cutoff)


def leak_findings(task: Any, ids: Sequence[str], corpus: Any = None,
                  unresolved: Sequence[str] = ()) -> Findings:
    """The sample's audit over the ranked `ids` and the REFs recorded as unresolved
    (`unresolved`: the record's `info.unresolved_examples`). A counted paper's `ref` is its
    ranking entry (a paper_id, an id as written, or `unresolved:<rank>` with the REF's text
    among its `titles`), its `index` its position in `ids`."""
    papers = from_corpus(corpus, [(pid, pid) for pid in ids], excluded_surveys=True)
    # the unresolved REFs with spaces are, in order, the ranking's `unresolved:<rank>` entries
    texts = [str(r) for r in unresolved if " " in " ".join(str(r).split()) or not str(r).strip()]
    slots = [i for i, pid in enumerate(ids) if str(pid).startswith("unresolved:")]
    for slot, text in zip(slots, texts):
        papers[slot] = Cited(str(ids[slot]), titles=(text,), ids=(text,))
    rest = [str(r) for r in unresolved if str(r) not in texts[:len(slots)]]
    return findings(answer_key(task), [*papers, *rest])


def suspected_leak(task: Any, ids: Sequence[str], corpus: Any = None,
                   unresolved: Sequence[str] = ()) -> dict[str, int]:
    """The sample's `suspected_leak` counts ({} when none)."""
    return leak_findings(task, ids, corpus, unresolved).counts


__all__ = ["answer_key", "leak_findings", "suspected_leak"]
