"""Does an answer hold what only the answer key could give? One sample, from the answer alone.

Many agents do not use the leakage-ruled tools: a product with live web search can find the
very survey a task was made from and copy its bibliography. The checks call no tool, model or
network: the scorer hands over what the task's own rules say (`AnswerKey`: the survey's titles
and ids, its abstract, the cut-off) and the answer's papers as it resolved them (`Cited`;
`from_corpus` adds the facts of resolved references for a scorer that holds a corpus).
Each distinct reference of the answer is counted once, under the first of these that applies:

- `survey`: the source survey itself — one of its ids (DOI, arXiv id, corpus id, compared in
  canonical form by `data.identifiers.parse_id`), or its title (equal after the project's one
  normaliser, or TaxoBench A.5's title alignment rule: one contains the other and their
  similarity ratio is at least `text.align.MIN_RATIO`, so a truncated or subtitled title
  matches — the shorter of the two of at least `MIN_TITLE_WORDS` words, so a short topic-like
  title never matches a longer paper title holding it);
- `after_cutoff`: surely not before the task's cut-off — its earliest possible date (`Cited.
  earliest`, else the first day of its arXiv id's month) is on or after the cut-off day;
- `excluded`: the task's rule excludes it (`Cited.excluded`, e.g. ResearchArena's surveys).

A report's text (`audit(..., text=...)`) adds two counts:

- `title_quoted`: how often the normalised text holds the survey's normalised title (titles of
  at least `MIN_TITLE_WORDS` words; only where the task does not give the title itself);
- `abstract_words`: how many words of the text lie inside a run of `SPAN` (12) or more
  consecutive words that is also in the survey's abstract (normalised words), verbatim or
  with a few words changed (at least `MIN_DENSITY` of the run's words equal, in order; one
  word in six swapped is still a copy).

Titles, DOIs and ids are compared after the project's one normaliser (`text.fold`: NFKC,
format characters such as zero-width spaces and soft hyphens removed, lookalike letters
folded; a percent-encoded DOI decoded), the one reference matching uses too.

`audit` returns the non-zero counts, `{}` when nothing was found: the score row's
`suspected_leak`. `findings` adds which references were counted (`leaked_items`: rule, index,
reference) and the abstract's verbatim spans (`leaked_spans`), which the HTML drill-downs mark.
A flag changes no score.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Sequence

from scholarbench.data.identifiers import parse_id
from scholarbench.data.sources.dates import earliest_date
from scholarbench.text.align import MIN_RATIO
from scholarbench.text.normalize import normalize_title

SPAN = 12                # words of a verbatim span shared with the abstract
MAX_GAP = 2              # a fuzzy copy: equal blocks chained across gaps of at most 2 words
MIN_DENSITY = 0.75       # … of which at least this share is equal
MIN_TITLE_WORDS = 5      # shorter titles: matched only when equal, never looked for in a text
KEYS = ("survey", "after_cutoff", "excluded", "title_quoted", "abstract_words")


@dataclass(frozen=True)
class AnswerKey:
    """What the task was made from and what its rules hide."""
    titles: tuple[str, ...] = ()      # the survey's title (and its other spellings)
    ids: tuple[str, ...] = ()         # any identifier of the survey: DOI, arXiv id, corpus id
    abstract: str | None = None
    cutoff: date | None = None        # papers not before this day are out


@dataclass(frozen=True)
class Cited:
    """One paper the answer returned or cited, as the scorer resolved it."""
    ref: str                          # as the answer wrote it
    titles: tuple[str, ...] = ()      # titles it may be matched on (corpus, stated, …)
    ids: tuple[str, ...] = ()         # the resolved paper's identifiers
    earliest: date | None = None      # its earliest possible date (corpus)
    excluded: bool = False            # the task's rule excludes it


def id_keys(values: Sequence[str]) -> set[str]:
    """The canonical id keys (`doi:…`, `arxiv:…`) and the raw stripped forms of `values`;
    titles are not ids."""
    out: set[str] = set()
    for value in values:
        text = str(value or "").strip()
        if not text:
            continue
        parsed = parse_id(text)
        if parsed.kind != "title":
            out.add(str(parsed))
        out.add(text)
    return out


def same_title(a: str, b: str) -> bool:
    """Equal normalised titles, or TaxoBench A.5's alignment rule (containment and a
    similarity ratio of at least `text.align.MIN_RATIO`) when the shorter has at least
    `MIN_TITLE_WORDS` words."""
    from rapidfuzz.distance import Indel
    na, nb = normalize_title(a or ""), normalize_title(b or "")
    if not na or not nb:
        return False
    if na == nb:
        return True
    short = na if len(na) <= len(nb) else nb
    return len(short.split()) >= MIN_TITLE_WORDS and (na in nb or nb in na) and \
        Indel.normalized_similarity(na, nb) >= MIN_RATIO


def _is_survey(key: AnswerKey, paper: Cited, survey_ids: set[str]) -> bool:
    if survey_ids & id_keys([paper.ref, *paper.ids]):
        return True
    titles = list(paper.titles)
    if parse_id(paper.ref).kind == "title":
        titles.append(paper.ref)
    return any(same_title(t, s) for t in titles for s in key.titles)


def earliest_of(paper: Cited) -> date | None:
    """`paper.earliest`, else the first day of the month its arXiv id gives."""
    if paper.earliest is not None:
        return paper.earliest
    arxiv = sorted(k for k in id_keys([paper.ref, *paper.ids]) if k.startswith("arxiv:"))
    return earliest_date(None, arxiv, None) if arxiv else None


def from_corpus(corpus: object, refs: Sequence[tuple[str | Cited, str | None]], *,
                excluded_surveys: bool = False) -> list[Cited]:
    """`Cited`s for answer references a scorer resolved against an open corpus
    (`corpus.store.Corpus`): (the reference as written, or a `Cited` with what the scorer
    already knows, and its paper_id or None). A resolved one gains the corpus title, its
    paper_id and id keys, its earliest possible date (`data.sources.dates.earliest_date`) and,
    with `excluded_surveys`, `excluded` when the corpus flags it a survey; an unresolved one
    stays as it was given."""
    from dataclasses import replace
    known = [pid for _, pid in refs if corpus is not None and pid is not None
             and pid in corpus]                                          # type: ignore
    rows = {r["paper_id"]: r for r in corpus.get_rows(list(dict.fromkeys(known)))} \
        if known else {}                                                 # type: ignore
    out = []
    for given, pid in refs:
        cited = given if isinstance(given, Cited) else Cited(str(given))
        row = rows.get(pid) if pid is not None else None
        if row is None:
            out.append(cited)
            continue
        ids = tuple(row.get("ids") or ())
        out.append(replace(
            cited, titles=cited.titles + ((row["title"],) if row.get("title") else ()),
            ids=cited.ids + (str(pid), *ids),
            earliest=cited.earliest or earliest_date(row.get("published"), ids, row.get("year")),
            excluded=cited.excluded or (excluded_surveys and bool(row.get("is_survey")))))
    return out


def _distinct(papers: Sequence[Cited | str]) -> list[tuple[int, Cited]]:
    seen: set[str] = set()
    out = []
    for index, p in enumerate(papers):
        paper = p if isinstance(p, Cited) else Cited(str(p))
        mark = normalize_title(paper.ref) or paper.ref.strip()
        if mark and mark not in seen:
            seen.add(mark)
            out.append((index, paper))
    return out


def rule_of(key: AnswerKey, paper: Cited, survey_ids: set[str] | None = None) -> str | None:
    """The first count `paper` falls under (`survey`, `after_cutoff`, `excluded`), or None."""
    if _is_survey(key, paper, id_keys(key.ids) if survey_ids is None else survey_ids):
        return "survey"
    if key.cutoff is not None and (day := earliest_of(paper)) is not None \
            and day >= key.cutoff:
        return "after_cutoff"
    return "excluded" if paper.excluded else None


def leaked_papers(key: AnswerKey, papers: Sequence[Cited | str]) -> list[dict[str, Any]]:
    """Which of the answer's distinct references were counted, and under which rule: one
    `{"rule", "index" (its position in `papers`), "ref" (as written), "titles", "ids"}` each
    (`titles`, `ids` only when known) — the score row's `leaked_items`."""
    survey_ids = id_keys(key.ids)
    out: list[dict[str, Any]] = []
    for index, paper in _distinct(papers):
        if rule := rule_of(key, paper, survey_ids):
            item: dict[str, Any] = {"rule": rule, "index": index, "ref": paper.ref}
            if titles := list(dict.fromkeys(t for t in paper.titles if t)):
                item["titles"] = titles
            if ids := list(dict.fromkeys(i for i in paper.ids if i)):
                item["ids"] = ids
            out.append(item)
    return out


