"""A survey's source -> its section tree with the citations under each heading.

Accepted sources (`read_source(path, bibliographies=())`):
- a Manubot folder (`content/*.md`, as greenelab/deep-review): the Markdown files in name
  order; the bibliography `output/references.json` when present (else `bibliographies`); the
  title from `content/metadata.yaml` (`title:` line, a trailing `[…]` note dropped);
- one Pandoc Markdown file (`.md`) with `bibliographies` (CSL-JSON, BibTeX or .bbl); the title
  from its YAML `title:` or its first `#` heading;
- a LaTeX survey: its main `.tex` file or its folder, with the `.bib`/`.bbl` files
  `reportbench.survey_gt.from_latex` finds (or `bibliographies`); the title from `\\title{…}`;
- `unarxive:PATH#ARXIV_ID`: a paper of unarXive's full text (`builder.unarxive`).

Citations and their works are the ReportBench ground-truth readers' (`survey_gt.from_markdown`
/ `from_latex`: Pandoc/Manubot keys with aliases, LaTeX cite commands with `\\input` followed);
this module adds where each citation sits. Headings: Markdown ATX headings (`#`…`######`,
a `{…}` attribute block and `*`/`_` emphasis dropped; headings in code blocks and HTML comments
are not headings); LaTeX `\\part \\chapter \\section \\subsection \\subsubsection \\paragraph`
(starred too). A citation belongs to the last heading before it in reading order (LaTeX:
`\\input`/`\\include` files read where they are included, so an included file's text before
its own first heading belongs to the including file's section). Citations before any heading
are `unsectioned`.
Confinement: only regular files inside the source folder (the folder given, or the folder of
the file given) are read — included `.tex` files, `.bib`/`.bbl`, Manubot files — with every
symlink resolved (`scholarbench.confine`); a file named by the source that is not is refused
and listed in `SurveyDoc.refused` (one line each: the file and the reason). Bibliographies the
user names (`bibliographies`, `build --bib`) are read where they are.
Sections named like front or back matter (`EXCLUDED`: abstract, authors, references, funding,
…) are left out of the tree, at any depth, and their citations counted apart.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from scholarbench.benchmarks.reportbench.latex_cites import find_main_tex
from scholarbench.benchmarks.reportbench.latex_text import (braced, latex_to_text,
                                                                strip_comments)
from scholarbench.benchmarks.reportbench.pandoc_cites import visible_text
from scholarbench.benchmarks.reportbench.survey_gt import SurveyGT, from_latex, from_markdown
from scholarbench.confine import Refused, inside, keep_inside, root_of
from scholarbench.errors import DataError
from scholarbench.files import read_regular_file
from scholarbench.benchmarks.reportbench.latex_cites import (_INCLUDE, _INCLUDE_BARE, _main_body,
                                                             _resolve_include, latex_citations)
from scholarbench.benchmarks.reportbench.pandoc_cites import citations

EXCLUDED = re.compile(r"^(?:abstract|authors?|references|bibliography|acknowledge?ments?"
                      r"|author contributions|(?:.* )?competing interests|(?:.* )?funding"
                      r"(?: statement)?|conflicts? of interests?)\.?$", re.IGNORECASE)
LATEX_LEVELS = {"part": 0, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4,
                "paragraph": 5}

_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(?:\{[^}]*\})?[ \t]*#*[ \t]*$")
_TEX_HEADING = re.compile(r"\\(" + "|".join(LATEX_LEVELS) + r")\*?\s*(?:\[[^\]]*\])?\s*\{")
_TEX_TITLE = re.compile(r"\\title\s*(?:\[[^\]]*\])?\s*\{")
_TEX_ABSTRACT = re.compile(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", re.DOTALL)
_YAML_TITLE = re.compile(r'^title:\s*(["\']?)(.*)\1\s*$', re.MULTILINE)
_NOTE = re.compile(r"\s*\[[^\]]*\]\s*$")


@dataclass(frozen=True)
class Table:
    """A table of the survey (a Structure Anchor for DeepSynth-Eval): its caption and its
    source text (Markdown pipe rows, or the LaTeX table environment)."""
    caption: str
    text: str
    where: str                                             # file:line of its first line


@dataclass
class Section:
    title: str
    level: int
    keys: list[str] = field(default_factory=list)          # citation keys, in order
    children: list["Section"] = field(default_factory=list)
    where: str = ""                                        # file:line of the heading
    text: str = ""                                         # its own text (to the next heading)
    tables: list[Table] = field(default_factory=list)

    def walk(self, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], "Section"]]:
        """(heading path, section) for this section and every one below it, in order."""
        here = path + (self.title,)
        yield here, self
        for child in self.children:
            yield from child.walk(here)


@dataclass
class SurveyDoc:
    """One survey: its title, section tree, citations (`gt`, with the works they name), the
    source files read and the citation keys outside the tree."""
    title: str
    sections: list[Section]
    gt: SurveyGT
    files: list[Path]
    unsectioned: list[str] = field(default_factory=list)   # keys before any heading
    excluded: list[str] = field(default_factory=list)      # keys under EXCLUDED headings
    kind: str = "markdown"
    abstract: str = ""     # the text under an "Abstract" heading, or LaTeX's abstract environment
    refused: list[str] = field(default_factory=list)       # files not read (`confine`): one line each


@dataclass(frozen=True)
class _Heading:
    line: int
    level: int
    title: str


def _clean_md(title: str) -> str:
    return " ".join(re.sub(r"(?<!\w)[*_]+|[*_]+(?!\w)", "", title).split())


def markdown_headings(text: str) -> list[_Heading]:
    out = []
    for i, line in enumerate(visible_text(text).split("\n"), start=1):
        match = _MD_HEADING.match(line)
        if match and match.group(2).strip():
            out.append(_Heading(i, len(match.group(1)), _clean_md(match.group(2))))
    return out


def _line_of(text: str) -> Callable[[int], int]:
    """position -> 1-based line number of `text`, by bisection (counting the newlines before
    every match again made reading quadratic in the number of headings)."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return lambda pos: bisect.bisect_right(starts, pos)


