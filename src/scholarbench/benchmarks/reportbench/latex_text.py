"""LaTeX source text: comments and dead blocks removed (line numbers kept), LaTeX to plain text.

`strip_comments` blanks what TeX never typesets, keeping every newline so positions still map
to source lines:
- `%` to the end of the line, unless the `%` is escaped (`\\%`; an even run of backslashes
  before `%`, as in `\\\\%`, is a line break followed by a comment);
- `\\begin{comment} … \\end{comment}` (the `comment` / `verbatim`-style package);
- `\\iffalse … \\fi` (nesting of other `\\if…` inside is counted).
`\\verb|…|` and `verbatim` environments are blanked too (a `\\cite` shown as code is not cited).

`latex_to_text` turns a title written in LaTeX into plain text with pylatexenc (a dependency of
bibtexparser): accents to Unicode, `\\emph{x}` to `x`, `--` to an en dash, braces removed.

`group_end` and `braced` find where a `{…}` (or `[…]`, `(…)`) argument closes, for the readers of
citations, `.bbl` fields and headings.
"""
from __future__ import annotations

import re
from functools import lru_cache

_COMMENT_ENV = re.compile(r"\\begin\{(comment|verbatim\*?|lstlisting|minted)\}.*?\\end\{\1\}",
                          re.DOTALL)
_VERB = re.compile(r"\\verb\*?([^\sA-Za-z*])(.*?)\1")
_IF = re.compile(r"\\(iffalse|if[A-Za-z@]*|fi)(?![A-Za-z@])")


def _blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def _strip_line_comment(line: str) -> str:
    i = line.find("%")
    while i != -1:
        run = 0
        j = i - 1
        while j >= 0 and line[j] == "\\":
            run += 1
            j -= 1
        if run % 2 == 0:
            return line[:i]
        i = line.find("%", i + 1)
    return line


def _strip_iffalse(text: str) -> str:
    out, pos, depth, start = [], 0, 0, None
    for match in _IF.finditer(text):
        word = match.group(1)
        if start is None:
            if word == "iffalse":
                start, depth = match.start(), 1
            continue
        if word == "fi":
            depth -= 1
            if depth == 0:
                out.append(text[pos:start])
                out.append(re.sub(r"[^\n]", " ", text[start:match.end()]))
                pos, start = match.end(), None
        else:
            depth += 1
    out.append(text[pos:] if start is None else text[pos:start]
               + re.sub(r"[^\n]", " ", text[start:]))
    return "".join(out)


def strip_comments(text: str) -> str:
    """The source with comments, comment environments, verbatim and `\\iffalse` blocks blanked
    (same number of lines)."""
    text = "\n".join(_strip_line_comment(line) for line in text.split("\n"))
    text = _COMMENT_ENV.sub(_blank, text)
    text = _VERB.sub(_blank, text)
    return _strip_iffalse(text)


@lru_cache(maxsize=1)
def _converter():
    from pylatexenc.latex2text import LatexNodes2Text
    return LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)


def latex_to_text(text: str) -> str:
    """Plain text of a LaTeX fragment (a title or a bibliography block); spaces collapsed."""
    if "\\" not in text and "{" not in text and "~" not in text and "--" not in text:
        return " ".join(text.split())
    try:
        plain = _converter().latex_to_text(text)
    except Exception:  # pylatexenc is lenient; anything it still rejects keeps its letters
        plain = re.sub(r"\\[A-Za-z]+\*?|[{}]", " ", text)
    return " ".join(plain.replace("~", " ").split())


def group_end(text: str, i: int, open_ch: str = "{", close_ch: str = "}") -> int | None:
    """Index after the group opening at text[i] == open_ch (nesting counted, escaped
    characters skipped; for `[`, brackets inside braces ignored), None if unclosed."""
    depth, brace = 0, 0
    j = i
    while j < len(text):
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if open_ch == "[" and ch == "{":
            brace += 1
        elif open_ch == "[" and ch == "}":
            brace -= 1
        elif ch == open_ch and brace == 0:
            depth += 1
        elif ch == close_ch and brace == 0:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None


def braced(text: str, start: int) -> str | None:
    """The content of the `{…}` group opening at text[start] (nested and escaped braces
    counted), None if it never closes."""
    end = group_end(text, start)
    return None if end is None else text[start + 1:end - 1]
