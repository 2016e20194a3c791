"""URLs, DOIs and arXiv ids found in free text, with the punctuation around them left out.

Upstream ReportBench extracts URLs with `https?://[^\\s\\)\\]\\"\\'>]+`, which keeps a full stop,
comma, semicolon or colon that ends a sentence (`…/1706.03762.` and `…/1706.03762,` are two URLs
that fetch nothing) and cuts a URL at its first `)` (`…/Transformer_(machine_learning)` loses
its tail). Here:
- a URL runs to whitespace, `<`, `>`, `"`, `` ` `` (so `<https://…>` autolinks and
  `[text](https://…)` links end where Markdown ends them);
- then trailing `. , ; : ! ? * _ ~ ' "` are dropped, and a trailing `)`, `]` or `}` is dropped
  while the URL has more closing than opening brackets of that kind, repeatedly: a balanced
  `(machine_learning)` stays, the `)` closing a Markdown link or a parenthesis goes;
- Markdown escapes inside the URL (`\\_`, `\\*`, `\\(`) are undone.
DOIs (bare, `doi:`/`DOI ` prefixed, or in URLs) end on the same rule, lower-cased by `parse_id`.
arXiv ids are new style (`2101.00001`, 4 or 5 digits after the dot) or old style
(`cs/0112017`, `math.GT/0309136`), with or without a version, taken from `arXiv:`/`arXiv `
prefixes, `CoRR abs/…` and arxiv.org `abs|pdf|html` URLs; a bare `2101.00001` with no arXiv
mention is not taken (page ranges and version numbers look the same).

`url_key` is the form URLs are deduplicated on: scheme and host lower-cased, `www.` and a
default port dropped, a trailing `/` dropped, `utm_*` tracking parameters and the fragment
dropped (except `#!…` and `#/…` routes of single-page sites), the rest of the query kept.
Upstream deduplicates on scheme://host/path only, so two OpenReview papers
(`forum?id=A`, `forum?id=B`) are one URL there.

`ids_in_url` reads paper ids from a URL: arXiv, doi.org, a DOI in a publisher path
(`/doi/10.…`, `/article/10.…`, `/content/10.1101/…v2`, `.pdf` and `/full` tails dropped),
nature.com/articles/<slug> (DOI 10.1038/<slug>), PubMed, PubMed Central, OpenAlex and Semantic
Scholar paper URLs.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from scholarbench.data.identifiers import parse_id

_URL = re.compile(r"https?://[^\s<>\"`]+", re.IGNORECASE)
_TRAIL = ".,;:!?*_~'\"\u2019\u201d"
_PAIRS = {")": "(", "]": "[", "}": "{"}
_MD_ESCAPE = re.compile(r"\\([_*\[\]()#+\-.!~`])")
_DOI = re.compile(r"(?<![\w/.])(?:doi:\s*|doi\s+)?(10\.\d{4,9}/[^\s\"<>`]+)", re.IGNORECASE)
_ARXIV_PREFIXED = re.compile(
    r"(?:arxiv(?:\s+preprint)?(?:\s+arxiv)?\s*[:\s]\s*|corr\s*,?\s*abs/|"
    r"arxiv\.org/(?:abs|pdf|html)/)"
    r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)(?![\d])",
    re.IGNORECASE)
_DOI_IN_PATH = re.compile(r"(10\.\d{4,9}/.+)$")
_DOI_TAILS = re.compile(r"(?:/(?:full|abstract|abs|pdf|epdf|summary|html|meta|fulltext)|"
                        r"\.full|\.pdf|\.full\.pdf|\.abstract)+$", re.IGNORECASE)


def trim(candidate: str) -> str:
    """A matched URL or DOI without the punctuation and unbalanced closing brackets that end
    the sentence or the Markdown construct around it."""
    text = candidate
    while text:
        last = text[-1]
        if last in _TRAIL:
            text = text[:-1]
        elif last in _PAIRS and text.count(last) > text.count(_PAIRS[last]):
            text = text[:-1]
        else:
            break
    return text


def find_urls(text: str) -> list[tuple[int, int, str]]:
    """(start, end, url) of every http(s) URL, trimmed and unescaped."""
    out = []
    for match in _URL.finditer(text):
        url = trim(match.group(0))
        if len(url) > len("https://") and "." in url.split("://", 1)[1]:
            out.append((match.start(), match.start() + len(url), _MD_ESCAPE.sub(r"\1", url)))
    return out


def find_dois(text: str) -> list[tuple[int, int, str]]:
    """(start, end, canonical key `doi:…`/`arxiv:…`) of each DOI written in `text`."""
    out = []
    for match in _DOI.finditer(text):
        doi = trim(_MD_ESCAPE.sub(r"\1", match.group(1)))
        parsed = parse_id("doi:" + doi)
        if parsed.kind in ("doi", "arxiv") and "/" in doi:
            out.append((match.start(), match.start(1) + len(doi), str(parsed)))
    return out


def find_arxiv(text: str) -> list[tuple[int, int, str]]:
    """(start, end, `arxiv:<id>`) of each prefixed arXiv id (version dropped)."""
    out = []
    for match in _ARXIV_PREFIXED.finditer(text):
        parsed = parse_id("arXiv:" + match.group(1))
        if parsed.kind == "arxiv":
            out.append((match.start(), match.end(), str(parsed)))
    return out


def url_key(url: str) -> str:
    """The form URLs are deduplicated on (see the module docstring)."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return url.strip()
    if host.startswith("www."):
        host = host[4:]
    scheme = parts.scheme.lower()
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not k.lower().startswith("utm_")])
    fragment = parts.fragment if parts.fragment.startswith(("!", "/")) else ""
    return urlunsplit((scheme, host, path, query, fragment))