def latex_headings(text: str) -> list[_Heading]:
    text = strip_comments(text)
    line_of = _line_of(text)
    out = []
    for match in _TEX_HEADING.finditer(text):
        body = braced(text, match.end() - 1)
        if body is not None and body.strip():
            out.append(_Heading(line_of(match.start()), LATEX_LEVELS[match.group(1)],
                                latex_to_text(body)))
    return out


def _tree(events: Sequence[tuple[str, object]]) -> tuple[list[Section], list[str]]:
    """Sections from an ordered stream of ("heading", (file, _Heading)) and ("cite", key)."""
    roots: list[Section] = []
    stack: list[Section] = []
    unsectioned: list[str] = []
    for kind, value in events:
        if kind == "heading":
            file, head = value  # type: ignore[misc]
            node = Section(head.title, head.level, where=f"{file}:{head.line}")
            while stack and stack[-1].level >= head.level:
                stack.pop()
            (stack[-1].children if stack else roots).append(node)
            stack.append(node)
        elif stack:
            stack[-1].keys.append(value)  # type: ignore[arg-type]
        else:
            unsectioned.append(value)  # type: ignore[arg-type]
    return roots, unsectioned


def latex_segments(main: Path, root: Path | None = None) -> list[tuple[str, int, int]]:
    """The main text in reading order as (file, first line, last line) runs: a file's lines up
    to an `\\input`/`\\include`, then the included file's, then the rest (the include rules of
    `reportbench.latex_cites`; a file included twice is read once; only files inside `root`,
    default the main file's folder)."""
    out: list[tuple[str, int, int]] = []
    seen: set[Path] = set()
    root = main.parent if root is None else root

    def walk(path: Path, whole: bool) -> None:
        if path.resolve() in seen or not path.is_file():
            return
        try:
            inside(root, path)
        except Refused:
            return
        seen.add(path.resolve())
        text = strip_comments(read_regular_file(path, errors="replace"))
        start, stop = (0, len(text)) if whole else _main_body(text)
        found = sorted([(m.start(), m.group(2), m.group(1)) for m in
                        _INCLUDE.finditer(text, start, stop)]
                       + [(m.start(), m.group(1), None) for m in
                          _INCLUDE_BARE.finditer(text, start, stop)])
        lo = text.count("\n", 0, start) + 1
        for pos, name, subdir in found:
            line = text.count("\n", 0, pos) + 1
            out.append((str(path), lo, line))
            walk(_resolve_include(path, name, subdir), True)
            lo = line + 1
        out.append((str(path), lo, text.count("\n", 0, stop) + 1))

    walk(main, False)
    return out


