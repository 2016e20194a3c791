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
- `symbols`: `|` / `()` leetspeak ("|gn()re", "ju|)ge") read as letters (`|` as i, `||` as
  ll), when two words or more are written with it.
- `decoded`: what the text hides in an encoding, each read again by the detector: runs of
  base64 (≥ 16 characters) or hex (≥ 8 bytes, bare, spaced or `\\x`-escaped) that decode to
  mostly printable text, Unicode tag characters (invisible ASCII, U+E0020–E007E), HTML
  character references, and the text in rot13 or reversed when that holds two of the words an
  order to a judge uses (`_ORDER_STEMS`).
"""
from __future__ import annotations

import base64
import binascii
import codecs
import html
import re

from scholarbench.text.fold import clean, fold, has_ell, strip_marks

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
_HEX = re.compile(r"(?:(?:\\x|0x)?[0-9A-Fa-f]{2}[ ,:]?){8,}")
_TAGS = re.compile("[\U000E0020-\U000E007E]+")
_ENTITY = re.compile(r"&(#\d+|#[xX][0-9A-Fa-f]+|[A-Za-z]+\d*);")
# `|` and `()` leetspeak, longest first ("||" as ll: "a||", "fu||")
_SYMBOLS = (("|\\/|", "m"), ("|\\|", "n"), ("|-|", "h"), ("|_|", "u"), ("|)", "d"), ("|3", "b"),
            ("|2", "r"), ("|<", "k"), ("|_", "l"), ("||", "ll"), ("()", "o"), ("/\\", "a"),
            ("\\/", "v"), ("|", "i"))
# a word written with them: letters on both sides, or one starting with "|"
_SYMBOL_WORD = re.compile(r"[A-Za-z](\|+|\(\)|\|\))[A-Za-z]|(?<!\S)\|[A-Za-z]|[A-Za-z]\|\|")
# words of an order to a judge: a rot13 or reversed text holding two of them is read again
_ORDER_STEMS = ("ignore", "disregard", "instruction", "score", "judge", "rubric", "verdict",
                "marks", "rating", "grade", "evaluator", "highest", "maximum", "5/5", "10/10")


def folded(text: str) -> list[str]:
    """`text` (already `clean`) with lookalike letters as ASCII, combining marks dropped: one
    view, or two when an I-like glyph was folded (read as "l" and as "i")."""
    if text.isascii():
        return [text]
    out = fold(text)
    if has_ell(strip_marks(text)):
        return [out, fold(text, ell="i")]
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


def symbols(text: str) -> str | None:
    """`|` / `()` leetspeak read as letters ("|" as i, "||" as ll), or None when fewer than
    two words are written with it (a formula's "x|y" alone is not leetspeak)."""
    if len(_SYMBOL_WORD.findall(text)) < 2:
        return None
    for seq, letter in _SYMBOLS:
        text = text.replace(seq, letter)
    return text


def compact(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _printable(plain: str, min_printable: float) -> bool:
    return bool(plain) and sum(ch.isprintable() or ch in "\n\t" for ch in plain) \
        >= min_printable * len(plain)


def _order_like(text: str) -> bool:
    low = text.lower()
    return sum(stem in low for stem in _ORDER_STEMS) >= 2


def decoded(text: str, min_printable: float = 0.9) -> list[str]:
    """The texts `text` hides (see the module docstring), for the detector to read again."""
    out = [m.group(0).translate({c: c - 0xE0000 for c in range(0xE0020, 0xE007F)})
           for m in _TAGS.finditer(text)] if not text.isascii() else []
    text = clean(text)
    if "&" in text and _ENTITY.search(text):       # the lines holding entities, unescaped
        lines = [html.unescape(line) for line in text.splitlines() if _ENTITY.search(line)]
        out.append("\n".join(lines))
    out.extend(_base64(text, min_printable))
    out.extend(_hex(text, min_printable))
    for plain in (codecs.decode(text, "rot13"), text[::-1]):
        if _order_like(plain) and not _order_like(text):
            out.append(plain)
    return out


def _hex(text: str, min_printable: float) -> list[str]:
    out = []
    for match in _HEX.finditer(text):
        digits = re.sub(r"\\x|0x|[ ,:]", "", match.group(0))
        if len(digits) % 2:
            digits = digits[:-1]
        try:
            plain = bytes.fromhex(digits).decode("utf-8")
        except ValueError:
            continue
        if _printable(plain, min_printable) and sum(c.isalpha() for c in plain) >= len(plain) / 2:
            out.append(plain)
    return out


def _base64(text: str, min_printable: float) -> list[str]:
    """Runs of ≥ 16 characters (standard or URL-safe alphabet) that decode to UTF-8 with at
    least `min_printable` printable characters."""
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
        if _printable(plain, min_printable):
            out.append(plain)
    return out


def views(text: str) -> list[str]:
    """Every view the spaced rules read (`clean`, `folded`, `leet`, `joined`), deduplicated,
    `clean` first."""
    base = clean(text)
    out = [base]
    for fold in folded(base):
        read = symbols(fold)
        for view in [v for s in [fold, *([read] if read else [])] for v in [s, *leet(s)]]:
            out.append(view)
            if (j := joined(view)) is not None:
                out.append(j)
    return list(dict.fromkeys(out))
