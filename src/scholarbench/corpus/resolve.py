"""References as users write them → corpus papers, offline (`scholarbench corpus resolve`).

A reference (REF) is a string: a corpus paper_id, a DOI, an arXiv id, any other identifier
`data.identifiers.parse_id` reads (S2 CorpusId, OpenAlex W-id, …), or a title. It resolves
through the corpus's own identifier table (`Corpus.resolve_all`: the keys every source
contributed, titles normalised by the project's one normaliser), in this order:

1. the whole string (whitespace runs collapsed): a paper_id, an identifier, or a title;
2. when that names no paper or several, a DOI or an arXiv id written inside the string
   ("Attention is all you need, arXiv:1706.03762" → the arXiv key) — the identifier wins over
   the title text around it; else, when the string ends in a year in parentheses ("Graph
   attention networks (2018)", as list answers often write them), the title before it;
3. when several papers still match (two corpus papers with one title), `keep` (a caller's
   predicate, e.g. "searchable for this task") may narrow them; a REF left naming several
   papers is unresolved, never guessed.

Unresolved REFs are None; callers count them.

    scholarbench corpus resolve [--corpus DIR] REF … | --file F
    → one line per REF: "REF<TAB>paper_id", or "REF<TAB>-" when it does not resolve
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterable, Sequence

from scholarbench.data.identifiers import arxiv_id_in_citation, clean_doi
from scholarbench.errors import ScholarbenchError
from scholarbench.files import require_regular

UNRESOLVED = "-"
_TRAILING_YEAR = re.compile(r"[\s,.]*\((?:19|20)\d\d\)\W*$")


def _embedded_ids(text: str) -> list[str]:
    keys = []
    doi = clean_doi(text)
    if doi:
        keys.append(f"doi:{doi}")
    arxiv = arxiv_id_in_citation(text)
    if arxiv:
        keys.append(f"arxiv:{arxiv}")
    return keys


def candidates(corpus, ref: str) -> list[str]:
    """The corpus papers `ref` may name (rules 1-2 of the module docstring), sorted."""
    text = " ".join(str(ref).split())
    if not text:
        return []
    found = corpus.resolve_all(text)
    if len(found) == 1:
        return found
    for key in _embedded_ids(text):
        hit = corpus.resolve_all(key)
        if hit:
            return hit
    year = _TRAILING_YEAR.search(text)
    if not found and year and year.start() > 0:
        return corpus.resolve_all(text[:year.start()])
    return found


def resolve_ref(corpus, ref: str, keep: Callable[[str], bool] | None = None) -> str | None:
    """The one corpus paper_id `ref` names, or None (see the module docstring)."""
    found = candidates(corpus, ref)
    if len(found) > 1 and keep is not None:
        found = [pid for pid in found if keep(pid)]
    return found[0] if len(found) == 1 else None


def resolve_refs(corpus, refs: Iterable[str]) -> list[tuple[str, str | None]]:
    return [(ref, resolve_ref(corpus, ref)) for ref in refs]


def read_refs(path: str | Path) -> list[str]:
    """One REF per line; blank lines skipped; surrounding whitespace stripped."""
    path = Path(path)
    require_regular(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScholarbenchError(f"{path}: cannot read ({exc.strerror})") from exc
    return [line.strip() for line in text.splitlines() if line.strip()]


def format_lines(pairs: Sequence[tuple[str, str | None]]) -> str:
    """`REF<TAB>paper_id|-` lines (tabs and newlines inside a REF become spaces)."""
    return "\n".join(f"{' '.join(ref.split())}\t{pid or UNRESOLVED}" for ref, pid in pairs)


def resolve_command(corpus_dir: Path, refs: Sequence[str], file: str | None) -> tuple[str, int]:
    """What `scholarbench corpus resolve` prints, and how many REFs did not resolve."""
    # deferred: pulls in pyarrow
    from scholarbench.corpus.schema import PAPERS
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.corpus.store import Corpus
    wanted = list(refs) + (read_refs(file) if file else [])
    if not wanted:
        raise ScholarbenchError("corpus resolve needs REF arguments or --file F (one REF a line)")
    if not (corpus_dir / PAPERS).is_file():
        raise ScholarbenchError(f"no corpus at {corpus_dir}: build it with `scholarbench corpus "
                                "build`, or pass --corpus DIR")
    corpus = Corpus.open(corpus_dir)
    try:
        pairs = resolve_refs(corpus, wanted)
    finally:
        corpus.close()
    return format_lines(pairs), sum(1 for _, pid in pairs if pid is None)


__all__ = ["UNRESOLVED", "candidates", "resolve_ref", "resolve_refs", "read_refs",
           "format_lines", "resolve_command"]
