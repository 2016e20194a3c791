"""An answer's ``cited`` references: resolved offline, and shown to the judge with the report.

The checklist judge reads text, so what an agent cites must be in the text it judges. Rules:

- each REF (a corpus id, DOI, arXiv id or title) is resolved with the run's corpus
  (``Corpus.resolve``: an identifier, else a title exactly one corpus paper has); the line's
  ``cited`` keeps the corpus id of a resolved REF and the REF as given otherwise, and ``info``
  counts them (``n_cited_refs``, ``n_cited_unresolved``; without a corpus none resolves);
- when the answer cites something and its report has no references section (a line that is a
  Markdown heading, or a bold line, starting with "References" or "Bibliography"), one is
  appended — ``## References`` with ``[i] title`` per REF, the corpus title when it resolved —
  and ``info.references_added`` is 1. The stored report is the text the judge reads. The
  built-in writers always write their own section, so nothing is added to theirs.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

_SECTION = re.compile(r"^\s{0,3}(?:#{1,6}\s*|\*\*)?(?:references|bibliography)\b",
                      re.IGNORECASE | re.MULTILINE)


def resolve_ref(corpus: Any, ref: str) -> str | None:
    """A REF's corpus id (None without a corpus or when it does not resolve)."""
    if corpus is None:
        return None
    try:
        return corpus.resolve(ref)
    except Exception:          # an unparseable identifier resolves to nothing
        return None


def _title(corpus: Any, paper_id: str | None, ref: str) -> str:
    if paper_id is not None:
        try:
            title = (corpus.get_rows([paper_id])[0].get("title") or "").strip()
        except Exception:
            title = ""
        if title:
            return " ".join(title.split())
    return " ".join(ref.split())


def with_references(report: str, cited: Sequence[str], corpus: Any
                    ) -> tuple[str, list[str], dict[str, int]]:
    """(the report the judge reads, the cited list as stored, the info counts)."""
    refs = [r for r in (str(c).strip() for c in cited) if r]
    resolved = [resolve_ref(corpus, r) for r in refs]
    stored = [pid or ref for pid, ref in zip(resolved, refs)]
    counts = {"n_cited_refs": len(refs),
              "n_cited_unresolved": sum(pid is None for pid in resolved),
              "references_added": 0}
    if refs and not _SECTION.search(report):
        lines = [f"[{i}] {_title(corpus, pid, ref)}"
                 for i, (pid, ref) in enumerate(zip(resolved, refs), start=1)]
        report = report.rstrip() + "\n\n## References\n\n" + "\n".join(lines) + "\n"
        counts["references_added"] = 1
    return report, list(dict.fromkeys(stored)), counts


__all__ = ["with_references"]
