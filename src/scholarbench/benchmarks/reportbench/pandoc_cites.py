"""Citation keys cited in Pandoc Markdown: `[@key]`, `[see @a; @b, p. 3]`, `@key` in the text.

What counts as a citation, following Pandoc:
- every `@key` not preceded by a word character (so `name@example.com` is not one), bracketed
  or in-text, with `-@key` (author suppressed) too, and `@{any key}` in braces;
- key characters follow Manubot's citekey pattern (which its persistent ids need):
  a letter, digit or `_`, then letters, digits and `_:.#$%&-+?<>~/`, ending on a letter, digit,
  `_` or `/` (`@doi:10.1038/nature14539.` ends before the full stop; `@url:https://a.org/x`
  keeps its `://`);
- not citations: pandoc-crossref references (`@fig:…`, `@tbl:…`, `@eq:…`, `@sec:…`,
  `@lst:…`),
  anything inside fenced or indented-by-fence code, inline code, HTML comments, the YAML
  metadata block, escaped `\\@`, and an `@` inside a URL (`https://medium.com/@user`).
- `nocite:` keys in the YAML block are not cited in the main text and are not returned.

Manubot alias definitions `[@tag:Name]: doi:10.…` (link-reference lines, in the back matter)
are read as aliases, not citations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

CROSSREF_PREFIXES = ("fig:", "tbl:", "eq:", "sec:", "lst:")

_KEY = r"[A-Za-z0-9_](?:[\w:.#$%&\-+?<>~/]*[A-Za-z0-9_/])?"
_CITE = re.compile(r"(?<![\w\\@])-?@(?:\{(?P<braced>[^{}]+)\}|(?P<key>" + _KEY + r"))")
_ALIAS = re.compile(r"^[ ]{0,3}\[@(?P<key>[^\]\s]+)\]:[ \t]*(?P<target>\S.*?)[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ ]{0,3}\1[`~]*[ \t]*$|\Z)",
                    re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_YAML = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_URL = re.compile(r"(?<![:\w@])(?:https?|ftp)://[^\s<>\"'\])]+", re.IGNORECASE)


@dataclass(frozen=True)
class Citation:
    key: str
    line: int        # 1-based line of the `@`
    file: str = ""


def _blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def visible_text(text: str) -> str:
    """`text` with the YAML block, code, HTML comments and alias definitions blanked (newlines
    kept, so offsets map to the same lines)."""
    text = _YAML.sub(_blank, text)
    text = _FENCE.sub(_blank, text)
    text = _HTML_COMMENT.sub(_blank, text)
    text = _INLINE_CODE.sub(_blank, text)
    return _ALIAS.sub(_blank, text)


def aliases(text: str) -> dict[str, str]:
    """Manubot alias definitions `[@tag:Name]: target` -> {"tag:Name": "target"} (first wins);
    lines inside code or comments are ignored."""
    text = _YAML.sub(_blank, text)
    text = _FENCE.sub(_blank, text)
    text = _HTML_COMMENT.sub(_blank, text)
    out: dict[str, str] = {}
    for match in _ALIAS.finditer(text):
        out.setdefault(match.group("key"), match.group("target"))
    return out


def citations(text: str, file: str = "") -> list[Citation]:
    """Every citation in `text`, in order (a key cited twice appears twice)."""
    visible = visible_text(text)
    url_spans = [m.span() for m in _URL.finditer(visible)]
    out, starts = [], [0]
    for i, ch in enumerate(visible):
        if ch == "\n":
            starts.append(i + 1)
    import bisect
    span_i = 0
    for match in _CITE.finditer(visible):
        key = match.group("braced") or match.group("key")
        at = match.start()
        while span_i < len(url_spans) and url_spans[span_i][1] <= at:
            span_i += 1
        if span_i < len(url_spans) and url_spans[span_i][0] <= at < url_spans[span_i][1]:
            continue
        if key.lower().startswith(CROSSREF_PREFIXES):
            continue
        out.append(Citation(key.strip(), bisect.bisect_right(starts, at), file))
    return out
