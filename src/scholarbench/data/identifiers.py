"""One resolver for paper identifiers: DOI, arXiv id (version dropped), OpenAlex W-id, S2 id, title.

Every identifier becomes a canonical key `kind:value` that compares equal across spellings:

    doi:10.1145/3292500.3330851      from "https://doi.org/10.1145/...", "doi:10.1145/...", any case
    arxiv:1812.10528                 from "arXiv:1812.10528v3", "https://arxiv.org/abs/1812.10528",
                                     ".../pdf/1812.10528v2.pdf"; old style "arxiv:cs/0112017"
    openalex:W2741809807             from "W2741809807" or "https://openalex.org/W2741809807"
    s2:649def34f8be52c8b66281af98ae884c09aef38b   (Semantic Scholar paper sha), s2corpus:215416146
    title:<normalised title>         the project's one title normaliser
    ogbn:<n> pmid:<n> pmcid:PMC<n> mag:<n>   ogbn-arxiv node, PubMed, PubMed Central, MAG ids

A DataCite arXiv DOI (10.48550/arXiv.<id>) is the arXiv key, so a preprint cited by DOI and by
arXiv id is one paper.

DOIs are case-insensitive (lower-cased); trailing sentence punctuation is not part of a DOI.
An identifier is read through disguises first (`text.fold.canonical`: NFKC, zero-width and
other format characters removed, lookalike letters folded), and a percent-encoded one
("10.1145%2F3292500") as it decodes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from scholarbench.text.fold import canonical
from scholarbench.text.normalize import normalize_title

_DOI = re.compile(r"(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"\b([a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
_OPENALEX = re.compile(r"^(?:https?://(?:api\.)?openalex\.org/(?:works/)?)?(W\d+)$", re.IGNORECASE)
_S2_SHA = re.compile(r"^(?:https?://(?:www\.)?semanticscholar\.org/paper/(?:[^/]+/)?)?([0-9a-f]{40})$",
                     re.IGNORECASE)
_S2_CORPUS = re.compile(r"^(?:corpusid:|s2corpus:)(\d+)$", re.IGNORECASE)
_ARXIV_HINT = re.compile(r"arxiv", re.IGNORECASE)
_LOCAL = re.compile(r"^(ogbn|pmid|pmcid|mag):\s*(?:PMC)?(\d+)$", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class PaperId:
    kind: str    # doi | arxiv | openalex | s2 | s2corpus | ogbn | pmid | pmcid | mag | title
    value: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


def clean_doi(text: str) -> str | None:
    match = _DOI.search(text)
    if not match:
        return None
    return match.group(1).rstrip(".,;:)]}'\"").lower()


def arxiv_id(text: str) -> str | None:
    """The arXiv id (no version) in `text`, new style (1812.10528) or old style (cs/0112017)."""
    match = _ARXIV_NEW.search(text)
    if match:
        return match.group(1)
    match = _ARXIV_OLD.search(text)
    return match.group(1) if match else None


def parse_id(text: str) -> PaperId:
    """Classify one identifier string; anything unrecognised is treated as a title."""
    raw = canonical(text).strip()
    if "%" in raw and (plain := unquote(raw)) != raw:
        parsed = parse_id(plain)
        if parsed.kind != "title":
            return parsed
    low = raw.lower()
    match = _LOCAL.match(raw)
    if match:
        kind, number = match.group(1).lower(), str(int(match.group(2)))
        return PaperId(kind, f"PMC{number}" if kind == "pmcid" else number)
    if low.startswith("title:"):
        return PaperId("title", normalize_title(raw[6:]))
    if low.startswith(("openalex:", "s2:")):
        return parse_id(raw.split(":", 1)[1])
    match = _OPENALEX.match(raw)
    if match:
        return PaperId("openalex", match.group(1).upper())
    match = _S2_SHA.match(raw)
    if match:
        return PaperId("s2", match.group(1).lower())
    match = _S2_CORPUS.match(raw)
    if match:
        return PaperId("s2corpus", match.group(1))
    if low.startswith(("doi:", "https://doi.org/", "http://doi.org/", "http://dx.doi.org/",
                       "https://dx.doi.org/")) or re.match(r"^10\.\d{4,9}/", raw):
        doi = clean_doi(raw)
        if doi:
            arxiv_doi = _ARXIV_DOI.match(doi)
            if arxiv_doi and arxiv_id(arxiv_doi.group(1)):
                return PaperId("arxiv", arxiv_id(arxiv_doi.group(1)))
            return PaperId("doi", doi)
    if low.startswith("arxiv:") or "arxiv.org/" in low or re.fullmatch(
            r"\d{4}\.\d{4,5}(v\d+)?|[a-z][a-z\-]*(\.[A-Za-z]{2})?/\d{7}(v\d+)?", raw):
        found = arxiv_id(raw)
        if found:
            return PaperId("arxiv", found)
    return PaperId("title", normalize_title(raw))


def arxiv_id_in_citation(text: str) -> str | None:
    """arXiv id mentioned in free bibliography text ("arXiv preprint arXiv:1812.10528"); only
    when the text says arXiv, so a page range like 1812.1052 in a journal entry is not taken."""
    return arxiv_id(text) if _ARXIV_HINT.search(text) else None