def paper_counts(key: AnswerKey, papers: Sequence[Cited | str]) -> dict[str, int]:
    """{survey, after_cutoff, excluded} over the answer's distinct references."""
    counts = {"survey": 0, "after_cutoff": 0, "excluded": 0}
    for item in leaked_papers(key, papers):
        counts[item["rule"]] += 1
    return counts


def title_quotes(key: AnswerKey, text: str) -> int:
    """How often the normalised `text` holds one of the survey's normalised titles (titles of
    `MIN_TITLE_WORDS` words or more)."""
    hay = f" {normalize_title(text or '')} "
    total = 0
    for title in dict.fromkeys(normalize_title(t) for t in key.titles):
        if len(title.split()) >= MIN_TITLE_WORDS:
            total += hay.count(f" {title} ")
    return total


def _fuzzy_cover(source: list[str], words: list[str], span: int) -> list[tuple[int, int]]:
    """(start, end) word ranges of `words` that copy `source` with a few words changed: the
    word-level alignment of the two (`rapidfuzz` Levenshtein opcodes) chains its equal blocks
    across gaps of at most `MAX_GAP` words on either side; a chain of `span` or more words of
    which at least `MIN_DENSITY` are equal is a copy (one word in six swapped keeps 5/6)."""
    from rapidfuzz.distance import Levenshtein
    blocks = [(op.src_start, op.src_end, op.dest_start, op.dest_end)
              for op in Levenshtein.opcodes(words, source) if op.tag == "equal"]
    out: list[tuple[int, int]] = []
    chain: list[tuple[int, int, int, int]] = []
    for block in [*blocks, None]:
        if block is not None and chain and block[0] - chain[-1][1] <= MAX_GAP \
                and block[2] - chain[-1][3] <= MAX_GAP:
            chain.append(block)
            continue
        if chain:
            start, end = chain[0][0], chain[-1][1]
            equal = sum(b[1] - b[0] for b in chain)
            if end - start >= span and equal >= MIN_DENSITY * (end - start):
                out.append((start, end))
        chain = [block] if block is not None else []
    return out


