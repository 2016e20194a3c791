"""Rule-based citation sentiment (SciNet's three classes: Positive / Negative / Neutral).

SciNet classified each citation context with GPT-5 (prompt in its appendix C, shipped as
`prompts/citation_sentiment.v1.txt`). Offline and deterministic, the ground truth here uses a cue
lexicon on the sentence that holds the citation marker:

1. Negative if the sentence has a negative cue (criticises, questions, points out limits);
2. else Positive if it has a positive cue (praises, builds upon, confirms);
3. else Neutral (mentions it as background).

The cue lists are `RULES_VERSION`-ed; changing them changes task files (their `info` records it).
"""
from __future__ import annotations

import re

RULES_VERSION = "cues-v1"
LABELS = ("Positive", "Negative", "Neutral")

NEGATIVE_CUES = (
    "however", "but ", "fail", "fails", "failed", "limitation", "limitations", "limited",
    "suffer", "suffers", "drawback", "drawbacks", "shortcoming", "unable", "cannot", "can not",
    "does not", "do not", "poor", "poorly", "problematic", "inefficient", "expensive",
    "unlike", "in contrast", "contrary", "inconsistent", "restrictive", "questionable",
    "not scalable", "lack", "lacks", "weakness", "error-prone", "costly",
)
POSITIVE_CUES = (
    "following", "we follow", "we use", "we used", "we adopt", "we adopted", "we employ",
    "we build on", "builds on", "build upon", "builds upon", "based on", "inspired by",
    "extend", "extends", "extending", "state-of-the-art", "state of the art", "effective",
    "successful", "successfully", "success", "powerful", "seminal", "pioneering",
    "outperform", "outperforms", "remarkable", "impressive", "significant improvement",
    "confirm", "confirms", "consistent with", "in line with", "promising", "popular",
    "widely used", "well-known", "excellent", "strong", "elegant", "efficient",
)


def _compile(cues: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"(?<![a-z])(?:" + "|".join(re.escape(c.strip()) for c in cues) + r")(?![a-z])")


_NEG, _POS = _compile(NEGATIVE_CUES), _compile(POSITIVE_CUES)


def classify_sentiment(text: str) -> str:
    """'Positive', 'Negative' or 'Neutral' by the cue rule above (case-insensitive)."""
    low = " ".join(text.lower().split())
    if _NEG.search(low):
        return "Negative"
    if _POS.search(low):
        return "Positive"
    return "Neutral"
