"""References of a Markdown report: what it cites, before anything is looked up.

`parse_report(markdown)` finds, outside code blocks and HTML comments:
- **URLs** anywhere (trimmed as `identifiers_in_text` says), with the paper ids they name;
  a Markdown link's text becomes the reference's stated title when it reads like one (3+ words,
  not a URL, not an author-year label, a trailing " - arXiv" / " | Nature"-style site name
  dropped);
- **DOIs** and **arXiv ids** written in the text (bare, `doi:`, `arXiv:`, `CoRR abs/…`);
- the **bibliography**: the last heading named References / Bibliography / Sources / Works Cited
  / Citations / Literature (numbering, emphasis and a colon allowed; a bold line or a
  "References:" line counts as a heading) up to the next heading of the same or a higher level.
  Its items are numbered (`[1] …`, `1. …`, `1) …`), bulleted, or footnote definitions
  (`[^1]: …`, read anywhere in the report), continuation lines joined. Each item is one
  reference: its ids (URL, DOI, arXiv), its title (`entry_title`);
- **numbered markers** in the text (`[1]`, `[1, 3]`, `[2-4]`, `[^1]`, `<sup>1</sup>`) linked to
  the bibliography item with that number; a marker without an item is kept as unresolved;
- **author-year citations** (`(Vaswani et al., 2017)`, `(Smith & Jones 2020a; Lee, 2019)`,
  `Vaswani et al. (2017)`) linked to the bibliography item whose text starts with that surname
  and holds that year; one without an item is kept as unresolved. A title written in prose
  with its year ("Deep Residual Learning (2016) made …") is not one (`_ends_a_title`).

References that name the same work are merged (union of: a shared paper id, the same URL by
`url_key`, a marker and its item, the same normalised stated title). The result lists one
`Reference` per work with every way it was cited.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from scholarbench.references.identifiers_in_text import (find_arxiv, find_dois,
                                                                     find_urls, ids_in_url,
                                                                     url_key)
from scholarbench.text.bibliography import BULLET as _ITEM_BULLET
from scholarbench.text.bibliography import bibliography_section
from scholarbench.text.normalize import normalize_title

_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ ]{0,3}\1[`~]*[ \t]*$|\Z)",
                    re.MULTILINE | re.DOTALL)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_ITEM_NUM = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\[(\d{1,4})\]|(\d{1,4})[.)])[ \t]*[:.]?"
                       r"[ \t]*(.*)$")
_ITEM_FOOT = re.compile(r"^[ \t]{0,3}\[\^([^\]\s]+)\]:[ \t]*(.*)$")
_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_MARKER = re.compile(r"(?<![\w\]\\!])\[(\^[^\]\s]+|\d{1,4}(?:\s*[-–,]\s*\d{1,4})*)\](?![(:\[])")
_SUP = re.compile(r"<sup>\s*\[?(\d{1,4}(?:\s*[-–,]\s*\d{1,4})*)\]?\s*</sup>", re.IGNORECASE)
_SURNAME = (r"(?:van\s+der\s+|van\s+|von\s+|de\s+|del\s+|di\s+|da\s+|le\s+|la\s+)?"
            r"[A-Z][\w'’\-]*[a-z][\w'’\-]*")
_AY_ONE = re.compile(r"^\s*(?:e\.g\.,?\s*|see\s+(?:also\s+)?|cf\.\s*)?(?P<name>" + _SURNAME
                     + r")(?:\s+(?:and|&)\s+" + _SURNAME + r"|\s+et\s+al\.?)?,?\s+"
                     r"(?P<year>(?:19|20)\d\d)[a-z]?\s*$")
_AY_PAREN = re.compile(r"\(([^()]*?(?:19|20)\d\d[a-z]?)\)")
_YEAR_IN_PARENS = re.compile(r"\((?P<year>(?:19|20)\d\d)[a-z]?\)")
_AY_NARRATIVE = re.compile(r"(?<![\w])(?P<name>" + _SURNAME + r")(?:\s+(?:and|&)\s+" + _SURNAME
                           + r"|\s+et\s+al\.?)?\s+$")
_TITLE_GLUE = frozenset("a an and at by for from in of on or the to via vs with".split())
_SENTENCE_END = re.compile(r"(?:[.!?:;]\s|\n|^)(?!.*(?:[.!?:;]\s|\n))(.*)$", re.DOTALL)


def _ends_a_title(before: str) -> bool:
    """True when a narrative "Name (YEAR)" is the last word of a title written in prose
    ("Deep Residual Learning (2016) made …"): walking back from it over small words (of, for,
    the, …), the next word is capitalised and does not begin its sentence. So "Vaswani et
    al. (2017)", "as Smith (2020) shows" and a sentence that begins "Smith (2020)" stay
    author-year citations; "Geoffrey Hinton (2006)" reads as a title (write "Hinton (2006)")."""
    tail = _SENTENCE_END.search(before)
    words = re.findall(r"[\w'’\-]+", tail.group(1) if tail else before)
    for i in range(len(words) - 1, -1, -1):
        if words[i].lower() in _TITLE_GLUE:
            continue
        return words[i][:1].isupper() and i > 0
    return False


_NOT_NAMES = frozenset(
    "table figure fig section sec chapter eq equation appendix see in since from by after before "
    "until during january february march april may june july august september october november "
    "december q1 q2 q3 q4 version v arxiv preprint accessed retrieved published updated spring "
    "summer fall autumn winter the a an and or of for to with on at as is was were".split())
_SITE_SUFFIX = re.compile(
    r"\s+[-|–—:]\s+(?:arxiv(?:\.org)?|researchgate|semantic\s+scholar|sciencedirect|"
    r"ieee\s+xplore|"
    r"acm\s+digital\s+library|springer(?:link)?|nature|pubmed|pmc|ncbi|openreview(?:\.net)?|"
    r"google\s+scholar|wiley\s+online\s+library|mdpi|frontiers|plos(?:\s+one)?|aclanthology|"
    r"acl\s+anthology|papers\s+with\s+code|hugging\s+face|github|medium|wikipedia|"
    r"[\w.-]+\.(?:com|org|net|edu|gov|io|ai))\s*$", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“]([^\"“”]{8,}?)[,.]?[\"”]")
_YEAR_PAREN = re.compile(r"\((?:19|20)\d\d[a-z]?(?:,\s*[A-Za-z]+(?:\s+\d{1,2})?)?\)\.?\s+")
_INITIAL_DOT = re.compile(r"(?:(?<=[\s\-])|^)(?:[A-Z]|Jr|Sr|Ph\.D|vs|pp|vol|no)\.$")


@dataclass
class Mention:
    kind: str                 # url | doi | arxiv | bib_entry | marker | author_year
    text: str                 # what was written (URL, id, item text, "[3]", "(Lee, 2020)")
    line: int                 # 1-based line of the report


@dataclass
class Reference:
    """One cited work of a report, with every mention that names it."""
    mentions: list[Mention] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)            # canonical paper id keys
    urls: list[str] = field(default_factory=list)
    stated_titles: list[str] = field(default_factory=list)  # titles the report writes
    label: str | None = None                                # bibliography item number/footnote
    # filled in by `resolve`:
    paper_id: str | None = None
    corpus_title: str | None = None
    extracted_title: str | None = None                      # from the title-extractor hook
    status: str = "unresolved"                              # resolved | titled | unresolved
    reason: str | None = None

    @property
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(m.kind for m in self.mentions))

    def titles(self) -> list[str]:
        """Every title this reference may be matched on: corpus, stated, extracted."""
        found = [self.corpus_title] + self.stated_titles + [self.extracted_title]
        return list(dict.fromkeys(t for t in found if t and normalize_title(t)))

    def to_dict(self) -> dict:
        return {"status": self.status, "reason": self.reason, "label": self.label,
                "ids": self.ids, "urls": self.urls, "stated_titles": self.stated_titles,
                "paper_id": self.paper_id, "corpus_title": self.corpus_title,
                "extracted_title": self.extracted_title, "kinds": self.kinds,
                "first_line": self.mentions[0].line if self.mentions else None}


@dataclass
class BibItem:
    label: str | None
    text: str
    line: int


def _blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def visible_markdown(text: str) -> str:
    """Fenced code and HTML comments blanked (offsets and line numbers unchanged)."""
    if "```" in text or "~~~" in text:
        text = _FENCE.sub(_blank, text)
    if "<!--" in text:
        text = _HTML_COMMENT.sub(_blank, text)
    return text


def bibliography_items(lines: list[str], first: int, end: int) -> list[BibItem]:
    items: list[BibItem] = []
    current: BibItem | None = None
    for i in range(first, end):
        line = lines[i]
        if not line.strip():
            current = None
            continue
        match = _ITEM_NUM.match(line) or _ITEM_FOOT.match(line)
        if match and match.re is _ITEM_NUM:
            current = BibItem(match.group(1) or match.group(2), match.group(3).strip(), i + 1)
            items.append(current)
        elif match:
            current = BibItem("^" + match.group(1), match.group(2).strip(), i + 1)
            items.append(current)
        elif (bullet := _ITEM_BULLET.match(line)) and not line.startswith(("  ", "\t")):
            current = BibItem(None, bullet.group(1).strip(), i + 1)
            items.append(current)
        elif current is not None:
            current.text += " " + line.strip()
        else:                      # a paragraph item (one reference per paragraph)
            current = BibItem(None, line.strip(), i + 1)
            items.append(current)
    return [item for item in items if item.text]


def clean_link_title(text: str, min_words: int = 3) -> str | None:
    """A link text, quoted string or bibliography segment as a title, or None when it does not
    read as one (fewer than `min_words` words, a URL, an author-year label, only numbers)."""
    text = re.sub(r"[*_`]+", "", text).strip().strip("\"“”'").strip()
    text = _SITE_SUFFIX.sub("", text).strip().rstrip(".,;:")
    words = text.split()
    if len(words) < min_words or re.match(r"^(https?://|www\.|doi:|arxiv:)", text, re.IGNORECASE):
        return None
    if _AY_ONE.match(text) or re.fullmatch(r"[\d\s,.\-–\[\]]+", text):
        return None
    return text


def _split_sentences(text: str) -> list[str]:
    """Split on ". " except after initials and abbreviations; on "? " and "! " only before
    "In " (a venue) or at the end."""
    parts, start = [], 0
    for match in re.finditer(r"\.(?=\s+|$)|[?!](?=\s+In\s|\s*$)", text):
        head = text[start:match.end()]
        if match.group(0) == "." and _INITIAL_DOT.search(head.strip()):
            continue
        parts.append(text[start:match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]


_NAME_TOKEN = re.compile(r"^(?:[A-Z][\w'’\-]*\.?|[A-Z]{1,3}\.?(?:-?[A-Z]\.?)*|and|&|et|al\.?|"
                         r"van|von|de|der|del|di|da|le|la|Jr\.?|Sr\.?)$")


def _author_like(piece: str) -> bool:
    """A run of names, initials, commas, "and", "&", "et al." (no lower-case word)."""
    tokens = piece.replace(",", " ").replace(";", " ").split()
    return bool(tokens) and all(_NAME_TOKEN.match(t) for t in tokens)


_SKIP_PIECE = re.compile(r"^(?:\(?(?:19|20)\d\d[a-z]?\)?|et\s+al|[A-Z]{1,2}(?=[.,\s]|$)[^a-z]*"
                         r"|(?:[A-Z]\.?\s*-?){1,3},.*)$")


def entry_title(text: str) -> str | None:
    """A bibliography item's title, by the first rule that applies:
    1. a quoted string ("Title," IEEE style; “Title”);
    2. a Markdown link whose text reads as a title (`[Title](url)`, 3+ words);
    3. APA: the sentence after "(2020)." / "(2020, May 3).";
    4. "Authors. Title. Venue" (ACL, Vancouver, ACM): the text is cut at every ". " (initials
       too); a first piece that reads as names and initials is skipped, and so are the pieces
       that carry on the author list (starting with an initial, "et al.") or are only a year;
       the next piece is the title (so a title with an initial-like "U.S." in it is cut).
    URLs, DOIs and emphasis markers are removed first; None when no rule applies."""
    quoted = _QUOTED.search(text)
    if quoted and len(quoted.group(1).split()) >= 2:
        return clean_link_title(quoted.group(1), 1) or quoted.group(1).strip().rstrip(",.")
    if "](" in text:
        for match in _LINK.finditer(text):
            title = clean_link_title(match.group(1))
            if title:
                return title
    plain = _LINK.sub(lambda m: m.group(1), text)
    plain = re.sub(r"https?://\S+|(?:doi:\s*)?10\.\d{4,9}/\S+|arxiv:\s*\S+", " ", plain,
                   flags=re.IGNORECASE)
    plain = " ".join(re.sub(r"[*_`]+", "", plain).split())
    year = _YEAR_PAREN.search(plain)
    if year:
        rest = _split_sentences(plain[year.end():])
        return clean_link_title(rest[0], 1) if rest else None
    pieces = [p for p in re.split(r"(?<=\.)(?<!vs\.)\s+|(?<=[?!])\s+(?=In\s)", plain) if p.strip()]
    for i, piece in enumerate(pieces):
        body = piece.rstrip(".").strip()
        if not body or (i == 0 and len(pieces) > 1 and _author_like(body)) \
                or _SKIP_PIECE.match(body):
            continue
        return clean_link_title(body, 1)
    return None


def _labels(spec: str) -> list[str]:
    """"1, 3-5" -> ["1", "3", "4", "5"] (ranges up to 50 long)."""
    out = []
    for part in re.split(r"\s*,\s*", spec.strip()):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            a, b = int(bounds[0]), int(bounds[1])
            if a <= b <= a + 50:
                out += [str(n) for n in range(a, b + 1)]
                continue
        out += [b for b in bounds if b]
    return out


def _surname_key(name: str) -> str:
    return normalize_title(name.split()[-1] if name.split() else name)


class _Groups:
    """Union-find over references keyed by ids, urls, labels and titles."""

    def __init__(self) -> None:
        self.refs: list[Reference] = []
        self.parent: list[int] = []
        self.owner: dict[str, int] = {}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def add(self, ref: Reference, keys: list[str]) -> int:
        index = len(self.refs)
        self.refs.append(ref)
        self.parent.append(index)
        for key in keys:
            if key in self.owner:
                a, b = self.find(self.owner[key]), self.find(index)
                if a != b:
                    self.parent[max(a, b)] = min(a, b)
            else:
                self.owner[key] = index
        return index

    def merged(self) -> list[Reference]:
        groups: dict[int, Reference] = {}
        for i, ref in enumerate(self.refs):
            root = self.find(i)
            if root not in groups:
                groups[root] = Reference(label=ref.label)
            head = groups[root]
            head.mentions += ref.mentions
            head.ids += [k for k in ref.ids if k not in head.ids]
            head.urls += [u for u in ref.urls if u not in head.urls]
            head.stated_titles += [t for t in ref.stated_titles if t not in head.stated_titles]
            head.label = head.label or ref.label
            head.reason = head.reason or ref.reason
        out = list(groups.values())
        for ref in out:
            ref.mentions.sort(key=lambda m: m.line)
            if ref.ids or ref.urls or ref.stated_titles or "bib_entry" in ref.kinds:
                ref.reason = None
        return out


def _keys(ref: Reference) -> list[str]:
    keys = [f"id:{k}" for k in ref.ids] + [f"url:{url_key(u)}" for u in ref.urls]
    keys += [f"title:{n}" for t in ref.stated_titles if (n := normalize_title(t))]
    if ref.label:
        keys.append(f"label:{ref.label}")
    return keys


def _item_reference(item: BibItem) -> Reference:
    ref = Reference(mentions=[Mention("bib_entry", item.text, item.line)], label=item.label)
    ids: list[str] = []
    for _, _, url in find_urls(item.text):
        ref.urls.append(url)
        ids += ids_in_url(url)
    for found in (find_dois, find_arxiv):
        ids += [key for _, _, key in found(item.text)]
    ref.ids = list(dict.fromkeys(ids))
    title = entry_title(item.text)
    if title:
        ref.stated_titles.append(title)
    return ref


def parse_report(markdown: str) -> list[Reference]:
    """The works a Markdown report cites (see the module docstring), first-mention order."""
    text = visible_markdown(markdown)
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def line_of(pos: int) -> int:
        return bisect.bisect_right(starts, pos)

    groups = _Groups()
    section = bibliography_section(lines)
    items = bibliography_items(lines, *section) if section else []
    bib_lines = set(range(*section)) if section else set()
    for i, line in enumerate(lines):                     # footnote definitions anywhere
        if i not in bib_lines and (match := _ITEM_FOOT.match(line)):
            items.append(BibItem("^" + match.group(1), match.group(2).strip(), i + 1))
            bib_lines.add(i)
    labels = set()
    for item in items:
        ref = _item_reference(item)
        groups.add(ref, _keys(ref) + [f"item:{item.line}"])
        if item.label:
            labels.add(item.label)

    # the body: the report with the bibliography lines blanked
    body = "\n".join(" " * len(line) if i in bib_lines else line
                     for i, line in enumerate(lines))

    link_titles = {}
    if "](" in body:
        for match in _LINK.finditer(body):
            title = clean_link_title(match.group(1))
            if title:
                link_titles[match.start(2)] = title
    url_spans = []
    for start, end, url in find_urls(body):
        url_spans.append((start, end))
        ref = Reference(mentions=[Mention("url", url, line_of(start))], urls=[url],
                        ids=list(ids_in_url(url)))
        if start in link_titles:
            ref.stated_titles.append(link_titles[start])
        groups.add(ref, _keys(ref))

    def in_url(pos: int) -> bool:
        k = bisect.bisect_right(url_spans, (pos, float("inf"))) - 1
        return k >= 0 and url_spans[k][0] <= pos < url_spans[k][1]

    for found, kind in ((find_dois, "doi"), (find_arxiv, "arxiv")):
        for start, end, key in found(body):
            if not in_url(start):
                ref = Reference(mentions=[Mention(kind, body[start:end], line_of(start))],
                                ids=[key])
                groups.add(ref, _keys(ref))

    for regex in (_MARKER, _SUP):
        for match in regex.finditer(body):
            if in_url(match.start()):
                continue
            spec = match.group(1)
            for label in ([spec] if spec.startswith("^") else _labels(spec)):
                ref = Reference(mentions=[Mention("marker", f"[{label}]",
                                                  line_of(match.start()))], label=label)
                if label not in labels:
                    ref.reason = (f"marker [{label}] has no bibliography item" if items
                                  else "numbered marker without a bibliography")
                groups.add(ref, _keys(ref))

    heads = [f" {normalize_title(it.text[:200])} " for it in items]

    def author_year(name: str, year: str, raw: str, pos: int) -> None:
        if name.split()[-1].lower() in _NOT_NAMES:
            return
        surname = _surname_key(name)
        ref = Reference(mentions=[Mention("author_year", raw.strip(), line_of(pos))])
        candidates = [it for it, head in zip(items, heads)
                      if f" {surname} " in head and year in it.text]
        if candidates:
            groups.add(ref, [f"item:{candidates[0].line}"])
        else:
            ref.reason = "author-year citation without a matching bibliography item"
            groups.add(ref, [f"ay:{surname}:{year}"])

    if re.search(r"(?:19|20)\d\d", body):
        for match in _AY_PAREN.finditer(body):
            for part in match.group(1).split(";"):
                one = _AY_ONE.match(part)
                if one:
                    author_year(one.group("name"), one.group("year"), part, match.start())
        for year in _YEAR_IN_PARENS.finditer(body):     # "Name et al. (2017)"
            lead = body[max(0, year.start() - 80):year.start()]
            match = _AY_NARRATIVE.search(lead)
            if match and not _ends_a_title(body[max(0, year.start() - 200):
                                                year.start() - len(lead) + match.start()]):
                start = year.start() - len(lead) + match.start()
                author_year(match.group("name"), year.group("year"),
                            body[start:year.end()], start)
    return groups.merged()
