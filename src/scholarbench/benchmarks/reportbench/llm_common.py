"""What the ReportBench LLM steps share: versioned prompt files, quoting untrusted text, cutting a
report into chunks, and reading a yes/no field.

Prompts
    ``prompts/<name>.txt`` (package data; the name carries the version: ``cited_statements_v1``).
    ``{field}`` placeholders are filled in ONE pass, so a ``{statement}`` written inside a report
    stays literal text. A prompt's identity (``name@sha256[:12]``) is recorded with every result.

Quoting
    Everything that comes from a report — the report, the statements extracted from it, the
    source texts its citations lead to, corpus evidence — goes to a model inside a tagged block
    (``<report> … </report>``, ``<statement>``, ``<source>``, ``<evidence>``, ``<survey>``,
    ``<cited_statements>``, ``<references>``) after a sentence saying the block is data to
    assess and never instructions. Inside the quoted text every lookalike of one of these tags
    (any case, spaces after ``<`` or around ``/``) has its ``<`` written ``&lt;``, so the text
    can neither close its block nor open another.

Chunks
    `split_report(text, max_chars)` follows upstream's `split_text_by_headers` (utils.py,
    BLOCK_SIZE = 16,384 characters): cut before ``#``, ``##`` and ``###`` headings, pack whole
    sections into chunks of at most `max_chars`; a section longer than that is cut at blank
    lines, then at line ends, then hard. Joining the chunks with ``"\\n"`` gives the text back
    (unless a line had to be cut hard, or a chunk was only whitespace and was left out).
"""
from __future__ import annotations

import re

from scholarbench.llm.prompts import Prompt, load_package_prompt

QUOTE_TAGS = ("report", "statement", "source", "evidence", "survey", "cited_statements",
              "references")
_LOOKALIKE = re.compile(r"<(?=\s*/?\s*(?:" + "|".join(QUOTE_TAGS) + r")\b)", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,3} ")


def load_prompt(name: str) -> Prompt:
    """``prompts/<name>.txt`` of this package (one final newline dropped)."""
    return load_package_prompt("scholarbench.benchmarks.reportbench", name,
                               strip_final_newline=True)


def quote(text: str) -> str:
    """`text` with every lookalike of a quoting tag defused (see the module docstring)."""
    return _LOOKALIKE.sub("&lt;", text)


def one_line(text: str, limit: int = 2000) -> str:
    """Line breaks and control characters to spaces, cut at `limit` characters (for statements
    and titles placed in a prompt, so they cannot forge prompt lines)."""
    flat = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", text).split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + " …"


def _cut(block: str, max_chars: int) -> list[str]:
    """A block longer than `max_chars`, cut at blank lines, then line ends, then hard."""
    if len(block) <= max_chars:
        return [block]
    for sep in ("\n\n", "\n"):
        if sep in block:
            limit = max_chars - 1 if sep == "\n\n" else max_chars   # room for the "\n" kept
            parts, current = [], ""
            for piece in block.split(sep):
                candidate = piece if not current else current + sep + piece
                if len(candidate) <= limit:
                    current = candidate
                    continue
                if current:
                    parts.append(current)
                current = piece
            parts.append(current)
            if all(len(p) <= max_chars for p in parts):
                return _rejoin(parts, sep)
            return [c for p in _rejoin(parts, sep) for c in _cut(p, max_chars)]
    return [block[i:i + max_chars] for i in range(0, len(block), max_chars)]


def _rejoin(parts: list[str], sep: str) -> list[str]:
    """Pieces split on `sep` whose "\\n"-join must give the block back: a blank-line separator
    leaves one newline at the end of each piece but the last."""
    if sep == "\n":
        return parts
    return [p + "\n" if i < len(parts) - 1 else p for i, p in enumerate(parts)]


def split_report(text: str, max_chars: int = 16384) -> list[str]:
    """Chunks of `text` at heading boundaries, each at most `max_chars` (see the module
    docstring); [] for an empty or blank text."""
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    if not text.strip():
        return []
    lines = text.split("\n")
    sections: list[str] = []
    start = 0
    for i, line in enumerate(lines):
        if i > start and _HEADING.match(line):
            sections.append("\n".join(lines[start:i]))
            start = i
    sections.append("\n".join(lines[start:]))
    chunks: list[str] = []
    current: str | None = None
    for section in sections:
        for piece in _cut(section, max_chars):
            if current is not None and len(current) + 1 + len(piece) <= max_chars:
                current += "\n" + piece
            else:
                if current is not None:
                    chunks.append(current)
                current = piece
    if current is not None:
        chunks.append(current)
    return [c for c in chunks if c.strip()]


def as_bool(value: object, field: str) -> bool:
    """A JSON boolean, or the strings "true"/"false" in any case (small models quote them);
    anything else is a ValueError naming the field."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"'{field}' must be true or false, not {value!r}")


def need_object(value: object, keys: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"missing key(s) {missing}")
    return value
