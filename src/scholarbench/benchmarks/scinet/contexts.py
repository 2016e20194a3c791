"""Citation contexts: which paper mentions which in what words, and in which paragraph.

Two kinds of evidence, both keyed by graph ids:
- `Context(citing, cited, text)`: the sentence around one citation marker, the input of the
  sentiment classifier (Cite-Sentiment);
- `Paragraph(source, position, cited)`: the graph papers one paragraph cites (CoMention-Paragraph).

From unArXive (`arXiv_src_*.jsonl[.gz]`): every `{{cite:<key>}}` marker whose bibliography entry
carries an arXiv id (`ids.arxiv_id` or `contained_arXiv_ids`) that is a paper of the graph. The
citing paper is the unArXive paper (`arxiv:<paper_id>`), which need not be in the graph.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.sources.keys import id_key
from scholarbench.errors import DataError

_MARKER = re.compile(r"\{\{cite:([^}]+)\}\}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[{])")


@dataclass(frozen=True)
class Context:
    citing: str
    cited: str
    text: str               # the sentence(s) holding the marker
    paragraph: str = ""     # the whole paragraph (SciNet's window; "" when not known)


@dataclass(frozen=True)
class Paragraph:
    source: str             # the paper the paragraph belongs to
    position: int           # its index in that paper's body
    cited: tuple[str, ...]  # graph ids it cites, in order of first mention, distinct


@dataclass(eq=False)
class ContextStore:
    contexts: list[Context] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_cited: dict[str, list[Context]] = defaultdict(list)
        for c in self.contexts:
            self._by_cited[c.cited].append(c)
        self._comention: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._in_paragraph: set[str] = set()
        for p in self.paragraphs:
            for a in p.cited:
                self._in_paragraph.add(a)
                for b in p.cited:
                    if a != b:
                        self._comention[a][b] += 1

    def contexts_of(self, cited: str) -> list[Context]:
        """The citation contexts that mention `cited`, in input order."""
        return list(self._by_cited.get(cited, ()))

    def has_contexts(self, cited: str) -> bool:
        return cited in self._by_cited

    def has_paragraphs(self, paper: str) -> bool:
        return paper in self._in_paragraph

    def comentioned(self, paper: str) -> dict[str, int]:
        """Papers mentioned in the same paragraph as `paper` -> number of such paragraphs."""
        return dict(self._comention.get(paper, {}))


def marker_sentence(text: str, key: str) -> str:
    """The sentence(s) of `text` that hold the marker `{{cite:key}}`, markers of other
    citations kept (the classifier sees what a reader sees)."""
    token = "{{cite:" + key + "}}"
    parts = [s for s in _SENTENCE_END.split(text) if token in s]
    return " ".join(parts) if parts else text


def _bib_keys(entry: object) -> list[str]:
    if not isinstance(entry, dict):
        return []
    keys = []
    ids = entry.get("ids") if isinstance(entry.get("ids"), dict) else {}
    keys.append(id_key("arxiv", ids.get("arxiv_id")))
    for item in entry.get("contained_arXiv_ids") or []:
        if isinstance(item, dict):
            keys.append(id_key("arxiv", item.get("id")))
    return [k for k in dict.fromkeys(keys) if k]


def read_unarxive_contexts(folder: str | Path, known: Callable[[str], bool]) -> ContextStore:
    """Contexts and paragraphs of every unArXive file in `folder`, restricted to cited papers
    for which `known(id)` is true (the graph's papers)."""
    folder = Path(folder)
    files = sorted(p for p in folder.glob("*.jsonl*") if p.name.endswith((".jsonl", ".jsonl.gz")))
    if not files:
        raise DataError("no unArXive arXiv_src_*.jsonl[.gz] file", file=str(folder))
    contexts: list[Context] = []
    paragraphs: list[Paragraph] = []
    for path in files:
        for line, obj in iter_jsonl(path):
            raw = obj.get("paper_id")
            source = id_key("arxiv", raw) if isinstance(raw, str) else None
            if source is None:
                raise DataError(f"not an arXiv id: {raw!r}", file=str(path), line=line,
                                field="paper_id")
            bib = obj.get("bib_entries") or {}
            body = obj.get("body_text") or []
            if not isinstance(bib, dict) or not isinstance(body, list):
                raise DataError("need an object / a list", file=str(path), line=line,
                                field="bib_entries" if not isinstance(bib, dict) else "body_text")
            resolved = {k: [g for g in _bib_keys(e) if known(g)] for k, e in bib.items()}
            for pos, para in enumerate(body):
                text = para.get("text") if isinstance(para, dict) else None
                if not isinstance(text, str):
                    continue
                cited: list[str] = []
                for key in dict.fromkeys(_MARKER.findall(text)):
                    for gid in resolved.get(key, ()):
                        if gid == source:
                            continue
                        contexts.append(Context(source, gid, marker_sentence(text, key),
                                                text))
                        cited.append(gid)
                cited = list(dict.fromkeys(cited))
                if cited:
                    paragraphs.append(Paragraph(source, pos, tuple(cited)))
    return ContextStore(contexts, paragraphs)


def store_from_records(contexts: Iterable[dict], paragraphs: Iterable[dict]) -> ContextStore:
    """A store from plain dicts (`{"citing","cited","text"[,"paragraph"]}`,
    `{"source","position","cited"}`)."""
    return ContextStore([Context(c["citing"], c["cited"], c["text"], c.get("paragraph", ""))
                         for c in contexts],
                        [Paragraph(p["source"], int(p["position"]), tuple(p["cited"]))
                         for p in paragraphs])
