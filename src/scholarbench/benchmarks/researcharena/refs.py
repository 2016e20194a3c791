"""Agents' references (REFs) → the docids ResearchArena scores, offline, counted per sample.

With a corpus (every run built from the corpus, TaxoBench or a survey.jsonl read with one) a
REF — a corpus paper_id, a DOI, an arXiv id, another identifier or a title — resolves through
`corpus.resolve.resolve_ref` (the corpus's identifier table; an identifier written inside a
longer string counts). A title two corpus papers share resolves when exactly one of them is
searchable for the task (non-survey, before the cut-off, not the survey itself: the leakage
rule, never the gold); otherwise it is unresolved. A REF of digits only is first read as an S2
corpus id (`CorpusId:N`), the docids of upstream's TREC run files.

Without a corpus (an upstream survey.jsonl scored against its own ids) the docids are upstream's
S2 corpus ids: a REF is taken as written, `CorpusId:N` / `s2corpus:N` read as `N`; a REF with
spaces (a title) cannot be looked up and is unresolved.

In a ranking every REF keeps its rank. A REF that resolves becomes its paper_id; one that does
not stays in the list as a retrieved paper that is not relevant: as written when it looks like
an id (no spaces; it can match no judged paper), else as `unresolved:<rank>` — so an unknown
title at rank 1 still pushes the papers after it down, as any wrong answer would.

Counts go into the sample's `info`: `refs` (REFs read), `refs_unresolved`, and up to five
`unresolved_examples`; the summary sums them (`references_answered`).
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from scholarbench.benchmarks.researcharena.records import ArenaTask
from scholarbench.benchmarks.researcharena.tasks import SearchSpace
from scholarbench.corpus.resolve import resolve_ref
from scholarbench.data.identifiers import parse_id

EXAMPLES = 5
PLACEHOLDER = "unresolved:{rank}"


class RefResolver:
    """Resolves REFs against one run's corpus (or, without one, upstream ids)."""

    def __init__(self, corpus: Any = None) -> None:
        self.corpus = corpus
        self._space: Any = None

    def _keep(self, task: ArenaTask):
        def keep(pid: str) -> bool:
            if self._space is None:
                self._space = SearchSpace.of(self.corpus)
            return pid != task.survey_id and self._space.searchable(pid, task.cutoff)
        return keep

    def resolve(self, ref: str, task: ArenaTask) -> str | None:
        text = " ".join(str(ref).split())
        if not text:
            return None
        if self.corpus is None:
            if " " in text:
                return None
            parsed = parse_id(text)
            return parsed.value if parsed.kind == "s2corpus" else text
        if text.isdigit():          # upstream's docids are S2 corpus ids (its TREC run files)
            found = self.corpus.resolve(f"CorpusId:{text}")
            if found is not None:
                return found
        return resolve_ref(self.corpus, text, keep=self._keep(task))

    def ranking(self, entries: Sequence[tuple[str, float | None]], task: ArenaTask
                ) -> tuple[list[list[Any]], dict[str, Any]]:
        """[[docid, score], …] in the answer's order (score: the agent's, else n - i) and the
        counts for `info`."""
        n = len(entries)
        out: list[list[Any]] = []
        unresolved: list[str] = []
        for i, (ref, score) in enumerate(entries):
            pid = self.resolve(ref, task)
            if pid is None:
                unresolved.append(str(ref))
                text = " ".join(str(ref).split())
                pid = text if text and " " not in text else PLACEHOLDER.format(rank=i + 1)
            out.append([pid, float(n - i) if score is None else score])
        return out, self.counts(n, unresolved)

    def count(self, refs: Iterable[str], task: ArenaTask) -> dict[str, Any]:
        """Counts only (references of a mind-map answer, which organisation does not score)."""
        refs = list(refs)
        return self.counts(len(refs), [r for r in refs if self.resolve(r, task) is None])

    def counts(self, n: int, unresolved: list[str]) -> dict[str, Any]:
        info: dict[str, Any] = {"refs": n, "refs_unresolved": len(unresolved)}
        if unresolved:
            info["unresolved_examples"] = unresolved[:EXAMPLES]
        if self.corpus is None:
            info["refs_resolution"] = "as written (no corpus)"
        return info


__all__ = ["RefResolver", "PLACEHOLDER"]
