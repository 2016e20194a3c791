"""The views of a text the injection rules read, so a disguise does not hide an order.

- `clean`: Unicode NFKC (full-width and mathematical letters, ligatures → plain ones), then
  every format character (category Cf: zero-width spaces and joiners, soft hyphens, bidi
  controls, BOM) removed.
- `folded`: `clean` without combining marks, each letter that Unicode's confusables table
  (TR39, the `confusable-homoglyphs` package's data) maps to one ASCII letter replaced by it —
  Cyrillic "о", Greek "Ο", Cherokee "Ꭺ" → o, O, A. TR39 maps I-like glyphs to "l"; they are
  read both as "l" and as "i" (two views) since the table cannot tell which was meant.
- `leet`: in words that mix letters with 0 1 3 4 5 7 @ $ !, those read as o i/l e a s t a s i.
- `joined`: single letters split by one space, dot, hyphen or underscore ("s c o r e",
  "i.g.n.o.r.e") joined, and word fragments split by a hyphen or dot ("sc-ore") joined.
- `compact`: lower-case letters and digits only (every separator gone), for the rules that look
  for an order spelt without word boundaries.
- `decoded`: runs of base64 (≥ 16 characters) that decode to mostly printable text.
"""
from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from functools import lru_cache

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a",
                       "$": "s", "!": "i"})
_LEET_L = str.maketrans({"1": "l"})
# a word holding a letter and a leet character
_LEET_WORD = re.compile(r"(?<![A-Za-z0-9@$!])(?=[A-Za-z0-9@$!]*[A-Za-z])"
                        r"(?=[A-Za-z0-9@$!]*[0134579@$!])[A-Za-z0-9@$!]+")
_HAS_LEET = re.compile(r"[A-Za-z][0134579@$!]|[0134579@$!][A-Za-z]")
_SPACED = re.compile(r"(?<![A-Za-z])[A-Za-z](?:[ ._\-][A-Za-z](?![A-Za-z])){2,}")
_FRAGMENTS = re.compile(r"(?<=[A-Za-z])[.\-](?=[A-Za-z])")
_B64 = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}")


@lru_cache(maxsize=1)
def _format_chars() -> re.Pattern[str]:
    """Every code point of category Cf (zero-width, soft hyphen, bidi controls, tags, …)."""
    return re.compile("[" + "".join(re.escape(chr(c)) for c in range(0x80, 0x110000)
                                    if unicodedata.category(chr(c)) == "Cf") + "]")


def clean(text: str) -> str:
    if text.isascii():
        return text                  # NFKC changes no ASCII; ASCII holds no Cf character
    return _format_chars().sub("", unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=1)
def _fold_table() -> tuple[dict[int, str], frozenset[int]]:
    """Non-ASCII letter → its ASCII confusable; and the code points folded to "l"."""
    from confusable_homoglyphs.confusables import confusables_data
    table: dict[int, str] = {}
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        letters = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii()
                   and g["c"].isalpha()]
        if letters:
            table[ord(char)] = letters[0]
    return table, frozenset(k for k, v in table.items() if v == "l")


def folded(text: str) -> list[str]:
    """`text` (already `clean`) with lookalike letters as ASCII: one view, or two when an
    I-like glyph was folded (read as "l" and as "i")."""
    if text.isascii():
        return [text]
    table, ells = _fold_table()
    bare = "".join(ch for ch in unicodedata.normalize("NFD", text)
                   if unicodedata.category(ch) != "Mn")
    bare = unicodedata.normalize("NFC", bare)
    out = bare.translate(table)
    if any(ord(ch) in ells for ch in bare):
        return [out, bare.translate({**table, **{k: "i" for k in ells}})]
    return [out]


def leet(text: str) -> list[str]:
    """Leetspeak read as letters, in words holding a letter (1 as i, then as l); [] when
    nothing in `text` looks like it."""
    if not _HAS_LEET.search(text):
        return []
    words = _LEET_WORD.findall(text)
    if not words:
        return []
    as_i = _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), text)
    if not any("1" in w for w in words):
        return [as_i]
    return [as_i, _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET_L).translate(_LEET), text)]


def joined(text: str) -> str | None:
    """Split letters and hyphen/dot-split fragments joined; None when nothing changed."""
    out = _SPACED.sub(lambda m: re.sub(r"[ ._\-]", "", m.group(0)), text)
    out = _FRAGMENTS.sub("", out)
    return None if out == text else out


def compact(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def decoded(text: str, min_printable: float = 0.9) -> list[str]:
    """The texts hidden in base64 runs of `text` (standard or URL-safe alphabet): runs of
    ≥ 16 characters that decode to UTF-8 with at least `min_printable` printable characters."""
    out = []
    for match in _B64.finditer(text):
        run = match.group(0).rstrip("=")
        if not re.search(r"[0-9+/_\-]|[a-z][A-Z]|[A-Z]{2}[a-z]", run):
            continue                        # a plain long word, not an encoding
        run = run[: len(run) - len(run) % 4] if len(run) % 4 == 1 else run
        padded = run + "=" * (-len(run) % 4)
        try:
            raw = (base64.urlsafe_b64decode(padded) if re.search(r"[_\-]", run)
                   else base64.b64decode(padded, validate=True))
            plain = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if plain and sum(ch.isprintable() or ch in "\n\t" for ch in plain) \
                >= min_printable * len(plain):
            out.append(plain)
    return out


def views(text: str) -> list[str]:
    """Every view the spaced rules read (`clean`, `folded`, `leet`, `joined`), deduplicated,
    `clean` first."""
    base = clean(text)
    out = [base]
    for fold in folded(base):
        for view in [fold, *leet(fold)]:
            out.append(view)
            if (j := joined(view)) is not None:
                out.append(j)
    return list(dict.fromkeys(out))
