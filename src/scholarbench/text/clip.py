"""Short text for a model or a tool answer: whitespace runs collapsed, cut to a length with "…"."""
from __future__ import annotations


def clip(text: str | None, limit: int) -> str:
    """`text` on one line (whitespace runs → one space), at most `limit` characters; a cut
    one ends in "…"."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:max(0, limit - 1)].rstrip() + "…"