def abstract_spans(abstract: str | None, text: str, span: int = SPAN) -> list[str]:
    """The runs of `span` or more consecutive (normalised) words of `text` that are also in
    `abstract` — verbatim, or copied with a few words changed (`_fuzzy_cover`) — each maximal
    run once, in the text's order. Words are compared after the project's one normaliser
    (lookalike letters, zero-width characters and soft hyphens read through)."""
    source = normalize_title(abstract or "").split()
    words = normalize_title(text or "").split()
    if len(source) < span or len(words) < span:
        return []
    grams = {tuple(source[i:i + span]) for i in range(len(source) - span + 1)}
    covered = [False] * len(words)
    for i in range(len(words) - span + 1):
        if tuple(words[i:i + span]) in grams:
            covered[i:i + span] = [True] * span
    for start, end in _fuzzy_cover(source, words, span):
        covered[start:end] = [True] * (end - start)
    runs, start = [], None
    for i, hit in enumerate([*covered, False]):
        if hit and start is None:
            start = i
        elif not hit and start is not None:
            runs.append(" ".join(words[start:i]))
            start = None
    return runs


def abstract_words(abstract: str | None, text: str, span: int = SPAN) -> int:
    """Words of `text` inside a run of `span` or more consecutive words also in `abstract`."""
    return sum(len(run.split()) for run in abstract_spans(abstract, text, span))


@dataclass(frozen=True)
class Findings:
    """One sample's audit: the counts (`suspected_leak`), which references were counted
    (`leaked_papers`) and the abstract's verbatim spans found in the text."""
    counts: dict[str, int]
    items: tuple[dict[str, Any], ...] = ()
    spans: tuple[str, ...] = ()

    def row(self) -> dict[str, Any]:
        """The score row's fields: `suspected_leak` (non-zero counts), `leaked_items` and
        `leaked_spans` when there are any; {} when nothing was found."""
        if not self.counts:
            return {}
        out: dict[str, Any] = {"suspected_leak": dict(self.counts)}
        if self.items:
            out["leaked_items"] = [dict(i) for i in self.items]
        if self.spans:
            out["leaked_spans"] = list(self.spans)
        return out


def findings(key: AnswerKey, papers: Sequence[Cited | str], text: str | None = None, *,
             quote_title: bool = True) -> Findings:
    """The audit of one answer (see the module docstring); `quote_title=False` where the
    task's prompt gives the title."""
    items = leaked_papers(key, papers)
    counts = {"survey": 0, "after_cutoff": 0, "excluded": 0}
    for item in items:
        counts[item["rule"]] += 1
    spans: list[str] = []
    if text:
        counts["title_quoted"] = title_quotes(key, text) if quote_title else 0
        spans = abstract_spans(key.abstract, text)
        counts["abstract_words"] = sum(len(s.split()) for s in spans)
    return Findings({k: v for k, v in counts.items() if v}, tuple(items), tuple(spans))


def audit(key: AnswerKey, papers: Sequence[Cited | str], text: str | None = None, *,
          quote_title: bool = True) -> dict[str, int]:
    """The sample's `suspected_leak`: the non-zero counts (see the module docstring); `{}`
    when nothing was found. `quote_title=False` where the task's prompt gives the title."""
    return findings(key, papers, text, quote_title=quote_title).counts


__all__ = ["KEYS", "MIN_TITLE_WORDS", "SPAN", "AnswerKey", "Cited", "Findings", "abstract_spans",
           "abstract_words", "audit", "earliest_of", "findings", "from_corpus", "id_keys",
           "leaked_papers", "paper_counts", "rule_of", "same_title", "title_quotes"]
