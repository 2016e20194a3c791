"""Semantic Scholar Academic Graph bulk datasets (one folder per dataset, `*.jsonl[.gz]`).

- `papers/`: corpusid, externalids {DOI, ArXiv, MAG, PubMed, PubMedCentral, ...}, url (holds the
  paper sha), title, year, publicationdate -> papers.
- `abstracts/`: corpusid, openaccessinfo.externalids, abstract -> id-only records that add an
  abstract to the paper with that corpus id (no title of their own).
- `paper-ids/`: sha, corpusid -> id-only records linking the two ids.
- `citations/`: citingcorpusid, citedcorpusid (may be null), contexts -> an edge; each context
  sentence becomes a paragraph of the citing paper (section "citation context", `position`
  counting the citing paper's contexts in file order) citing the cited paper.
- `s2orc/`: corpusid, externalids, content {text, annotations (JSON-encoded span lists)} ->
  the paper (title and abstract spans), its paragraphs (section = the last section header
  before the paragraph, `position` = paragraph index, `cited` = the bib entries its `bibref`
  spans point to), and one edge per bib entry (its `matched_paper_id` corpus id and the
  `bibtitle` span's text as title).

Other S2AG datasets (authors, tldrs, publication-venues, embeddings) carry no paper data the
corpus stores and are not read.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from scholarbench.data.sources._io import clean_title, need_str, read_jsonl
from scholarbench.data.sources.dates import parse_date, parse_year
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.records import (EdgeRecord, PaperRecord, ParagraphRecord, Record,
                                               Ref)
from scholarbench.errors import DataError

SOURCE = "s2ag"
DATASETS = ("papers", "abstracts", "paper-ids", "citations", "s2orc")
_EXTERNAL = (("doi", "doi"), ("arxiv", "arxiv"), ("mag", "mag"), ("pubmed", "pmid"),
             ("pubmedcentral", "pmcid"))
_SHA = re.compile(r"/paper/(?:[^/]+/)?([0-9a-f]{40})$")


def _files(folder: Path, dataset: str) -> list[Path]:
    sub = folder / dataset
    if not sub.is_dir():
        return []
    return sorted(p for p in sub.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))


def _corpus_key(value: object, *, file: Path, line: int, field: str,
                optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    key = id_key("s2corpus", value) if isinstance(value, (int, str)) else None
    if key is None:
        raise DataError(f"not a corpus id: {value!r}", file=str(file), line=line, field=field)
    return key


def _external(ids: object, *, file: Path, line: int, field: str) -> list[str]:
    if ids is None:
        return []
    if not isinstance(ids, dict):
        raise DataError("need an object", file=str(file), line=line, field=field)
    lower = {str(k).lower(): v for k, v in ids.items()}
    return [k for k in (id_key(kind, lower.get(name)) for name, kind in _EXTERNAL) if k]


def _papers(path: Path) -> Iterator[Record]:
    for line, obj in read_jsonl(path):
        keys = [_corpus_key(obj.get("corpusid"), file=path, line=line, field="corpusid")]
        url = obj.get("url")
        match = _SHA.search(url) if isinstance(url, str) else None
        if match:
            keys.append(id_key("s2", match.group(1)))
        keys += _external(obj.get("externalids"), file=path, line=line, field="externalids")
        title = clean_title(need_str(obj, "title", file=path, line=line, optional=True))
        published = parse_date(obj.get("publicationdate"))
        yield PaperRecord(SOURCE, tuple(dict.fromkeys(k for k in keys if k)), title, "",
                          parse_year(obj.get("year")), published)


def _abstracts(path: Path) -> Iterator[Record]:
    for line, obj in read_jsonl(path):
        keys = [_corpus_key(obj.get("corpusid"), file=path, line=line, field="corpusid")]
        info = obj.get("openaccessinfo") or {}
        if isinstance(info, dict):
            keys += _external(info.get("externalids"), file=path, line=line,
                              field="openaccessinfo.externalids")
        abstract = need_str(obj, "abstract", file=path, line=line, optional=True)
        yield PaperRecord(SOURCE, tuple(dict.fromkeys(k for k in keys if k)), "", abstract)


def _paper_ids(path: Path) -> Iterator[Record]:
    for line, obj in read_jsonl(path):
        sha = id_key("s2", obj.get("sha"))
        if sha is None:
            raise DataError(f"not a paper sha: {obj.get('sha')!r}", file=str(path), line=line,
                            field="sha")
        corpus = _corpus_key(obj.get("corpusid"), file=path, line=line, field="corpusid")
        yield PaperRecord(SOURCE, (sha, corpus))


def _citations(path: Path) -> Iterator[Record]:
    seen: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        citing = _corpus_key(obj.get("citingcorpusid"), file=path, line=line,
                             field="citingcorpusid")
        cited = _corpus_key(obj.get("citedcorpusid"), file=path, line=line,
                            field="citedcorpusid", optional=True)
        citing_ref, cited_ref = Ref((citing,)), Ref((cited,) if cited else ())
        yield EdgeRecord(SOURCE, citing_ref, cited_ref)
        contexts = obj.get("contexts") or []
        if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
            raise DataError("need a list of strings", file=str(path), line=line,
                            field="contexts")
        for text in contexts:
            if text.strip():
                pos = seen.get(citing, 0)
                seen[citing] = pos + 1
                yield ParagraphRecord(SOURCE, citing_ref, "citation context", pos, text.strip(),
                                      (cited_ref,))


def _spans(annotations: dict, name: str, *, file: Path, line: int) -> list[dict]:
    raw = annotations.get(name)
    if raw is None:
        return []
    try:
        spans = json.loads(raw) if isinstance(raw, str) else raw
        if not isinstance(spans, list):
            raise ValueError("not a list")
        out = []
        for span in spans:
            start, end = int(span["start"]), int(span["end"])
            out.append({"start": start, "end": end, "attributes": span.get("attributes") or {}})
        return sorted(out, key=lambda s: (s["start"], s["end"]))
    except (ValueError, TypeError, KeyError) as exc:
        raise DataError(f"malformed span list ({exc})", file=str(file), line=line,
                        field=f"content.annotations.{name}") from exc


def _s2orc(path: Path) -> Iterator[Record]:
    for line, obj in read_jsonl(path):
        keys = [_corpus_key(obj.get("corpusid"), file=path, line=line, field="corpusid")]
        keys += _external(obj.get("externalids"), file=path, line=line, field="externalids")
        content = obj.get("content")
        if not isinstance(content, dict) or not isinstance(content.get("text"), str):
            raise DataError("need an object with a string 'text'", file=str(path), line=line,
                            field="content")
        text, ann = content["text"], content.get("annotations") or {}
        if not isinstance(ann, dict):
            raise DataError("need an object", file=str(path), line=line,
                            field="content.annotations")

        def span_text(span: dict) -> str:
            return text[span["start"]:span["end"]]

        def spans(name: str) -> list[dict]:
            return _spans(ann, name, file=path, line=line)

        titles = spans("title")
        abstracts = spans("abstract")
        paper = PaperRecord(SOURCE, tuple(dict.fromkeys(keys)),
                            clean_title(span_text(titles[0])) if titles else "",
                            span_text(abstracts[0]).strip() if abstracts else "")
        yield paper
        me = paper.ref()
        bibtitles = spans("bibtitle")
        refs: dict[str, Ref] = {}
        for entry in spans("bibentry"):
            attrs = entry["attributes"]
            bib_id = attrs.get("id")
            if not isinstance(bib_id, str):
                continue
            matched = attrs.get("matched_paper_id")
            title = next((span_text(t) for t in bibtitles
                          if entry["start"] <= t["start"] < entry["end"]), "")
            key = id_key("s2corpus", matched) if matched is not None else None
            refs[bib_id] = Ref((key,) if key else (), clean_title(title))
        for ref in refs.values():
            yield EdgeRecord(SOURCE, me, ref)
        headers = spans("sectionheader")
        bibrefs = spans("bibref")
        for pos, para in enumerate(spans("paragraph")):
            body = span_text(para).strip()
            if not body:
                continue
            section = ""
            for header in headers:
                if header["start"] < para["start"]:
                    section = clean_title(span_text(header))
            cited = [b["attributes"].get("ref_id") for b in bibrefs
                     if para["start"] <= b["start"] < para["end"]]
            cited_refs = tuple(refs[c] for c in dict.fromkeys(cited) if c in refs)
            yield ParagraphRecord(SOURCE, me, section, pos, body, cited_refs)


_READERS = {"papers": _papers, "abstracts": _abstracts, "paper-ids": _paper_ids,
            "citations": _citations, "s2orc": _s2orc}


def read_s2ag(folder: Path) -> Iterator[Record]:
    found = False
    for dataset in DATASETS:
        for path in _files(folder, dataset):
            found = True
            yield from _READERS[dataset](path)
    if not found:
        raise DataError(f"no S2AG dataset folder with *.jsonl[.gz] ({', '.join(DATASETS)})",
                        file=str(folder))
