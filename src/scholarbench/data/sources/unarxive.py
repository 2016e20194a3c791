"""unarXive 2022 (`arXiv_src_*.jsonl[.gz]`): full-text arXiv papers with citation markers.

Per paper (see `data_format-upstream.md`): `paper_id` (arXiv id), `metadata` (the arXiv OAI
record: title, abstract, doi, categories, versions), `body_text` (paragraphs: section,
content_type, text with `{{cite:<key>}}` markers, `cite_spans[{ref_id}]`), `bib_entries`
(key -> {bib_entry_raw, contained_arXiv_ids[{id}], ids{open_alex_id, doi, arxiv_id, pubmed_id,
pmc_id}}).

Yields the paper; one edge to every bibliography entry (entries carry ids but no title, so
an entry that matches no corpus paper stays an unresolved edge); one paragraph per non-empty
`body_text` item (all content types: paragraph, list, proof), text verbatim with its markers,
`position` its index in `body_text`, `cited` the entries its `cite_spans` point to, in order.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from scholarbench.data.sources._io import clean_title, need_str, read_jsonl
from scholarbench.data.sources.dates import parse_date
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.records import (EdgeRecord, PaperRecord, ParagraphRecord, Record,
                                               Ref)
from scholarbench.errors import DataError

SOURCE = "unarxive"
_BIB_IDS = (("arxiv_id", "arxiv"), ("doi", "doi"), ("open_alex_id", "openalex"),
            ("pmc_id", "pmcid"), ("pubmed_id", "pmid"))


def unarxive_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.jsonl*") if p.name.endswith((".jsonl", ".jsonl.gz")))


def _bib_ref(entry: object, *, file: Path, line: int, field: str) -> Ref:
    if not isinstance(entry, dict):
        raise DataError("need an object", file=str(file), line=line, field=field)
    keys = []
    ids = entry.get("ids") or {}
    if not isinstance(ids, dict):
        raise DataError("need an object", file=str(file), line=line, field=f"{field}.ids")
    for name, kind in _BIB_IDS:
        keys.append(id_key(kind, ids.get(name)))
    for i, item in enumerate(entry.get("contained_arXiv_ids") or []):
        if not isinstance(item, dict):
            raise DataError("need an object", file=str(file), line=line,
                            field=f"{field}.contained_arXiv_ids[{i}]")
        keys.append(id_key("arxiv", item.get("id")))
    return Ref(tuple(dict.fromkeys(k for k in keys if k)))


def _paper(obj: dict, path: Path, line: int) -> PaperRecord:
    pid = need_str(obj, "paper_id", file=path, line=line)
    arxiv = id_key("arxiv", pid)
    if arxiv is None:
        raise DataError(f"not an arXiv id: {pid!r}", file=str(path), line=line, field="paper_id")
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        raise DataError("need an object", file=str(path), line=line, field="metadata")
    title = clean_title(need_str(meta, "title", file=path, line=line, prefix="metadata."))
    abstract = need_str(meta, "abstract", file=path, line=line, optional=True,
                        prefix="metadata.")
    doi = id_key("doi", need_str(meta, "doi", file=path, line=line, optional=True,
                                 prefix="metadata."))
    categories = need_str(meta, "categories", file=path, line=line, optional=True,
                          prefix="metadata.").split()
    versions = meta.get("versions") or []
    published = (parse_date(versions[0].get("created"))
                 if isinstance(versions, list) and versions and isinstance(versions[0], dict)
                 else None)
    return PaperRecord(SOURCE, tuple(k for k in (arxiv, doi) if k), title, abstract,
                       published.year if published else None, published, None,
                       categories[0] if categories else None)


def read_unarxive(folder: Path) -> Iterator[Record]:
    files = unarxive_files(folder)
    if not files:
        raise DataError("no unarXive arXiv_src_*.jsonl[.gz] file", file=str(folder))
    for path in files:
        for line, obj in read_jsonl(path):
            paper = _paper(obj, path, line)
            yield paper
            me = paper.ref()
            bib = obj.get("bib_entries") or {}
            if not isinstance(bib, dict):
                raise DataError("need an object", file=str(path), line=line, field="bib_entries")
            refs = {key: _bib_ref(entry, file=path, line=line, field=f"bib_entries[{key!r}]")
                    for key, entry in bib.items()}
            for ref in refs.values():
                yield EdgeRecord(SOURCE, me, ref)
            body = obj.get("body_text") or []
            if not isinstance(body, list):
                raise DataError("need a list", file=str(path), line=line, field="body_text")
            for pos, para in enumerate(body):
                field = f"body_text[{pos}]"
                if not isinstance(para, dict):
                    raise DataError("need an object", file=str(path), line=line, field=field)
                text = need_str(para, "text", file=path, line=line, prefix=field + ".")
                if not text:
                    continue
                section = need_str(para, "section", file=path, line=line, optional=True,
                                   prefix=field + ".")
                cited = []
                for j, span in enumerate(para.get("cite_spans") or []):
                    ref_id = span.get("ref_id") if isinstance(span, dict) else None
                    if ref_id not in refs:
                        raise DataError(f"cite span points to no bib entry: {ref_id!r}",
                                        file=str(path), line=line,
                                        field=f"{field}.cite_spans[{j}].ref_id")
                    cited.append(ref_id)
                yield ParagraphRecord(SOURCE, me, section, pos, text,
                                      tuple(refs[k] for k in dict.fromkeys(cited)))
