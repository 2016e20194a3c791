"""One escaping function per output format for every string a run can carry into a report.

Run names (`--name`, a manifest's `run_name`), agent and judge model names, sample ids, titles,
judge reasoning and error reasons are untrusted text: a run directory can be tampered with, and an
agent or a judge endpoint writes what it likes. Each report writer passes them through the
function of its format — `html()`, `md()`, `latex()` (`latex_comment()` inside a `%` comment),
`terminal()` and `csv_row()` — and nowhere else (docs/reports.md, "Escaping").

All of them first `neutralise()` the text: C0 and C1 control characters other than tab and
newline (NUL, ESC and so ANSI sequences, CR, DEL …) and the bidirectional embeddings, overrides,
isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C: the "Trojan Source"
characters that make shown text read differently from what it is) are removed, and a lone UTF-16
surrogate (which UTF-8 cannot hold, so the file could not be written) becomes U+FFFD. Only
`html()` and `csv_row()` keep line breaks (the page shows reasoning as it was written; the csv
module quotes a cell that holds one); in the other formats a string is one line, since a newline
there ends a Markdown table row or heading, the LaTeX comment it was in (the next line is live
TeX: `\\input{...}`), or a terminal table's alignment.
"""
from __future__ import annotations

import html as _html
import re
from typing import Any, Iterable

BIDI = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
_UNSHOWN = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")    # keeps \t and \n
_SURROGATE = re.compile("[\ud800-\udfff]")
_SEPARATORS = re.compile("[\u2028\u2029]")        # Unicode line/paragraph separators
_BREAKS = re.compile(r"[\t\n]+")


def neutralise(text: object) -> str:
    """`text` without control and bidi characters (tab and newline kept), lone surrogates as
    U+FFFD, U+2028/U+2029 as newlines."""
    out = _SEPARATORS.sub("\n", _SURROGATE.sub("\ufffd", str(text)))
    return _UNSHOWN.sub("", out)


def one_line(text: object) -> str:
    """`neutralise(text)` with every run of tabs and newlines as one space."""
    return _BREAKS.sub(" ", neutralise(text))


def html(text: object) -> str:
    """HTML text or attribute value (quotes escaped too); line breaks kept."""
    return _html.escape(neutralise(text), quote=True)


# Markdown: the characters that start emphasis, code, links or images, end a table cell, open
# HTML (`<`) or an entity (`&`); CommonMark takes a backslash before any of them literally.
_MD_SPECIAL = frozenset("\\`*_[]<>|&")


def md(text: object) -> str:
    """Markdown text (GitHub/CommonMark): one line, every active character backslash-escaped."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in one_line(text))


# LaTeX: the characters TeX treats specially, and the few non-ASCII symbols our tables print.
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
          "|": r"\textbar{}", "—": "---", "–": "--", "↑": r"\ensuremath{\uparrow}",
          "↓": r"\ensuremath{\downarrow}", "∩": r"\ensuremath{\cap}",
          "⊥": r"\ensuremath{\bot}", "ρ": r"\ensuremath{\rho}", "≈": r"\ensuremath{\approx}",
          "×": r"\ensuremath{\times}", "−": "-", "≤": r"\ensuremath{\leq}",
          "≥": r"\ensuremath{\geq}", "†": r"\ensuremath{\dagger}",
          "·": r"\ensuremath{\cdot}", "α": r"\ensuremath{\alpha}",
          "τ": r"\ensuremath{\tau}"}


def latex(text: object) -> str:
    """LaTeX source that prints `text` on one line: specials escaped, arrows and ∩ as math."""
    return "".join(_LATEX.get(ch, ch) for ch in one_line(text))


def latex_comment(text: object) -> str:
    """Text for after a `%`: one line, so nothing after it is read as TeX."""
    return one_line(text)


def terminal(text: object) -> str:
    """Text for a terminal: one line, no escape sequences (ESC is a control character)."""
    return one_line(text)


def csv_row(cells: Iterable[Any]) -> list[Any]:
    """A CSV row's cells with each string neutralised (the csv module quotes the rest)."""
    return [neutralise(c) if isinstance(c, str) else c for c in cells]


__all__ = ["BIDI", "csv_row", "html", "latex", "latex_comment", "md", "neutralise", "one_line",
           "terminal"]
