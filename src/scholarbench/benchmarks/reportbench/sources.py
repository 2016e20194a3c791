"""The text behind a citation, the passages worth showing a judge, and evidence for fact checks.

Source lookup (`SourceLookup.lookup(ref)`), for one `Reference` of a report:
1. A reference resolved to a corpus paper (`ref.paper_id`) reads the corpus: its full-text
   paragraphs (`Corpus.paragraphs`, unarXive where the corpus has it) and its abstract. A corpus
   paper with neither (title-only sources such as the ReportBench GT) is unreachable:
   ``no text in corpus``.
2. Otherwise, only when the user turned the network on (`allow_network=True`), the first
   http(s) URL of the reference is fetched with `fetch.fetch_url` (public addresses only, size
   and time capped) and its HTML reduced to text (script/style dropped, block elements to line
   breaks). A refused or failed fetch is unreachable (``fetch refused`` / ``fetch failed``),
   and so is an empty page.
3. Everything else is unreachable with its reason: ``no corpus``, ``not in corpus`` (the
   reference names a paper the corpus lacks, or only a title), ``network off`` (a URL that
   could be fetched if the user allowed it).
Results are memoised per reference key for the lookup's life (one report, or one run).

Passages: the abstract is one passage; each full-text paragraph is one passage, and a
paragraph (or web page block) longer than `max_passage_chars` (1,500) is cut into windows at
sentence ends. `select_passages(statement, passages, k)` ranks them by Okapi BM25 (k1 = 1.5,
b = 0.75, Lucene idf, lower-cased ``\\w\\w+`` tokens without bm25s's English stopwords — the
corpus index's tokenisation) against the statement and keeps the top k (ties: document order);
passages that share no term with the statement are left out, and the total is cut at
`max_chars`. When no passage shares a term with the statement the first k passages are kept
(abstract first), so the judge still sees what the source says.

Evidence for non-cited statements (`EvidenceTool`): ``search(statement, k) -> [Evidence]``.
`CorpusEvidence` runs the corpus's BM25 search (title + abstract) and returns each hit's title
and abstract; `NoEvidence` returns nothing (the judges answer from what they know). A web
search tool is a third implementation the user plugs in (nothing here calls the network).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from typing import Any, Callable, Protocol, Sequence

from scholarbench.errors import ScholarbenchError
from scholarbench.references.report_refs import Reference
from scholarbench.benchmarks.reportbench.fetch import FetchRefused, fetch_url

K1, B = 1.5, 0.75
MAX_PASSAGE_CHARS = 1500


@dataclass(frozen=True)
class Passage:
    text: str
    where: str                       # "abstract", "§Section ¶3", "web page"


@dataclass
class SourceText:
    passages: list[Passage]
    origin: str                      # "corpus" | "web"
    paper_id: str | None = None
    title: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class Unreachable:
    reason: str                      # the kind, for counting
    detail: str = ""


# ---- tokens and BM25 ---------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN
    return frozenset(STOPWORDS_EN)


def tokens(text: str) -> list[str]:
    stop = _stopwords()
    return [t for t in re.findall(r"\w\w+", text.lower()) if t not in stop]


def bm25_scores(query: str, docs: Sequence[str]) -> list[float]:
    """Okapi BM25 of `query` against each of `docs` (the docs are the collection)."""
    toks = [tokens(d) for d in docs]
    n = len(toks)
    if not n:
        return []
    avgdl = sum(len(t) for t in toks) / n or 1.0
    df: Counter[str] = Counter()
    for t in toks:
        df.update(set(t))
    q = set(tokens(query))
    scores = []
    for t in toks:
        tf = Counter(t)
        score = 0.0
        for term in q:
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf[term] * (K1 + 1) / (tf[term] + K1 * (1 - B + B * len(t) / avgdl))
        scores.append(score)
    return scores


def windows(text: str, max_chars: int = MAX_PASSAGE_CHARS) -> list[str]:
    """`text` cut into pieces of at most `max_chars` at sentence ends (hard cuts as a last
    resort)."""
    text = text.strip()
    if len(text) <= max_chars:
        return [text] if text else []
    out, current = [], ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        while len(sentence) > max_chars:
            if current:
                out.append(current)
                current = ""
            out.append(sentence[:max_chars])
            sentence = sentence[max_chars:]
        candidate = f"{current} {sentence}".strip()
        if len(candidate) <= max_chars:
            current = candidate
        else:
            out.append(current)
            current = sentence
    if current:
        out.append(current)
    return [p for p in out if p.strip()]


def select_passages(statement: str, passages: Sequence[Passage], k: int = 3,
                    max_chars: int = 6000) -> list[Passage]:
    """The top-`k` passages for `statement` by BM25 (see the module docstring), at most
    `max_chars` in all (the last one cut)."""
    if not passages or k <= 0:
        return []
    scores = bm25_scores(statement, [p.text for p in passages])
    ranked = sorted(range(len(passages)), key=lambda i: (-scores[i], i))
    order = [i for i in ranked if scores[i] > 0] or list(range(len(passages)))
    chosen, size = [], 0
    for i in order[:k]:
        p = passages[i]
        room = max_chars - size
        if room <= 0:
            break
        if len(p.text) > room:
            p = Passage(p.text[:room].rstrip() + " …", p.where)
        chosen.append(p)
        size += len(p.text)
    return chosen


def render_passages(passages: Sequence[Passage]) -> str:
    return "\n\n".join(f"[{p.where}] {p.text}" for p in passages)


# ---- HTML to text ------------------------------------------------------------------------------

class _Text(HTMLParser):
    BLOCK = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section",
             "article", "blockquote", "pre", "table", "ul", "ol", "dd", "dt"}
    SKIP = {"script", "style", "noscript", "template", "svg", "head"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "title":
            self._in_title = True
        if tag in self.SKIP:
            self._skip += 1
        if tag in self.BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in self.SKIP and self._skip:
            self._skip -= 1
        if tag in self.BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        if not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """(page title, text with blocks separated by blank lines)."""
    parser = _Text()
    try:
        parser.feed(html)
        parser.close()
    except Exception:                  # HTMLParser is lenient; this is a last resort
        return "", re.sub(r"<[^>]+>", " ", html)
    text = "".join(parser.parts)
    blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", text)]
    return " ".join("".join(parser.title).split()), "\n\n".join(b for b in blocks if b)


def page_text(body: str, content_type: str) -> tuple[str, str]:
    if "html" in content_type.lower() or re.search(r"<\s*(html|body|p|div)\b", body[:2000],
                                                   re.IGNORECASE):
        return html_to_text(body)
    return "", body


# ---- source lookup -----------------------------------------------------------------------------

@dataclass
class SourceLookup:
    """Source texts for one report's (or one run's) references; see the module docstring."""
    corpus: Any = None
    allow_network: bool = False
    fetch: Callable[..., Any] | None = None          # default: fetch.fetch_url
    max_bytes: int = 5_000_000
    timeout: float = 20.0
    max_passage_chars: int = MAX_PASSAGE_CHARS
    _memo: dict[str, SourceText | Unreachable] = field(default_factory=dict, repr=False)

    def key(self, ref: Reference) -> str:
        return ref.paper_id or (ref.urls[0] if ref.urls else "") or "|".join(ref.ids) or \
            "|".join(ref.titles()) or repr(id(ref))

    def lookup(self, ref: Reference) -> SourceText | Unreachable:
        key = self.key(ref)
        if key not in self._memo:
            self._memo[key] = self._lookup(ref)
        return self._memo[key]

    def _lookup(self, ref: Reference) -> SourceText | Unreachable:
        if ref.paper_id is not None and self.corpus is not None:
            return self._from_corpus(ref.paper_id)
        fetchable = [u for u in ref.urls if u.lower().startswith(("http://", "https://"))]
        if fetchable and self.allow_network:
            return self._from_web(fetchable[0])
        if fetchable:
            return Unreachable("network off", fetchable[0])
        if self.corpus is None:
            return Unreachable("no corpus")
        return Unreachable("not in corpus", (ref.ids or ref.titles() or [""])[0])

    def _from_corpus(self, pid: str) -> SourceText | Unreachable:
        papers = self.corpus.get_by_ids([pid])
        paper = papers[0] if papers else None
        passages: list[Passage] = []
        if paper is not None and (paper.abstract or "").strip():
            passages.append(Passage(paper.abstract.strip(), "abstract"))
        for para in self.corpus.paragraphs(pid):
            label = f"§{para.section} ¶{para.position}" if para.section else f"¶{para.position}"
            passages += [Passage(w, label) for w in windows(para.text, self.max_passage_chars)]
        if not passages:
            return Unreachable("no text in corpus", pid)
        return SourceText(passages, "corpus", paper_id=pid,
                          title=paper.title if paper is not None else None)

    def _from_web(self, url: str) -> SourceText | Unreachable:
        fetch = self.fetch or fetch_url
        try:
            result = fetch(url, allow_network=True, max_bytes=self.max_bytes,
                           timeout=self.timeout)
        except FetchRefused as exc:
            return Unreachable("fetch refused", f"{url}: {exc}")
        except ScholarbenchError as exc:
            return Unreachable("fetch failed", f"{url}: {exc}")
        if result.status >= 400:
            return Unreachable("fetch failed", f"{url}: HTTP {result.status}")
        title, text = page_text(result.text(), result.content_type)
        passages = [Passage(w, "web page") for block in re.split(r"\n\s*\n", text)
                    for w in windows(block, self.max_passage_chars)]
        if not passages:
            return Unreachable("empty page", url)
        return SourceText(passages, "web", title=title or None, url=result.url)


# ---- evidence for non-cited statements ----------------------------------------------------------

@dataclass(frozen=True)
class Evidence:
    title: str
    text: str
    source: str                      # corpus paper_id or URL


class EvidenceTool(Protocol):
    name: str

    def search(self, statement: str, k: int) -> list[Evidence]: ...


@dataclass
class CorpusEvidence:
    corpus: Any
    name: str = "corpus-bm25"

    def search(self, statement: str, k: int) -> list[Evidence]:
        hits = self.corpus.search_bm25(statement, k)
        return [Evidence(paper.title, (paper.abstract or "").strip(), paper.paper_id or "")
                for paper, _ in hits]


@dataclass
class NoEvidence:
    name: str = "none"

    def search(self, statement: str, k: int) -> list[Evidence]:
        return []


def render_evidence(items: Sequence[Evidence], max_chars: int = 6000) -> str:
    if not items:
        return "(no passages were retrieved)"
    out, size = [], 0
    for i, item in enumerate(items, start=1):
        piece = f"[{i}] {item.title}" + (f"\n{item.text}" if item.text else "")
        if size + len(piece) > max_chars:
            piece = piece[:max(0, max_chars - size)].rstrip() + " …"
        out.append(piece)
        size += len(piece)
        if size >= max_chars:
            break
    return "\n\n".join(out)
