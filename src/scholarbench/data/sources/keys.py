"""Canonical keys for the corpus, built on the project's one resolver (`data.identifiers`).

`id_key` reads a typed id field from a source record; `canonical_key` is `parse_id` printed.
Merge policy (which kinds a paper has only one of, which id names a paper) lives here too.
"""
from __future__ import annotations

from scholarbench.data.identifiers import parse_id
from scholarbench.text.normalize import normalize_title

# Order in which a paper's ids are tried when one is needed (paper_id, resolving a reference).
PRIORITY = ("arxiv", "doi", "openalex", "s2corpus", "s2", "pmcid", "pmid", "mag", "ogbn")
# Kinds of which a paper has exactly one value: two papers holding different values of one of
# these kinds are never merged on a shared title. (DOI is one of them: a title shared by two
# different DOIs is far more often two works — "Deep learning", "Introduction" — than one.)
EXCLUSIVE = frozenset({"arxiv", "doi", "openalex", "s2corpus", "s2", "ogbn"})

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
        parsed = parse_id(f"{kind}:{text}")
        return str(parsed) if parsed.kind == kind else None
    prefix = {"doi": "doi:", "arxiv": "arXiv:", "s2corpus": "CorpusId:", "openalex": "openalex:",
              "s2": "s2:"}.get(kind)
    if prefix is None:
        raise ValueError(f"unknown id kind {kind!r}")
    if kind in ("doi", "arxiv", "openalex", "s2") and text.lower().startswith(
            ("http", prefix.lower())):
        prefix = ""
    parsed = parse_id(prefix + text)
    if parsed.kind != kind and not (kind == "doi" and parsed.kind == "arxiv"):
        return None
    return str(parsed)


def title_key(title: str) -> str | None:
    norm = normalize_title(title)
    return f"title:{norm}" if norm else None


def canonical_key(identifier: str) -> str:
    return str(parse_id(identifier))


def key_kind(key: str) -> str:
    return key.split(":", 1)[0]


def priority(key: str) -> tuple[int, str]:
    """Sort key: the kind's place in PRIORITY, then the value (title keys last)."""
    kind = key_kind(key)
    return (PRIORITY.index(kind) if kind in PRIORITY else len(PRIORITY), key)
