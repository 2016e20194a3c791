"""Citation keys cited in the main text of a LaTeX survey.

Main text: from `\\begin{document}` to `\\end{document}` (the whole file when it has neither),
with `\\input{…}`, `\\include{…}`, `\\subfile{…}` and `\\import{dir}{file}` followed (relative
to the including file's folder, `.tex` added when missing; a file included twice is read once;
a missing file is reported in `problems`; a file outside the folder of the main file — or of
the `root` given — or one that is not a regular file is not read and is listed in `refused`:
`scholarbench.confine`), comments and dead blocks removed
(`latex_text.strip_comments`), and the `thebibliography` environment left out.

Commands counted as citing (with a `*` variant and any number of optional `[…]` arguments,
nested braces allowed: `\\citep[see][p.~3]{a,b}`):
- LaTeX/natbib: `\\cite \\citep \\citet \\citealp \\citealt \\citeauthor \\citeyear
  \\citeyearpar \\citenum \\Cite \\Citep \\Citet \\Citealp \\Citealt \\Citeauthor`
  (`\\citetext` takes no keys);
- biblatex: `\\parencite \\Parencite \\textcite \\Textcite \\autocite \\Autocite \\footcite
  \\footcitetext \\smartcite \\Smartcite \\supercite \\fullcite \\footfullcite \\citetitle
  \\Citetitle \\citeurl \\citedate \\citeyear`, and the multi-cite forms `\\cites \\parencites
  \\textcites \\autocites \\footcites \\smartcites \\supercites` whose key groups repeat
  (`\\cites[pre][post]{a}[post]{b}`), with an optional `(…)(…)` global note;
- `\\citeauthor`, `\\citeyear`, `\\citetitle` name a work in the text, so they count.
- `\\nocite{…}` does not: it lists a work in the bibliography without citing it in the text
  (`\\nocite{*}` lists every entry). Its keys are returned apart, in `nocite`.
Keys are split on commas and stripped; empty keys are dropped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from scholarbench.benchmarks.reportbench.latex_text import group_end, strip_comments
from scholarbench.confine import Refused, inside
from scholarbench.benchmarks.reportbench.pandoc_cites import Citation
from scholarbench.files import read_regular_file

SINGLE = ("cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear",
          "citeyearpar", "citenum", "Cite", "Citep", "Citet", "Citealp", "Citealt", "Citeauthor",
          "parencite", "Parencite", "textcite", "Textcite", "autocite", "Autocite", "footcite",
          "footcitetext", "smartcite", "Smartcite", "supercite", "fullcite", "footfullcite",
          "citetitle", "Citetitle", "citeurl", "citedate", "nocite")
MULTI = ("cites", "Cites", "parencites", "Parencites", "textcites", "Textcites", "autocites",
         "Autocites", "footcites", "smartcites", "Smartcites", "supercites")
_CMD = re.compile(r"\\(" + "|".join(sorted(SINGLE + MULTI, key=len, reverse=True))
                  + r")(?![A-Za-z@])\*?")
_INCLUDE = re.compile(r"\\(?:input|include|subfile|import\s*\{([^}]*)\})\s*\{([^}]+)\}")
_INCLUDE_BARE = re.compile(r"\\input\s+([^\s{}\\]+)")
_THEBIB = re.compile(r"\\begin\{thebibliography\}.*?(?:\\end\{thebibliography\}|\Z)", re.DOTALL)
_BIBCMD = re.compile(r"\\(?:bibliography|addbibresource(?:\[[^\]]*\])?|addglobalbib)\s*\{([^}]*)\}")


@dataclass
class LatexCitations:
    citations: list[Citation] = field(default_factory=list)   # main-text citations, in order
    nocite: list[str] = field(default_factory=list)
    bib_files: list[Path] = field(default_factory=list)       # named by \bibliography etc.
    files: list[Path] = field(default_factory=list)           # every .tex file read
    problems: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)          # files not read (`confine`)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _parse_cite(text: str, end: int, multi: bool) -> tuple[list[str], int]:
    """Keys of the command whose name ends at `end`, and the index after its arguments."""
    keys: list[str] = []
    i = end
    if multi:                                   # optional global notes (pre)(post)
        while True:
            j = _skip_ws(text, i)
            if j < len(text) and text[j] == "(":
                close = group_end(text, j, "(", ")")
                if close is None:
                    return keys, i
                i = close
            else:
                break
    while True:
        j = _skip_ws(text, i)
        while j < len(text) and text[j] == "[":
            close = group_end(text, j, "[", "]")
            if close is None:
                return keys, i
            j = _skip_ws(text, close)
        if j >= len(text) or text[j] != "{":
            return keys, i
        close = group_end(text, j, "{", "}")
        if close is None:
            return keys, i
        keys += [k.strip() for k in text[j + 1:close - 1].split(",") if k.strip()]
        i = close
        if not multi:
            return keys, i


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]


def _main_body(text: str) -> tuple[int, int]:
    begin = text.find("\\begin{document}")
    end = text.find("\\end{document}")
    start = begin + len("\\begin{document}") if begin != -1 else 0
    return start, end if end != -1 and end > start else len(text)


def _resolve_include(base: Path, name: str, subdir: str | None) -> Path:
    folder = base.parent / subdir if subdir else base.parent
    path = folder / name.strip()
    if path.suffix != ".tex" and not path.is_file():
        path = path.with_name(path.name + ".tex")
    return path


def latex_citations(main: str | Path, root: str | Path | None = None) -> LatexCitations:
    """Citations in the main text of `main` and of the files it includes, in reading order;
    only files inside `root` (default: the main file's folder) are read."""
    import bisect
    main = Path(main)
    root = main.parent if root is None else Path(root)
    out = LatexCitations()
    seen: set[Path] = set()

    def read(path: Path, whole: bool) -> None:
        real = path.resolve()
        if real in seen:
            return
        seen.add(real)
        try:
            inside(root, path)
        except Refused as exc:
            out.refused.append(str(exc))
            return
        if not path.exists():
            out.problems.append(f"{path}: cannot read (no such file)")
            return
        raw = read_regular_file(path, errors="replace")   # a FIFO or a device is refused
        out.files.append(path)
        text = _THEBIB.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), strip_comments(raw))
        for match in _BIBCMD.finditer(text):
            for name in match.group(1).split(","):
                name = name.strip()
                if name:
                    bib = path.parent / name
                    bib = bib if bib.suffix == ".bib" else bib.with_name(bib.name + ".bib")
                    try:
                        out.bib_files.append(inside(root, bib))
                    except Refused as exc:
                        out.refused.append(str(exc))
        start, stop = (0, len(text)) if whole else _main_body(text)
        starts = _line_starts(text)
        events: list[tuple[int, str, re.Match]] = []
        for m in _CMD.finditer(text, start, stop):
            events.append((m.start(), "cite", m))
        for m in _INCLUDE.finditer(text, start, stop):
            events.append((m.start(), "include", m))
        for m in _INCLUDE_BARE.finditer(text, start, stop):
            events.append((m.start(), "bare", m))
        events.sort(key=lambda e: e[0])
        skip_until = -1
        for pos, kind, m in events:
            if pos < skip_until:
                continue
            if kind == "cite":
                name = m.group(1)
                keys, after = _parse_cite(text, m.end(), name in MULTI)
                skip_until = after
                line = bisect.bisect_right(starts, pos)
                if name == "nocite":
                    out.nocite += keys
                else:
                    out.citations += [Citation(k, line, str(path)) for k in keys]
            elif kind == "include":
                read(_resolve_include(path, m.group(2), m.group(1)), True)
            else:
                read(_resolve_include(path, m.group(1), None), True)

    read(main, False)
    return out


def find_main_tex(folder: str | Path) -> Path | None:
    """The file holding `\\documentclass` and `\\begin{document}` (the shortest name when
    several do, e.g. main.tex beside main_backup.tex); None when none does. Files that are not
    regular files inside `folder` (`confine`) are not candidates."""
    candidates = []
    for path in sorted(Path(folder).rglob("*.tex")):
        try:
            inside(folder, path)
        except Refused:
            continue
        text = strip_comments(read_regular_file(path, errors="replace"))
        if "\\documentclass" in text and "\\begin{document}" in text:
            candidates.append(path)
    if not candidates:
        return None
    return min(candidates, key=lambda p: (len(p.parts), len(p.name), str(p)))
