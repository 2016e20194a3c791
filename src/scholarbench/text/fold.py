"""The project's one Unicode normaliser for text that may be disguised: NFKC, format
characters (category Cf: zero-width spaces and joiners, soft hyphens, bidi controls, BOM, tag
characters) removed, and lookalike letters folded to the ASCII letter they imitate.

Used by the injection detector's views (`injection.normalise`), the title normaliser
(`text.normalize.normalize_title`, so reference matching and the leakage audit compare
"Grаph" with a Cyrillic а equal to "Graph") and the identifier resolver
(`data.identifiers.parse_id`).

The lookalike table is Unicode's confusables (TR39, the `confusable-homoglyphs` package's
data) restricted to single letters mapping to one ASCII letter, plus the Latin small capitals
("ᴅɪsʀᴇɢᴀʀᴅ"), which TR39 mostly leaves out. TR39 maps I-like glyphs to "l"; `fold` reads them
as `ell` ("l" by default; the injection detector also tries "i").
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# code-point blocks holding the Latin small capitals
_SMALL_CAP_BLOCKS = ((0x0250, 0x02B0), (0x1D00, 0x1D80), (0xA700, 0xA800), (0x1DF00, 0x1E000))


@lru_cache(maxsize=1)
def format_chars() -> re.Pattern[str]:
    """Every code point of category Cf (zero-width, soft hyphen, bidi controls, tags, …)."""
    return re.compile("[" + "".join(re.escape(chr(c)) for c in range(0x80, 0x110000)
                                    if unicodedata.category(chr(c)) == "Cf") + "]")


def clean(text: str) -> str:
    """NFKC, then every format character removed."""
    if text.isascii():
        return text                  # NFKC changes no ASCII; ASCII holds no Cf character
    return format_chars().sub("", unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=1)
def fold_table() -> tuple[dict[int, str], frozenset[int]]:
    """Non-ASCII letter → the ASCII letter it imitates; and the code points folded to "l"."""
    from confusable_homoglyphs.confusables import confusables_data
    table: dict[int, str] = {}
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        letters = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii()
                   and g["c"].isalpha()]
        if letters:
            table[ord(char)] = letters[0]
    for start, end in _SMALL_CAP_BLOCKS:
        for code in range(start, end):
            name = unicodedata.name(chr(code), "")
            if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == 28:
                table.setdefault(code, name[-1].lower())
    return table, frozenset(k for k, v in table.items() if v == "l")


def strip_marks(text: str) -> str:
    """`text` without combining marks (é → e), recomposed."""
    if text.isascii():
        return text
    bare = "".join(ch for ch in unicodedata.normalize("NFD", text)
                   if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", bare)


def fold(text: str, ell: str = "l", marks: bool = True) -> str:
    """`text` with lookalike letters as ASCII (I-like glyphs as `ell`), recomposed (NFC);
    combining marks dropped first unless `marks=False` (titles keep their accents: "é" stays
    "é")."""
    if text.isascii():
        return text
    table, ells = fold_table()
    if marks:
        text = strip_marks(text)
    if ell != "l":
        table = {**table, **{k: ell for k in ells}}
    # recomposed: a folded letter may now take its combining mark ("ı̈" → "ï" → "ï"), so
    # that folding twice, or normalising a title after `canonical`, gives the same text
    return unicodedata.normalize("NFC", text.translate(table))


def has_ell(text: str) -> bool:
    """Whether `text` holds an I-like glyph `fold` reads as `ell`."""
    _, ells = fold_table()
    return not text.isascii() and any(ord(ch) in ells for ch in text)


def canonical(text: str) -> str:
    """`clean`, then `fold` keeping accents: the form titles and identifiers compare in."""
    return fold(clean(text), marks=False)


__all__ = ["canonical", "clean", "fold", "fold_table", "format_chars", "has_ell", "strip_marks"]
