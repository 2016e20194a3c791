"""The deep-review sources (greenelab/deep-review, Manubot): a real review and its bibliography.

- `output/references.json`: CSL-JSON, one item per cited work (`id` = Manubot short id, `title`,
  `DOI`, `URL` (arxiv.org -> arXiv id), `PMID`, `PMCID`, `issued`, `abstract`) -> papers.
- `output/citations.tsv`: `input_id, dealiased_id, standard_id, short_id`, one row per citation
  key -> one edge review -> cited work (the CSL item with that short id, plus the row's
  `standard_id`: doi / arxiv / pmc; `url:` ids are not paper ids and are left out).
- `content/metadata.yaml` (`title:` line, "[update in progress]" dropped) and
  `content/00.front-matter.md` (the published version's doi.org link and "from 04 April 2018"
  date) -> the review itself, a survey (source `deep-review`, `is_survey` True).
- `output/manuscript.md`: the built manuscript -> paragraphs of the review, from `## Abstract`
  up to `## References`; a paragraph is a block of non-blank lines (headings set the section;
  figure, table and HTML lines are skipped); `cited` are its `[@key]` citations, mapped through
  citations.tsv's `input_id`.
"""
from __future__ import annotations

import csv
import re
from datetime import datetime
from pathlib import Path
from typing import Iterator

from scholarbench.data.sources._io import clean_title, read_json
from scholarbench.data.sources.dates import csl_date
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.records import (EdgeRecord, PaperRecord, ParagraphRecord, Record,
                                               Ref)
from scholarbench.errors import DataError

SOURCE = "deep-review"
REFERENCES = Path("output/references.json")
CITATIONS = Path("output/citations.tsv")
MANUSCRIPT = Path("output/manuscript.md")
METADATA = Path("content/metadata.yaml")
FRONT_MATTER = Path("content/00.front-matter.md")
TSV_COLUMNS = ("input_id", "dealiased_id", "standard_id", "short_id")

_TITLE = re.compile(r'^title:\s*(["\']?)(.*)\1\s*$')
_BRACKETED = re.compile(r"\s*\[[^\]]*\]\s*$")
_PUBLISHED = re.compile(r"published version of this manuscript from (\d{1,2} \w+ \d{4})"
                        r".*?<?https?://doi\.org/([^\s>]+)>?", re.IGNORECASE | re.DOTALL)
_CITE_GROUP = re.compile(r"\[(@[^\]]+)\]")
_CITE_KEY = re.compile(r"@([A-Za-z]+:[^\s;,\]]+)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(\{[^}]*\})?\s*$")
_SKIP_BLOCK = ("![", "<", "|", "Table:", ":::")


def standard_key(standard_id: str) -> str | None:
    kind, _, value = standard_id.partition(":")
    kind = {"doi": "doi", "arxiv": "arxiv", "pmc": "pmcid", "pmcid": "pmcid",
            "pubmed": "pmid", "pmid": "pmid"}.get(kind.lower())
    return id_key(kind, value) if kind else None


def _item_record(item: object, path: Path, i: int) -> tuple[str, PaperRecord]:
    field = f"[{i}]"
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise DataError("a CSL item needs a string 'id'", file=str(path), field=field + ".id")
    title = item.get("title") or ""
    abstract = item.get("abstract") or ""
    if not isinstance(title, str) or not isinstance(abstract, str):
        raise DataError("title and abstract must be strings", file=str(path),
                        field=f"{field}.title")
    url = item.get("URL") if isinstance(item.get("URL"), str) else ""
    keys = [id_key("doi", item.get("DOI")), id_key("pmid", item.get("PMID")),
            id_key("pmcid", item.get("PMCID"))]
    if "arxiv.org/" in url.lower():
        keys.insert(0, id_key("arxiv", url))
    year, published = csl_date(item.get("issued"))
    return item["id"], PaperRecord(SOURCE, tuple(dict.fromkeys(k for k in keys if k)),
                                   clean_title(title), abstract.strip(), year, published)


