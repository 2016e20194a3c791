"""OpenAlex Work records: single Works (`GET /works/W…`), API list pages (`{meta, results}`)
and bulk-snapshot JSON lines (`*.jsonl[.gz]`, one Work per line).

A Work gives `id` (the W-id, short or as URL), `doi`, `title` (else `display_name`), the
abstract as `abstract_inverted_index` (token -> positions; rebuilt as the tokens in position
order joined by single spaces), `publication_year`, `publication_date`, `ids` (mag, pmid,
pmcid) and `referenced_works` (W-ids: one edge each). `type == "review"` (OpenAlex's review
article type) marks a survey.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from scholarbench.data.sources._io import clean_title, read_json, read_jsonl
from scholarbench.data.sources.dates import parse_date, parse_year
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.records import EdgeRecord, PaperRecord, Record, Ref
from scholarbench.errors import DataError

SOURCE = "openalex"


def abstract_from_inverted_index(index: object, *, file: Path, line: int | None,
                                 field: str) -> str:
    if index is None:
        return ""
    if not isinstance(index, dict):
        raise DataError("need an object of token -> positions", file=str(file), line=line,
                        field=field)
    slots: dict[int, str] = {}
    for token, positions in index.items():
        if not isinstance(positions, list) or not all(
                isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in positions):
            raise DataError("positions must be a list of non-negative integers",
                            file=str(file), line=line, field=f"{field}[{token!r}]")
        for pos in positions:
            slots[pos] = token
    return " ".join(slots[p] for p in sorted(slots))


def _tail(url: object) -> object:
    return url.rstrip("/").rsplit("/", 1)[-1] if isinstance(url, str) else url


def work_records(work: object, *, file: Path, line: int | None, field: str = "") -> list[Record]:
    if not isinstance(work, dict):
        raise DataError("a Work must be an object", file=str(file), line=line, field=field or None)
    pre = f"{field}." if field else ""
    wid = id_key("openalex", work.get("id"))
    if wid is None:
        raise DataError(f"not an OpenAlex Work id: {work.get('id')!r}", file=str(file),
                        line=line, field=pre + "id")
    extra = work.get("ids") if isinstance(work.get("ids"), dict) else {}
    keys = [wid, id_key("doi", work.get("doi")), id_key("mag", extra.get("mag")),
            id_key("pmid", _tail(extra.get("pmid"))), id_key("pmcid", _tail(extra.get("pmcid")))]
    title = work.get("title") or work.get("display_name") or ""
    if not isinstance(title, str):
        raise DataError("need a string", file=str(file), line=line, field=pre + "title")
    abstract = abstract_from_inverted_index(work.get("abstract_inverted_index"), file=file,
                                            line=line, field=pre + "abstract_inverted_index")
    published = parse_date(work.get("publication_date"))
    year = parse_year(work.get("publication_year")) or (published.year if published else None)
    paper = PaperRecord(SOURCE, tuple(dict.fromkeys(k for k in keys if k)), clean_title(title),
                        abstract, year, published, True if work.get("type") == "review" else None)
    out: list[Record] = [paper]
    refs = work.get("referenced_works") or []
    if not isinstance(refs, list):
        raise DataError("need a list", file=str(file), line=line, field=pre + "referenced_works")
    for i, ref in enumerate(refs):
        key = id_key("openalex", ref)
        if key is None:
            raise DataError(f"not an OpenAlex Work id: {ref!r}", file=str(file), line=line,
                            field=f"{pre}referenced_works[{i}]")
        out.append(EdgeRecord(SOURCE, paper.ref(), Ref((key,))))
    return out


def openalex_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.name.endswith((".json", ".jsonl", ".jsonl.gz")) and p.is_file())


def read_openalex(folder: Path) -> Iterator[Record]:
    files = openalex_files(folder)
    if not files:
        raise DataError("no OpenAlex *.json / *.jsonl[.gz] file", file=str(folder))
    for path in files:
        for _, line, field, work in work_objects(path):
            yield from work_records(work, file=path, line=line, field=field)


def work_objects(path: Path) -> Iterator[tuple[int, int | None, str, object]]:
    """(record, line, field, Work object) for each Work of one file: a JSON-lines file gives one
    per line (record = line); an API page `{meta, results}` one per result (record = its 0-based
    position, field `results[i]`); any other JSON file is one Work (record 0)."""
    if path.name.endswith(".json"):
        data = read_json(path)
        if isinstance(data, dict) and "results" in data:
            results = data["results"]
            if not isinstance(results, list):
                raise DataError("need a list of Works", file=str(path), field="results")
            for i, work in enumerate(results):
                yield i, None, f"results[{i}]", work
        else:
            yield 0, None, "", data
    else:
        for line, obj in read_jsonl(path):
            yield line, line, "", obj
