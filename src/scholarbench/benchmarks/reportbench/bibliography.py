"""Bibliography databases of a survey's source: BibTeX (`.bib`), LaTeX `.bbl`, CSL-JSON.

Every reader returns a `Bibliography`: entries by key, each with a plain-text title, its fields
(lower-case names, LaTeX decoded) and canonical id keys (`doi:…`, `arxiv:…`, `pmid:…`,
`pmcid:…`) read the way the corpus importer reads ReportBench GT entries
(`data.sources.reportbench.reference_ids`: a `doi` field or doi.org `url`; an arXiv `eprint`,
arXiv `url`, CoRR volume, or any field naming arXiv).

Malformed blocks do not stop a survey: they are listed in `problems` with file and line (a
cited key whose entry failed to parse then shows up as a cited key without an entry). Pass
`strict=True` to get a DataError for the first one instead. The first entry of a duplicated key
wins (BibTeX's own rule); later ones are listed in `problems`.

- `.bib`: bibtexparser v2 (`parse_string`, string macros resolved, enclosing braces removed,
  LaTeX decoded by its LatexDecodingMiddleware / pylatexenc).
- `.bbl`: what arXiv sources often ship instead of `.bib`. biblatex's `\\entry{key}{type}{}` …
  `\\field{title}{…}` … `\\endentry`, and `thebibliography`'s `\\bibitem[label]{key} text`,
  whose title is the second `\\newblock` block (authors, title, venue — plain, abbrv, alpha,
  plainnat, IEEEtran, ACM styles); an entry with a single block has no title.
- CSL-JSON: a list of items with `id`, `title`, `DOI`, `URL`, `PMID`, `PMCID` (Pandoc and
  Manubot bibliographies). An item with a `URL` and no other id gets the id `url:<URL>`, which
  is how Manubot's `@url:…` citations find their entry.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from scholarbench.data.identifiers import arxiv_id_in_citation, clean_doi
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.reportbench import reference_ids
from scholarbench.errors import DataError
from scholarbench.files import read_regular_file
from scholarbench.benchmarks.reportbench.latex_text import braced, latex_to_text


@dataclass(frozen=True)
class BibEntry:
    key: str
    title: str
    fields: dict[str, str]
    ids: tuple[str, ...]
    file: str = ""
    line: int | None = None


@dataclass
class Bibliography:
    entries: dict[str, BibEntry] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add(self, entry: BibEntry) -> None:
        if entry.key in self.entries:
            first = self.entries[entry.key]
            self.problems.append(f"{entry.file}:{entry.line}: duplicate key {entry.key!r} "
                                 f"(first at {first.file}:{first.line}; the first is kept)")
            return
        self.entries[entry.key] = entry

    def merge(self, other: "Bibliography") -> None:
        for entry in other.entries.values():
            self.add(entry)
        self.problems.extend(other.problems)

    def by_id(self) -> dict[str, str]:
        """id key -> the key of the first entry holding it."""
        out: dict[str, str] = {}
        for entry in self.entries.values():
            for key in entry.ids:
                out.setdefault(key, entry.key)
        return out


def _problem(bib: Bibliography, message: str, path: Path, line: int | None, strict: bool,
             field_name: str | None = None) -> None:
    if strict:
        raise DataError(message, file=str(path), line=line, field=field_name)
    bib.problems.append(f"{path}:{line}: {message}" if line else f"{path}: {message}")


def _read(path: Path) -> str:
    return read_regular_file(path, errors="replace")


def clean_field(value: str) -> str:
    """A decoded BibTeX value as plain text: leftover braces dropped, spaces collapsed."""
    return " ".join(value.replace("{", "").replace("}", "").split())


# The LaTeX in a BibTeX value: a control word with its brace groups (or the space after it),
# a control symbol with its group or letter (`\\'{e}`, `\\"o`, `\\&`), inline math, and the
# characters pylatexenc rewrites (`--`, `~`, quotes, `%`, `&`). Text between them decodes to
# itself except for braces, which `clean_field` drops.
_GROUP = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
_LATEX_SPAN = re.compile(
    r"\\[A-Za-z]+\*?(?:(?:\s*(?:\[[^\]{}]*\])?\s*" + _GROUP + r")+|\s*)"
    r"|\\[^A-Za-z\s](?:\s*" + _GROUP + r"|\\[A-Za-z]+|[A-Za-z])?"
    r"|\$[^$]*\$|-{2,3}|~|``?|''?|%|&")


@lru_cache(maxsize=65536)
def _decode_span(span: str) -> str:
    try:
        return _decoding_middleware()._decoder.latex_to_text(span,
                                                             latex_context=_walker_context())
    except Exception:     # pylatexenc rejects it (e.g. \\href without its 2nd argument): kept
        return span


@lru_cache(maxsize=1)
def _walker_context():
    from pylatexenc.latexwalker import get_default_latex_context_db
    return get_default_latex_context_db()


def decode_latex_value(value: str) -> str:
    """A BibTeX value's text as bibtexparser's LatexDecodingMiddleware gives it, up to braces
    and spaces (which `clean_field` normalises), in time linear in the value: only the LaTeX
    spans are handed to pylatexenc (cached: the same accents recur), not the whole value."""
    if "\\" not in value and not _LATEX_SPAN.search(value):
        return value
    if "{" in value and _unbalanced(value):
        return _decode_span(value)            # odd braces: let pylatexenc read it whole
    return _LATEX_SPAN.sub(lambda m: _decode_span(m.group(0)), value)


def _unbalanced(value: str) -> bool:
    depth = 0
    for ch in value:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return True
    return depth != 0


@lru_cache(maxsize=1)
def _decoding_middleware():
    """bibtexparser's LatexDecodingMiddleware (its decoder and error handling) with the value
    decoding of `decode_latex_value`: handing every whole value to pylatexenc costs ~13 µs a
    character (0.7 ms a title), which made a 50 MB .bib take over an hour."""
    from bibtexparser.middlewares import LatexDecodingMiddleware

    class _Decoding(LatexDecodingMiddleware):
        def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
            try:
                return decode_latex_value(python_string), ""
            except Exception as exc:     # as the middleware: keep the value, note the error
                return python_string, str(exc)

    return _Decoding()


def read_bibtex(path: str | Path, *, strict: bool = False) -> Bibliography:
    import bibtexparser

    path = Path(path)
    bib = Bibliography()
    library = bibtexparser.parse_string(_read(path), append_middleware=[_decoding_middleware()])
    for block in library.failed_blocks:     # bibtexparser's start_line is 0-based
        line = block.start_line + 1 if getattr(block, "start_line", None) is not None else None
        if type(block).__name__ == "DuplicateBlockKeyBlock":
            _problem(bib, f"duplicate key {getattr(block, 'key', '?')!r} (the first is kept)",
                     path, line, strict)
        else:
            _problem(bib, "unparsable BibTeX block", path, line, strict)
    for entry in library.entries:
        fields = {}
        for name, value in entry.fields_dict.items():
            text = value.value if isinstance(value.value, str) else str(value.value)
            fields[name.lower()] = clean_field(text)
        line = (entry.start_line + 1) if entry.start_line is not None else None
        title = fields.get("title", "")
        if not title:
            _problem(bib, f"entry {entry.key!r} has no title", path, line, False, "title")
        bib.add(BibEntry(entry.key, title, fields, reference_ids(fields), str(path), line))
    return bib


_BBL_ENTRY = re.compile(r"\\entry\{([^}]*)\}\{([^}]*)\}(.*?)\\endentry", re.DOTALL)
_BBL_FIELD = re.compile(r"\\(?:field|verb)\{(title|doi|eprint|eprinttype|url|year|journaltitle|"
                        r"booktitle)\}")
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[(?:[^\[\]{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\])?\s*"
                      r"\{([^}]*)\}")
_URL_CMD = re.compile(r"\\(?:url|href)\{([^}]*)\}")


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _bbl_ids(fields: dict[str, str], text: str) -> tuple[str, ...]:
    ids = list(reference_ids(fields))
    kinds = {k.split(":", 1)[0] for k in ids}
    if "doi" not in kinds and re.search(r"doi", text, re.IGNORECASE):
        doi = clean_doi(text)
        if doi and (key := id_key("doi", doi)):
            ids.append(key)
    if "arxiv" not in kinds:
        found = arxiv_id_in_citation(text)
        if found and (key := id_key("arxiv", found)):
            ids.append(key)
    return tuple(dict.fromkeys(ids))


def read_bbl(path: str | Path, *, strict: bool = False) -> Bibliography:
    path = Path(path)
    text = _read(path)
    bib = Bibliography()
    entries = list(_BBL_ENTRY.finditer(text))
    for match in entries:                                   # biblatex
        body, fields = match.group(3), {}
        for fmatch in _BBL_FIELD.finditer(body):
            brace = body.find("{", fmatch.end())
            if brace == fmatch.end():
                value = braced(body, brace)
                fields[fmatch.group(1)] = latex_to_text(body[brace + 1:] if value is None
                                                        else value)
        if fields.get("eprinttype", "").lower() == "arxiv":
            fields["archiveprefix"] = "arXiv"
        line = _line_at(text, match.start())
        if not fields.get("title"):
            _problem(bib, f"entry {match.group(1)!r} has no title", path, line, False, "title")
        bib.add(BibEntry(match.group(1).strip(), fields.get("title", ""), fields,
                         _bbl_ids(fields, body), str(path), line))
    if entries:
        return bib
    items = list(_BIBITEM.finditer(text))                   # thebibliography
    for i, match in enumerate(items):
        end = items[i + 1].start() if i + 1 < len(items) else len(text)
        body = text[match.end():end]
        body = body.split("\\end{thebibliography}", 1)[0]
        urls = _URL_CMD.findall(body)
        blocks = [latex_to_text(b).strip() for b in re.split(r"\\newblock\b", body)]
        blocks = [b for b in blocks if b]
        title = blocks[1].rstrip(".,; ") if len(blocks) >= 2 else ""
        fields = {"title": title, "text": " ".join(blocks)}
        if urls:
            fields["url"] = urls[0]
        line = _line_at(text, match.start())
        if not title:
            _problem(bib, f"\\bibitem {match.group(1)!r}: no \\newblock title", path, line, False)
        bib.add(BibEntry(match.group(1).strip(), title, fields, _bbl_ids(fields, body),
                         str(path), line))
    return bib


def read_csl_json(path: str | Path, *, strict: bool = False) -> Bibliography:
    path = Path(path)
    try:
        items = json.loads(_read(path))
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg})", file=str(path), line=exc.lineno) from exc
    if not isinstance(items, list):
        raise DataError("a CSL-JSON bibliography is a list of items", file=str(path))
    bib = Bibliography()
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            _problem(bib, f"item [{i}] has no string 'id'", path, None, strict, f"[{i}].id")
            continue
        title = item.get("title") if isinstance(item.get("title"), str) else ""
        fields = {k.lower(): str(v) for k, v in item.items()
                  if isinstance(v, (str, int)) and not isinstance(v, bool)}
        url = fields.get("url", "")
        ids = [id_key("doi", fields.get("doi")), id_key("pmid", fields.get("pmid")),
               id_key("pmcid", fields.get("pmcid"))]
        if "arxiv.org/" in url.lower():
            ids.insert(0, id_key("arxiv", url))
        elif url.lower().startswith(("http://", "https://")) and not any(ids):
            ids.append(f"url:{url.strip()}")   # a web work (Manubot `url:` citations)
        bib.add(BibEntry(item["id"], " ".join(title.split()), fields,
                         tuple(dict.fromkeys(k for k in ids if k)), str(path), None))
    return bib


def read_bibliography(path: str | Path, *, strict: bool = False) -> Bibliography:
    """By extension: `.bib`, `.bbl`, `.json` (CSL-JSON)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".bib":
        return read_bibtex(path, strict=strict)
    if suffix == ".bbl":
        return read_bbl(path, strict=strict)
    if suffix == ".json":
        return read_csl_json(path, strict=strict)
    raise DataError("unknown bibliography format (expected .bib, .bbl or CSL .json)",
                    file=str(path))