def _review(folder: Path) -> PaperRecord | None:
    meta = folder / METADATA
    if not meta.is_file():
        return None
    title = ""
    for line in meta.read_text(encoding="utf-8").splitlines():
        match = _TITLE.match(line)
        if match:
            title = _BRACKETED.sub("", match.group(2)).strip()
            break
    if not title:
        raise DataError("no 'title:' line", file=str(meta), field="title")
    keys, published = [], None
    front = folder / FRONT_MATTER
    if front.is_file():
        match = _PUBLISHED.search(front.read_text(encoding="utf-8"))
        if match:
            published = datetime.strptime(match.group(1), "%d %B %Y").date()
            keys.append(id_key("doi", match.group(2)))
    return PaperRecord(SOURCE, tuple(k for k in keys if k), clean_title(title), "",
                       published.year if published else None, published, True)


def _tsv(path: Path) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from exc
    if not rows or tuple(rows[0]) != TSV_COLUMNS:
        raise DataError(f"header must be {TSV_COLUMNS}", file=str(path), line=1)
    out = []
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(TSV_COLUMNS):
            raise DataError(f"expected {len(TSV_COLUMNS)} tab-separated fields", file=str(path),
                            line=lineno)
        out.append((lineno, dict(zip(TSV_COLUMNS, row))))
    return out


def _paragraphs(path: Path, review: Ref, cite: dict[str, Ref]) -> Iterator[ParagraphRecord]:
    lines = path.read_text(encoding="utf-8").splitlines()
    inside, section, block, pos = False, "", [], 0

    def flush() -> Iterator[ParagraphRecord]:
        nonlocal pos
        text = "\n".join(block).strip()
        block.clear()
        if not inside or not text or text.startswith(_SKIP_BLOCK):
            return
        keys = [k for group in _CITE_GROUP.findall(text) for k in _CITE_KEY.findall(group)]
        cited = tuple(dict.fromkeys(cite[k] for k in keys if k in cite))
        yield ParagraphRecord(SOURCE, review, section, pos, text, cited)
        pos += 1

    for line in lines:
        heading = _HEADING.match(line)
        if heading:
            yield from flush()
            name = heading.group(2).strip()
            if heading.group(1) == "##":
                if name.lower() == "abstract":
                    inside = True
                elif name.lower() == "references":
                    inside = False
            section = name
        elif not line.strip():
            yield from flush()
        else:
            block.append(line)
    yield from flush()


def read_deep_review(folder: Path) -> Iterator[Record]:
    ref_path = folder / REFERENCES
    items = read_json(ref_path)
    if not isinstance(items, list):
        raise DataError("need a CSL-JSON list", file=str(ref_path))
    by_short: dict[str, PaperRecord] = {}
    for i, item in enumerate(items):
        short, record = _item_record(item, ref_path, i)
        by_short[short] = record
        if record.title or record.ids:
            yield record
    review = _review(folder)
    if review is not None:
        yield review
    tsv = folder / CITATIONS
    if not tsv.is_file():
        return
    by_input: dict[str, Ref] = {}
    cited_once: dict[str, Ref] = {}
    for _, row in _tsv(tsv):
        record = by_short.get(row["short_id"])
        std = standard_key(row["standard_id"])
        keys = tuple(dict.fromkeys(([std] if std else []) + list(record.ids if record else ())))
        ref = Ref(keys, record.title if record else "", record.year if record else None)
        by_input[row["input_id"]] = ref
        cited_once.setdefault(row["short_id"], ref)
    if review is None:
        return
    for ref in cited_once.values():
        yield EdgeRecord(SOURCE, review.ref(), ref)
    manuscript = folder / MANUSCRIPT
    if manuscript.is_file():
        yield from _paragraphs(manuscript, review.ref(), by_input)
