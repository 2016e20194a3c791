"""Ground truth from a survey's own source: the works cited in its main text.

`from_latex(main_tex)` and `from_markdown(files, bibliographies)` return a `SurveyGT`: one
`CitedWork` per distinct citation key, in order of first citation, each linked to its
bibliography entry (title, fields, ids) when one exists. `write_gt_jsonl` writes it in the
ReportBench GT format (`{bib_id, title, author, meta_info}`), so a survey of one's own can be
scored like the 100 shipped ones.

How a key finds its work:
1. Aliases first (Manubot `[@tag:Name]: doi:…` definitions; chains followed, cycles stop).
2. A key that is a persistent id (Manubot style: `doi:…`, `arxiv:…`, `pmid:…`, `pmcid:…`,
   `pmc:…`, `url:…`, `isbn:…`, `wikidata:…`) gets that id through the project's one resolver
   (`parse_id`); a `url:` whose URL is a DOI or arXiv URL becomes that id, any other stays
   `url:<the URL>` (a work without a paper id, kept as cited).
3. The bibliography entry: the entry whose key is the cited key (BibTeX, CSL `id`), else the
   entry holding the same id (Manubot bibliographies are keyed by short hashes, not by the
   cited keys). The entry's ids are added to the work's.
A cited key with neither an entry nor a persistent id is listed in `missing` (counted, and
still a work of the GT, without a title). Entries never cited are counted in `uncited`.

Two keys can name one work (`@tag:X` and `@doi:…` aliasing the same DOI, or two versions of
one arXiv id): `distinct_works()` merges works that share an id key.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from scholarbench.confine import keep_inside
from scholarbench.data.identifiers import parse_id
from scholarbench.benchmarks.reportbench.bibliography import Bibliography, read_bibliography
from scholarbench.benchmarks.reportbench.latex_cites import find_main_tex, latex_citations
from scholarbench.benchmarks.reportbench.pandoc_cites import Citation, aliases, citations
from scholarbench.errors import DataError
from scholarbench.files import read_regular_file

PERSISTENT = {"doi": "doi", "arxiv": "arxiv", "pmid": "pmid", "pubmed": "pmid",
              "pmcid": "pmcid", "pmc": "pmcid", "url": "url", "isbn": "isbn",
              "wikidata": "wikidata"}


def persistent_id(key: str) -> str | None:
    """The canonical id key of a Manubot-style citation key (`doi:10.1/X` -> `doi:10.1/x`,
    `arxiv:1411.2581v1` -> `arxiv:1411.2581`, `pmc:PMC1` -> `pmcid:PMC1`, `url:https://…`
    -> `arxiv:…`/`doi:…` for arXiv and doi.org URLs, else `url:https://…`); None otherwise."""
    prefix, sep, value = key.partition(":")
    kind = PERSISTENT.get(prefix.lower()) if sep else None
    if kind is None or not value.strip():
        return None
    value = value.strip()
    if kind == "url":
        parsed = parse_id(value)
        return str(parsed) if parsed.kind in ("doi", "arxiv") else f"url:{value}"
    if kind in ("isbn", "wikidata"):
        return f"{kind}:{value.replace('-', '').upper()}"
    spelled = {"doi": "doi:", "arxiv": "arXiv:", "pmid": "pmid:", "pmcid": "pmcid:"}[kind]
    parsed = parse_id(spelled + value)
    if parsed.kind == kind or (kind == "doi" and parsed.kind == "arxiv"):
        return str(parsed)
    return None


@dataclass
class CitedWork:
    key: str                     # the citation key as first cited
    target: str                  # after alias resolution (== key without alias)
    ids: tuple[str, ...]         # canonical id keys (from the key and from the entry)
    title: str = ""
    entry_key: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    first: tuple[str, int] = ("", 0)    # (file, line) of the first citation
    n_citations: int = 0


@dataclass
class SurveyGT:
    works: list[CitedWork]
    missing: list[str] = field(default_factory=list)    # keys without entry or persistent id
    nocite: list[str] = field(default_factory=list)
    uncited: int = 0                                    # bibliography entries never cited
    problems: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)    # files not read (`confine`)

    def keys(self) -> list[str]:
        return [w.key for w in self.works]

    def distinct_works(self) -> list[list[CitedWork]]:
        """Works grouped so that works sharing an id key are one group (first-cited order)."""
        parent = list(range(len(self.works)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        owner: dict[str, int] = {}
        for i, work in enumerate(self.works):
            for key in work.ids:
                if key in owner:
                    a, b = find(owner[key]), find(i)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
                else:
                    owner[key] = i
        groups: dict[int, list[CitedWork]] = {}
        for i, work in enumerate(self.works):
            groups.setdefault(find(i), []).append(work)
        return list(groups.values())

    def gt_lines(self) -> list[dict]:
        """ReportBench GT records, one per distinct work (first title found in the group)."""
        out = []
        for group in self.distinct_works():
            head = group[0]
            title = next((w.title for w in group if w.title), "")
            fields = next((w.fields for w in group if w.fields), {})
            meta = {k: v for k, v in fields.items() if k not in ("title", "author", "id")}
            for key in dict.fromkeys(k for w in group for k in w.ids):
                kind, _, value = key.partition(":")
                if kind == "doi":
                    meta.setdefault("doi", value)
                elif kind == "arxiv":
                    meta.setdefault("eprint", value)
                    meta.setdefault("archiveprefix", "arXiv")
            out.append({"bib_id": head.entry_key or head.key, "title": title,
                        "author": fields.get("author", ""), "meta_info": meta})
        return out


def resolve_alias(key: str, table: dict[str, str]) -> str:
    seen = {key}
    while key in table:
        key = table[key].strip()
        if key.startswith("@"):
            key = key[1:]
        if key in seen:
            break
        seen.add(key)
    return key


def build_gt(cites: Sequence[Citation], bibliography: Bibliography,
             alias_table: dict[str, str] | None = None, nocite: Iterable[str] = ()) -> SurveyGT:
    alias_table = alias_table or {}
    by_id = bibliography.by_id()
    works: dict[str, CitedWork] = {}
    for cite in cites:
        if cite.key in works:
            works[cite.key].n_citations += 1
            continue
        target = resolve_alias(cite.key, alias_table)
        ids = [k for k in (persistent_id(target),) if k]
        entry = bibliography.entries.get(target) or bibliography.entries.get(cite.key)
        if entry is None:
            entry_key = next((by_id[k] for k in ids if k in by_id), None)
            entry = bibliography.entries.get(entry_key) if entry_key else None
        work = CitedWork(cite.key, target, (), first=(cite.file, cite.line), n_citations=1)
        if entry is not None:
            ids += list(entry.ids)
            work.title, work.entry_key, work.fields = entry.title, entry.key, dict(entry.fields)
        work.ids = tuple(dict.fromkeys(ids))
        works[cite.key] = work
    cited_entries = {w.entry_key for w in works.values() if w.entry_key}
    return SurveyGT(list(works.values()),
                    missing=[w.key for w in works.values() if w.entry_key is None and not w.ids],
                    nocite=list(dict.fromkeys(nocite)),
                    uncited=sum(1 for k in bibliography.entries if k not in cited_entries),
                    problems=list(bibliography.problems))


def from_latex(main: str | Path, bib_files: Sequence[str | Path] | None = None,
               root: str | Path | None = None) -> SurveyGT:
    """GT of a LaTeX survey: `main` is the main .tex file or a folder (its main file is the
    one with `\\documentclass` and `\\begin{document}`). Bibliographies: `bib_files` when
    given; else the `.bib` files named by `\\bibliography{…}`/`\\addbibresource{…}` that exist;
    else every `.bib` in the folder; and the `.bbl` beside the main file when no `.bib` is
    found (arXiv sources often ship only the `.bbl`). Only files inside `root` (default: the
    folder given, or the main file's) are read (`scholarbench.confine`); the others are listed
    in `refused`."""
    main = Path(main)
    if main.is_dir():
        root = main if root is None else root
        found = find_main_tex(main)
        if found is None:
            raise DataError("no .tex file with \\documentclass and \\begin{document}",
                            file=str(main))
        main = found
    root = Path(main.parent if root is None else root)
    cites = latex_citations(main, root)
    problems = list(cites.problems)
    refused = list(cites.refused)
    if bib_files is None:
        files = [p for p in dict.fromkeys(cites.bib_files) if p.is_file()]
        problems += [f"{p}: named by \\bibliography but not found"
                     for p in dict.fromkeys(cites.bib_files) if not p.is_file()]
        if not files:
            files = keep_inside(root, sorted(main.parent.rglob("*.bib")), refused)
        if not files:
            files = keep_inside(root, [p for p in [main.with_suffix(".bbl")] if p.is_file()]
                             or sorted(main.parent.glob("*.bbl")), refused)
    else:
        files = [Path(p) for p in bib_files]
    bib = Bibliography()
    for path in files:
        bib.merge(read_bibliography(path))
    gt = build_gt(cites.citations, bib, nocite=cites.nocite)
    gt.problems = problems + gt.problems
    gt.refused = list(dict.fromkeys(refused))
    if not files:
        gt.problems.append(f"{main.parent}: no .bib or .bbl bibliography found")
    return gt


def from_markdown(files: Sequence[str | Path], bibliographies: Sequence[str | Path] = ()
                  ) -> SurveyGT:
    """GT of a Pandoc Markdown survey: citations of `files` (in order; aliases from any of
    them), linked to entries of `bibliographies` (CSL-JSON, BibTeX or .bbl)."""
    cites: list[Citation] = []
    table: dict[str, str] = {}
    for path in files:
        path = Path(path)
        text = read_regular_file(path)
        cites += citations(text, str(path))
        for key, target in aliases(text).items():
            table.setdefault(key, target)
    bib = Bibliography()
    for path in bibliographies:
        bib.merge(read_bibliography(path))
    return build_gt(cites, bib, table)


def write_gt_jsonl(gt: SurveyGT, path: str | Path) -> tuple[int, int]:
    """Write `gt` in the ReportBench GT format, one line per distinct work that has a title;
    returns (lines written, works left out for having no title). Titles are what ReportBench
    matches on, and its GT files never hold an untitled line."""
    lines = gt.gt_lines()
    titled = [r for r in lines if r["title"]]
    Path(path).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in titled),
                          encoding="utf-8")
    return len(titled), len(lines) - len(titled)