def ids_in_url(url: str) -> tuple[str, ...]:
    """Canonical paper id keys a URL names (empty for a web page without one)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return ()
    host = host[4:] if host.startswith("www.") else host
    path = parts.path
    if host.endswith("arxiv.org"):
        parsed = parse_id(f"https://arxiv.org{path}")
        return (str(parsed),) if parsed.kind == "arxiv" else ()
    if host in ("doi.org", "dx.doi.org"):
        parsed = parse_id("doi:" + path.lstrip("/"))
        return (str(parsed),) if parsed.kind in ("doi", "arxiv") else ()
    if host in ("pubmed.ncbi.nlm.nih.gov",) and (m := re.match(r"^/(\d+)", path)):
        return (str(parse_id(f"pmid:{m.group(1)}")),)
    if (m := re.search(r"/pmc/articles/(PMC\d+)", path, re.IGNORECASE)) or (
            host == "pmc.ncbi.nlm.nih.gov" and (m := re.search(r"/articles/(PMC\d+)", path))):
        return (str(parse_id(f"pmcid:{m.group(1)}")),)
    if host.endswith("openalex.org"):
        parsed = parse_id(url)
        return (str(parsed),) if parsed.kind == "openalex" else ()
    if host.endswith("semanticscholar.org"):
        parsed = parse_id(f"https://www.semanticscholar.org{path}")
        return (str(parsed),) if parsed.kind == "s2" else ()
    if host.endswith("nature.com") and (m := re.match(r"^/articles/([A-Za-z0-9.\-]+)$",
                                                      path.rstrip("/"))):
        slug = re.sub(r"\.pdf$", "", m.group(1))
        return (str(parse_id(f"doi:10.1038/{slug}")),)
    for text in (path, parts.query):
        m = _DOI_IN_PATH.search(text.replace("%2F", "/").replace("%2f", "/"))
        if m:
            doi = re.split(r"[&#?]", m.group(1))[0]
            doi = _DOI_TAILS.sub("", doi.rstrip("/"))
            if doi.startswith("10.1101/"):                 # bioRxiv / medRxiv versions
                doi = re.sub(r"v\d+$", "", doi)
            parsed = parse_id("doi:" + doi)
            if parsed.kind in ("doi", "arxiv"):
                return (str(parsed),)
    return ()
