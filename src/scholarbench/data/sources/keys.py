"""Canonical keys for the corpus, built on the project's one resolver (`data.identifiers`).

`parse_id` handles DOI, arXiv, OpenAlex, S2 sha / corpus id and titles. Four kinds it does not
know yet are added here, each with a fixed spelling, because the sources carry them:

    ogbn:<n>     an ogbn-arxiv node index (the arxiv-2023 graph's non-arXiv nodes)
    pmid:<n>     PubMed id          pmcid:PMC<n>   PubMed Central id
    mag:<n>      Microsoft Academic Graph id (S2 and OpenAlex both carry it)

and a DataCite arXiv DOI (10.48550/arXiv.<id>) becomes the arXiv key, so the same preprint
cited by DOI and by arXiv id is one paper. These belong in `data.identifiers`; until they move,
`canonical_key` is the entry point for any identifier string.
"""
from __future__ import annotations

import re

from scholarbench.data.identifiers import parse_id
from scholarbench.text.normalize import normalize_title

# Order in which a paper's ids are tried when one is needed (paper_id, resolving a reference).
PRIORITY = ("arxiv", "doi", "openalex", "s2corpus", "s2", "pmcid", "pmid", "mag", "ogbn")
# Kinds of which a paper has exactly one value: two papers holding different values of one of
# these kinds are never merged on a shared title. (DOI is one of them: a title shared by two
# different DOIs is far more often two works — "Deep learning", "Introduction" — than one.)
EXCLUSIVE = frozenset({"arxiv", "doi", "openalex", "s2corpus", "s2", "ogbn"})

_LOCAL = re.compile(r"^(ogbn|pmid|pmcid|mag):\s*(\S+)$", re.IGNORECASE)
_DIGITS = re.compile(r"^\d+$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)


def _local(kind: str, value: str) -> str | None:
    kind, value = kind.lower(), value.strip()
    if kind == "pmcid":
        value = value.upper().removeprefix("PMC")
        return f"pmcid:PMC{value}" if _DIGITS.match(value) else None
    return f"{kind}:{int(value)}" if _DIGITS.match(value) else None


def id_key(kind: str, value: object) -> str | None:
    """The canonical key of a typed id field (`id_key("doi", "https://doi.org/10.1/X")`), or
    None when the value is empty or not an id of that kind."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    if not text:
        return None
    kind = kind.lower()
    if kind == "doi":  # DOIs have no spaces; line-wrapped BibTeX splits them ("10.1016/j  .ifacol")
        text = "".join(text.split())
    if kind in ("ogbn", "pmid", "pmcid", "mag"):
        return _local(kind, text)
    prefix = {"doi": "doi:", "arxiv": "arXiv:", "s2corpus": "CorpusId:", "openalex": "openalex:",
              "s2": "s2:"}.get(kind)
    if prefix is None:
        raise ValueError(f"unknown id kind {kind!r}")
    if kind in ("doi", "arxiv", "openalex", "s2") and text.lower().startswith(
            ("http", prefix.lower())):
        prefix = ""
    parsed = parse_id(prefix + text)
    if parsed.kind != kind:
        return None
    if kind == "doi":
        match = _ARXIV_DOI.match(parsed.value)
        if match:
            return id_key("arxiv", match.group(1))
    return str(parsed)


def title_key(title: str) -> str | None:
    norm = normalize_title(title)
    return f"title:{norm}" if norm else None


def canonical_key(identifier: str) -> str:
    """Any identifier spelling `parse_id` accepts, plus the local kinds above, as one key."""
    text = identifier.strip()
    match = _LOCAL.match(text)
    if match:
        key = _local(match.group(1), match.group(2))
        if key:
            return key
    parsed = parse_id(text)
    if parsed.kind == "doi":
        return id_key("doi", parsed.value) or str(parsed)
    return str(parsed)


def key_kind(key: str) -> str:
    return key.split(":", 1)[0]


def priority(key: str) -> tuple[int, str]:
    """Sort key: the kind's place in PRIORITY, then the value (title keys last)."""
    kind = key_kind(key)
    return (PRIORITY.index(kind) if kind in PRIORITY else len(PRIORITY), key)
