"""Where a Markdown report's bibliography is: the last heading named References / Bibliography /
Sources / Works Cited / Citations / Literature (numbering, emphasis and a colon allowed; a bold
line or a "References:" line counts as a heading) up to the next heading of the same or a higher
level. ReportBench reads the items there (`references.report_refs`); the shared
writers drop the section a model wrote before adding their own (`agents.writers.common`)."""
from __future__ import annotations

import re

_ATX = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_BIB_NAME = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+|[IVX]+\.\s+)?(?:references?|bibliography|sources?|works\s+cited|"
    r"cited\s+works|citations?|literature(?:\s+cited)?|reference\s+list|references\s+and\s+notes|"
    r"sources\s+cited|further\s+reading|参考文献)\s*:?$", re.IGNORECASE)
_EMPH = re.compile(r"^[*_]{1,3}(.*?)[*_]{1,3}$")
BULLET = re.compile(r"^[ \t]*[-*+][ \t]+(.*)$")
SETEXT_UNDERLINE = re.compile(r"[ ]{0,3}(=+|-+)[ \t]*")


def heading(line: str, next_line: str | None) -> tuple[int, str] | None:
    """(level, text) when `line` is a heading: ATX, setext, a lone bold line or a lone
    "References:" line (level 7: ends at any real heading)."""
    match = _ATX.match(line)
    if match:
        return len(match.group(1)), match.group(2).strip()
    stripped = line.strip()
    if next_line is not None and stripped and SETEXT_UNDERLINE.fullmatch(next_line) \
            and not BULLET.match(line):
        return (1 if next_line.strip().startswith("=") else 2), stripped
    emph = _EMPH.match(stripped)
    if emph and _BIB_NAME.match(emph.group(1).strip()):
        return 7, emph.group(1).strip()
    if _BIB_NAME.match(stripped) and stripped.endswith(":"):
        return 7, stripped
    return None


def bibliography_section(lines: list[str]) -> tuple[int, int] | None:
    """(first, end) line indexes (0-based, end exclusive) of the last bibliography section."""
    headings = []
    for i, line in enumerate(lines):
        if not line or (line[0] not in "#=-*_ " and not line[0].isalnum() and line[0] != "参"):
            continue
        found = heading(line, lines[i + 1] if i + 1 < len(lines) else None)
        if found:
            headings.append((i, found[0], found[1]))
    bib = [h for h in headings if _BIB_NAME.match(_EMPH.sub(r"\1", h[2]).strip())]
    if not bib:
        return None
    start, level, _ = bib[-1]
    end = len(lines)
    for i, lvl, _ in headings:
        if i > start and (lvl <= level or (level == 7 and lvl < 7)):
            end = i
            break
    first = start + 2 if start + 1 < len(lines) and SETEXT_UNDERLINE.fullmatch(
        lines[start + 1]) else start + 1
    return first, end
