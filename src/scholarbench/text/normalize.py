"""The project's one title normaliser, used wherever titles are compared.

It reads through disguises with `text.fold` (the injection detector's normaliser): format
characters (zero-width spaces, soft hyphens, …) are removed and lookalike letters of other
scripts (a Cyrillic "а", small capitals) compare as the Latin letter they imitate."""
from __future__ import annotations

import re
from functools import lru_cache

from scholarbench.text.fold import clean, fold

# Curly quotes, primes and the dash family all become their ASCII forms before punctuation is
# stripped, so "Graph‐based" (U+2010) and "Graph-based" normalise identically.
_UNIFY = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u2043": "-", "\ufe58": "-", "\ufe63": "-", "\uff0d": "-",
})
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


@lru_cache(maxsize=1 << 15)
def normalize_title(title: str) -> str:
    """NFKC, format characters removed, lower case, lookalike letters folded (`text.fold`),
    quotes/dashes unified, punctuation (and `_`) to space, spaces collapsed.

    Memoised (32,768 titles, a few MB at most): one TaxoBench instance normalises each title
    several times (categories, alignment, leaf labels), and re-scoring meets the same titles."""
    if title.isascii():
        text = title.lower()
    else:
        text = fold(clean(title).translate(_UNIFY).lower(), marks=False)
    text = _NON_WORD.sub(" ", text).replace("_", " ")
    return " ".join(text.split())
