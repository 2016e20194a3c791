"""One-to-one alignment of expert and model paper titles (TaxoBench A.5).

Two normalised titles match when they are equal, or when their similarity ratio is at least
0.6 *and* one contains the other (as a substring of the normalised text). The ratio is rapidfuzz's normalised
Indel similarity (the same value as difflib's SequenceMatcher.ratio on these strings), so a
contained title must be at least ~43% of the other's length: "model" or "a" never matches a real
title. Pairs are taken greedily by descending score, ties broken by expert then model position,
so the result is deterministic and each title is used at most once. Duplicate titles (same
normalised form) on either side count once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from scholarbench.text.normalize import normalize_title

MIN_RATIO = 0.6


@dataclass
class Alignment:
    expert: list[str]          # distinct expert titles (first spelling kept), in input order
    model: list[str]           # distinct model titles, in input order
    pairs: list[tuple[int, int, float]]  # (expert index, model index, score)

    @property
    def n_aligned(self) -> int:
        return len(self.pairs)

    def model_for_expert(self) -> dict[int, int]:
        return {e: m for e, m, _ in self.pairs}


def dedupe(titles: list[str]) -> tuple[list[str], list[str]]:
    """Distinct titles by normalised form: (first spellings, normalised forms). Empty ones dropped."""
    seen: set[str] = set()
    kept, norms = [], []
    for title in titles:
        norm = normalize_title(title)
        if norm and norm not in seen:
            seen.add(norm)
            kept.append(title)
            norms.append(norm)
    return kept, norms


def _contains(a: str, b: str) -> bool:
    return a in b or b in a


def align_titles(expert_titles: list[str], model_titles: list[str]) -> Alignment:
    expert, e_norm = dedupe(expert_titles)
    model, m_norm = dedupe(model_titles)
    if not expert or not model:
        return Alignment(expert, model, [])
    scores = cdist(e_norm, m_norm, scorer=Indel.normalized_similarity, dtype=np.float64,
                   workers=1)
    candidates = []
    for i, j in zip(*np.nonzero(scores >= MIN_RATIO)):
        score = float(scores[i, j])
        if e_norm[i] == m_norm[j]:
            candidates.append((1.0, int(i), int(j)))
        elif _contains(e_norm[i], m_norm[j]):
            candidates.append((score, int(i), int(j)))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_e: set[int] = set()
    used_m: set[int] = set()
    pairs = []
    for score, i, j in candidates:
        if i in used_e or j in used_m:
            continue
        used_e.add(i)
        used_m.add(j)
        pairs.append((i, j, score))
    pairs.sort()
    return Alignment(expert, model, pairs)