def _events(cites, headings: dict[str, list[_Heading]], segments: list[tuple[str, int, int]]
            ) -> list[tuple[str, object]]:
    """Headings and citations merged in reading order (by `latex_segments`); headings outside
    the main text (a preamble) are left out."""
    by_file: dict[str, list[tuple[int, int, int]]] = {}
    for i, (f, lo, hi) in enumerate(segments):
        by_file.setdefault(f, []).append((lo, hi, i))

    def key(file: str, line: int) -> int | None:
        return next((i for lo, hi, i in by_file.get(file, ()) if lo <= line <= hi), None)

    items = []
    for file, heads in headings.items():
        for h in heads:
            seg = key(file, h.line)
            if seg is not None:
                items.append(((seg, h.line, 0), ("heading", (file, h))))
    for c in cites:
        seg = key(c.file, c.line)
        items.append(((seg if seg is not None else len(segments), c.line, 1), ("cite", c.key)))
    return [event for _, event in sorted(items, key=lambda t: t[0])]


_TEX_TABLE = re.compile(r"\\begin\{(table\*?|tabular\*?|longtable)\}.*?\\end\{\1\}", re.DOTALL)
_TEX_CAPTION = re.compile(r"\\caption\s*(?:\[[^\]]*\])?\s*\{")


def markdown_tables(text: str, file: str, first_line: int) -> list[Table]:
    """Pipe tables (a header row, a `|---|` rule, rows) and their Pandoc `Table:` caption."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
                and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1])):
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            caption = ""
            for k in list(range(j, min(j + 3, len(lines)))) + [i - 2, i - 1]:
                if 0 <= k < len(lines) and lines[k].strip().startswith(("Table:", ": ")):
                    caption = re.sub(r"\s*\{[^}]*\}\s*$", "", lines[k].strip())
                    caption = caption.removeprefix("Table:").removeprefix(":").strip()
                    break
            out.append(Table(caption, "\n".join(lines[i:j]), f"{file}:{first_line + i}"))
            i = j
        else:
            i += 1
    return out


def latex_tables(text: str, file: str, first_line: int) -> list[Table]:
    out = []
    for match in _TEX_TABLE.finditer(text):
        body = match.group(0)
        cap = _TEX_CAPTION.search(body)
        caption = latex_to_text(braced(body, cap.end() - 1) or "") if cap else ""
        out.append(Table(caption, body,
                         f"{file}:{first_line + text.count(chr(10), 0, match.start())}"))
    return out


def _attach_text(sections: list[Section], texts: dict[str, list[str]],
                 headings: dict[str, list[_Heading]], latex: bool) -> None:
    """Each section's own text: its file's lines after the heading up to the next heading
    (any heading, excluded ones too)."""
    starts = {file: sorted(h.line for h in heads) for file, heads in headings.items()}
    for node in [s for top in sections for _, s in top.walk()]:
        file, _, line = node.where.rpartition(":")
        start = int(line)
        lines, heads = texts.get(file, []), starts.get(file, [])
        after = bisect.bisect_right(heads, start)           # the next heading, by bisection
        body = "\n".join(lines[start:(heads[after] - 1) if after < len(heads) else len(lines)])
        node.text = body.strip()
        node.tables = (latex_tables(body, file, start + 1) if latex
                       else markdown_tables(body, file, start + 1))


def _drop_excluded(sections: list[Section]) -> tuple[list[Section], list[str]]:
    """`sections` without front/back-matter headings (at any depth); their citation keys."""
    kept, dropped = [], []
    for section in sections:
        if EXCLUDED.match(section.title.strip()):
            dropped += [k for _, s in section.walk() for k in s.keys]
        else:
            section.children, below = _drop_excluded(section.children)
            dropped += below
            kept.append(section)
    return kept, dropped


def _md_title(files: Sequence[Path], metadata: Path | None) -> str:
    for path in ([metadata] if metadata and metadata.is_file() else []) + list(files):
        text = read_regular_file(path)
        match = _YAML_TITLE.search(text)
        if match and (path == metadata or text.startswith("---")):
            return _NOTE.sub("", match.group(2)).strip()
    for path in files:
        for head in markdown_headings(read_regular_file(path)):
            if head.level == 1:
                return head.title
    return files[0].stem if files else ""


def _read_markdown(files: list[Path], bibliographies: Sequence[Path],
                   metadata: Path | None, refused: Sequence[str] = ()) -> SurveyDoc:
    gt = from_markdown(files, bibliographies)
    cites, headings = [], {}
    for path in files:
        text = read_regular_file(path)
        cites += citations(text, str(path))
        headings[str(path)] = markdown_headings(text)
    events = [e for path in files for e in _file_events(str(path), cites, headings)]
    sections, unsectioned = _tree(events)
    _attach_text(sections, {str(p): visible_text(read_regular_file(p)).split("\n")
                            for p in files}, headings, latex=False)
    abstract = next((s.text for s in sections if s.title.lower() == "abstract"), "")
    sections, excluded = _drop_excluded(sections)
    return SurveyDoc(_md_title(files, metadata), sections, gt, files + list(bibliographies),
                     unsectioned, excluded, abstract=abstract, refused=list(refused))


def _file_events(file: str, cites, headings: dict[str, list[_Heading]]):
    """One Markdown file's headings and citations by line (files are read one after another)."""
    items = [(h.line, 0, ("heading", (file, h))) for h in headings.get(file, [])]
    items += [(c.line, 1, ("cite", c.key)) for c in cites if c.file == file]
    return [event for _, _, event in sorted(items, key=lambda t: (t[0], t[1]))]


