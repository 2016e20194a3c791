"""A paper of unarXive 2022 (full text with linked references) as a survey source.

SOURCE forms (`build`):
- `unarxive:PATH#ID`: the paper with arXiv id ID in PATH (an `arXiv_src_*.jsonl[.gz]` file or a
  folder of them); what `unarxive_source` turns the two forms below into, and what the Python
  API `read_source` reads;
- an arXiv id (`2212.11774`, `arxiv:2212.11774`) or a corpus paper id with `--unarxive DIR`,
  else the folder the corpus was built from (its manifest's `inputs.unarxive`), else the data
  dir's imported `unarxive`. A corpus id resolves through the corpus to the paper's arXiv id.

The paper is read into the `SurveyDoc` the Markdown and LaTeX readers give, so every builder
works on it unchanged:
- sections: `body_text` paragraphs in order; a new heading where a paragraph's (section,
  sec_number, sec_type) differs from the previous one's; the level from `sec_type` (section,
  subsection, … as LaTeX's, `sec_number` is not used: unarXive numbers subsections "1", "2"
  under every section); a heading equal to one open above it continues it. Citation markers in
  a heading (`BLUiR {{cite:…}}`) are cited by that heading and left out of its title;
- citations: the `{{cite:KEY}}` markers (`cite_spans`) in reading order; each bibliography
  entry is one `CitedWork` keyed by its entry key, with the entry's linked ids (`ids`: DOI,
  arXiv, OpenAlex, PubMed, PMC; `contained_arXiv_ids`) read as the corpus importer reads them
  (`data.sources.unarxive`). unarXive entries have no title field: the title is taken from the
  reference string (`title_of`), else left empty (the corpus title when the work resolves);
- text: paragraphs with markers replaced (a citation by `[n]`, n its work's first-citation
  number; a formula by its LaTeX; figure and table markers dropped);
- tables: none. unarXive keeps a table's caption only, not its cells, so DeepSynth-Eval gets
  no Structure Anchor from it;
- title and abstract: the arXiv metadata's.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.reportbench.survey_gt import CitedWork, SurveyGT
from scholarbench.builder.source import LATEX_LEVELS, Section, SurveyDoc, _drop_excluded
from scholarbench.data.sources._io import read_jsonl
from scholarbench.data.sources.keys import id_key
from scholarbench.data.sources.unarxive import _bib_ref, unarxive_files
from scholarbench.errors import DataError

PREFIX = "unarxive:"
_MARKER = re.compile(r"\{\{(cite|formula|figure|table|[a-z]+):([^}]*)\}\}")
_QUOTED = re.compile(r"[“\"]([^”\"]{8,}?)[,.]?[”\"]|``(.{8,}?)[,.]?''")
_AFTER_YEAR = re.compile(r"(?:\(\s*(?:19|20)\d\d[a-z]?\s*\)|\b(?:19|20)\d\d[a-z]?)\.\s+"
                         r"([^.?!]{8,}[?!]?)(?:\.|$)")


def title_of(raw: str) -> str:
    """The title inside a reference string: quoted (IEEE, ACM: `“Title,”`), else the sentence
    after the year (ACL, APA: `Authors. 2021. Title. In …`); "" when neither is there (physics
    styles often give no title at all)."""
    text = " ".join(raw.split())
    match = _QUOTED.search(text)
    if match:
        return (match.group(1) or match.group(2)).strip(" ,.")
    match = _AFTER_YEAR.search(text)
    return match.group(1).strip(" ,.") if match else ""


def parse_spec(source: str) -> tuple[Path, str] | None:
    """(path, arXiv key) of an `unarxive:PATH#ID` source, None for any other source."""
    if not source.startswith(PREFIX):
        return None
    path, sep, ident = source[len(PREFIX):].rpartition("#")
    key = id_key("arxiv", ident) if sep else None
    if not path or key is None:
        raise DataError("an unarXive source is unarxive:FILE_OR_FOLDER#ARXIV_ID", file=source)
    return Path(path), key


def find_paper(path: Path, key: str) -> tuple[Path, int, dict] | None:
    """(file, line, paper object) of arXiv key `key` in an unarXive file or folder."""
    if not path.exists():
        raise DataError("no such file or folder", file=str(path))
    files = [path] if path.is_file() else unarxive_files(path)
    for file in files:
        for line, obj in read_jsonl(file):
            if id_key("arxiv", obj.get("paper_id")) == key:
                return file, line, obj
    return None


def read_unarxive_source(source: str) -> SurveyDoc:
    """The `unarxive:PATH#ID` source as a `SurveyDoc` (module docstring)."""
    spec = parse_spec(source)
    assert spec is not None
    found = find_paper(*spec)
    if found is None:
        raise DataError(f"no paper {spec[1]} in the unArXive data", file=str(spec[0]))
    return paper_doc(*found)


def _text(obj: Any, file: Path, line: int, field: str) -> str:
    if obj is None:
        return ""
    if not isinstance(obj, str):
        raise DataError("need a string", file=str(file), line=line, field=field)
    return obj


def paper_doc(file: Path, line: int, obj: dict) -> SurveyDoc:
    """One unarXive paper object (read from `file`, `line`) as a `SurveyDoc`."""
    bib = obj.get("bib_entries") or {}
    if not isinstance(bib, dict):
        raise DataError("need an object", file=str(file), line=line, field="bib_entries")
    refs = obj.get("ref_entries") or {}
    body = obj.get("body_text") or []
    if not isinstance(body, list):
        raise DataError("need a list", file=str(file), line=line, field="body_text")
    works: dict[str, CitedWork] = {}
    number: dict[str, int] = {}

    def cite(key: str, where: str) -> str:
        if key not in bib:
            raise DataError(f"citation of no bib entry: {key!r}", file=str(file), line=line,
                            field=where)
        if key not in works:
            entry = bib[key]
            ref = _bib_ref(entry, file=file, line=line, field=f"bib_entries[{key!r}]")
            raw = _text(entry.get("bib_entry_raw"), file, line,
                        f"bib_entries[{key!r}].bib_entry_raw")
            title = title_of(raw)
            works[key] = CitedWork(key, key, ref.keys, title, entry_key=key,
                                   fields={"title": title, "note": " ".join(raw.split())},
                                   first=(str(file), line))
            number[key] = len(number) + 1
        works[key].n_citations += 1
        return f"[{number[key]}]"

    def render(text: str, where: str, keys: list[str], heading: bool = False) -> str:
        def swap(m: re.Match) -> str:
            kind, ref = m.group(1), m.group(2)
            if kind == "cite":
                keys.append(ref)
                number = cite(ref, where)
                return "" if heading else number
            entry = refs.get(ref) if isinstance(refs, dict) else None
            if kind == "formula" and isinstance(entry, dict) and entry.get("latex"):
                return f"${entry['latex']}$"
            return ""
        return " ".join(_MARKER.sub(swap, text).split())

    roots: list[Section] = []
    stack: list[tuple[tuple[str, str, str], Section]] = []
    unsectioned: list[str] = []
    current: tuple[str, str, str] | None = None
    texts: dict[int, list[str]] = {}
    for pos, para in enumerate(body):
        where = f"body_text[{pos}]"
        if not isinstance(para, dict):
            raise DataError("need an object", file=str(file), line=line, field=where)
        name = _text(para.get("section"), file, line, where + ".section").strip()
        head = (name, str(para.get("sec_number") or ""), str(para.get("sec_type") or "section"))
        if name and head != current:
            open_keys = [k for k, _ in stack]
            if head in open_keys:                       # back in a heading still open above
                del stack[open_keys.index(head) + 1:]
            else:
                keys: list[str] = []
                title = render(name, where + ".section", keys, heading=True)
                level = LATEX_LEVELS.get(head[2], LATEX_LEVELS["section"])
                node = Section(title or name, level, keys=keys,
                               where=f"{file}:{line}:{where}")
                while stack and stack[-1][1].level >= level:
                    stack.pop()
                (stack[-1][1].children if stack else roots).append(node)
                stack.append((head, node))
        current = head if name else current
        keys = []
        text = render(_text(para.get("text"), file, line, where + ".text"), where + ".text",
                      keys)
        if stack and name:
            stack[-1][1].keys.extend(keys)
            texts.setdefault(id(stack[-1][1]), []).append(text)
        else:
            unsectioned.extend(keys)
    for top in roots:
        for _, node in top.walk():
            node.text = "\n\n".join(t for t in texts.get(id(node), []) if t)
    sections, excluded = _drop_excluded(roots)
    cited = set(works)
    gt = SurveyGT(list(works.values()), uncited=sum(1 for k in bib if k not in cited))
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    title = " ".join(_text(meta.get("title"), file, line, "metadata.title").split())
    abstract = " ".join(_text(meta.get("abstract"), file, line, "metadata.abstract").split())
    return SurveyDoc(title or str(obj.get("paper_id")), sections, gt, [file], unsectioned,
                     excluded, kind="unarxive", abstract=abstract)


def unarxive_source(source: str, folder: Path | None, corpus: Any = None,
                    data: Path | None = None) -> str:
    """`source` unchanged when it is a path or already `unarxive:…`; an arXiv id or a corpus
    paper id as `unarxive:FOLDER#ARXIV_ID` (FOLDER: `folder`, else the corpus's unarXive input,
    else `data`/unarxive). A source that is none of these is returned unchanged (`read_source`
    then names it)."""
    if source.startswith(PREFIX) or Path(source).exists():
        return source
    key = id_key("arxiv", source.removeprefix("arxiv:").removeprefix("arXiv:"))
    if key is None and corpus is not None:
        pid = corpus.resolve(source)
        if pid is not None:
            ids = corpus.get_rows([pid])[0].get("ids") or []
            key = next((k for k in ids if k.startswith("arxiv:")), None)
            if key is None:
                raise DataError(f"corpus paper {pid} has no arXiv id, so no unarXive full "
                                "text", file=source)
    if key is None:
        return source
    where = folder
    if where is None and corpus is not None:
        try:
            where_s = (corpus.manifest().get("inputs") or {}).get("unarxive")
        except (OSError, ValueError):
            where_s = None
        where = Path(where_s) if isinstance(where_s, str) else None
    if where is None and data is not None and (data / "unarxive").exists():
        where = data / "unarxive"
    if where is None:
        raise DataError("no unArXive data to read its full text from (pass --unarxive DIR, or "
                        "scholarbench data import unarxive PATH)", file=source)
    return f"{PREFIX}{where}#{key.removeprefix('arxiv:')}"