def _read_latex(main: Path, bibliographies: Sequence[Path], root: Path) -> SurveyDoc:
    gt = from_latex(main, list(bibliographies) or None, root)
    found = latex_citations(main, root)
    refused = list(dict.fromkeys(gt.refused + found.refused))
    headings = {str(p): latex_headings(read_regular_file(p, errors="replace"))
                for p in found.files}
    sections, unsectioned = _tree(_events(found.citations, headings,
                                          latex_segments(main, root)))
    _attach_text(sections, {str(p): strip_comments(read_regular_file(p, errors="replace"))
                            .split("\n")
                            for p in found.files}, headings, latex=True)
    sections, excluded = _drop_excluded(sections)
    text = strip_comments(read_regular_file(main, errors="replace"))
    match = _TEX_TITLE.search(text)
    title = latex_to_text(braced(text, match.end() - 1) or "") if match else main.stem
    bibs = (list(bibliographies) or [p for p in found.bib_files if p.is_file()]
            or keep_inside(root, sorted(main.parent.rglob("*.bib")), []))
    abstract = _TEX_ABSTRACT.search(text)
    return SurveyDoc(title, sections, gt, list(found.files) + bibs, unsectioned, excluded,
                     kind="latex",
                     abstract=latex_to_text(abstract.group(1)) if abstract else "",
                     refused=refused)


def read_source(path: str | Path, bibliographies: Sequence[str | Path] = ()) -> SurveyDoc:
    """The survey at `path` (see the module docstring for what is accepted)."""
    if str(path).startswith("unarxive:"):
        # deferred: loaded only by the path that needs it (a light CLI start)
        from scholarbench.builder.unarxive import read_unarxive_source
        return read_unarxive_source(str(path))
    path = Path(path)
    bibs = [Path(b) for b in bibliographies]
    if not path.exists():
        raise DataError("no such file or folder", file=str(path))
    root, refused = root_of(path), []
    if path.is_dir() and (path / "content").is_dir():
        files = keep_inside(root, sorted((path / "content").glob("*.md")), refused)
        if not files:
            raise DataError("a Manubot folder needs content/*.md"
                            + (f" ({refused[0]})" if refused else ""), file=str(path / "content"))
        refs = keep_inside(root, [p for p in [path / "output" / "references.json"]
                                  if p.is_file()], refused)
        metadata = keep_inside(root, [path / "content" / "metadata.yaml"], refused)
        return _read_markdown(files, bibs or refs, metadata[0] if metadata else None, refused)
    if path.is_file() and path.suffix.lower() in (".md", ".markdown"):
        return _read_markdown([path], bibs, None)
    if path.is_file() and path.suffix.lower() == ".tex":
        return _read_latex(path, bibs, root)
    if path.is_dir():
        main = find_main_tex(path)
        if main is not None:
            return _read_latex(main, bibs, root)
    raise DataError("not a survey source (need a Manubot folder with content/*.md, a .md "
                    "file, a .tex file or a folder with a main .tex file)", file=str(path))
