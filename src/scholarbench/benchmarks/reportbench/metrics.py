"""ReportBench reference metrics: `ref_precision`, `ref_recall`, `ref_count`.

Titles are compared after the project's one normaliser (`text.normalize.normalize_title`:
NFKC, lower case, curly quotes and the dash family unified, punctuation to spaces). The
paper computes "the overlap between the extracted document titles and the ground-truth
reference titles"; upstream (`related_work_evaluator.py`) does it as a set intersection of
normalised titles. Here, the same, per survey:

- G = the distinct normalised GT titles (`n_gt = |G|`; GT lines with the same normalised
  title count once).
- The report's references: each reference may carry several titles (the corpus title of the
  paper it resolved to, the title the report states, the title the extractor hook gave); a
  reference matches when ANY of its titles is in G. References sharing a normalised title are
  one reference (and so are references that share an id, merged earlier by the parser).
- `ref_count` = the number of distinct references with a title (+ the unresolved references
  that carry a paper id, under `unresolved="miss"`).
- `ref_precision` = matched references / ref_count; `ref_recall` = matched GT titles / n_gt.
  Both 0 when their denominator is 0 (a report without references scores 0, and is counted).

`match="exact"` (default) is the equality above. `match="aligned"` uses the project's title
alignment (`text.align.align_titles`: one-to-one, equal or containment with ratio >= 0.6),
which forgives a stated title with a subtitle cut or a venue glued on; each reference then
contributes its first title only.

`unresolved="exclude"` (default, as upstream: a page that could not be fetched or read is not
in its precision denominator) leaves references without any title out of `ref_count`;
`unresolved="miss"` counts those that carry a paper id (DOI, arXiv, PubMed, …; a known
scholarly work whose title no corpus gave) as non-matching references. The second is a lower
bound on precision; the first can only over-state it when the corpus knows GT papers better
than others — which a corpus built from the GT does (see docs/reportbench.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from scholarbench.text.align import align_titles
from scholarbench.text.normalize import normalize_title

Match = Literal["exact", "aligned"]
Unresolved = Literal["exclude", "miss"]


@dataclass(frozen=True)
class RefScores:
    ref_precision: float
    ref_recall: float
    ref_count: int          # distinct references in the precision denominator
    n_gt: int               # distinct normalised GT titles
    n_matched: int          # references that match a GT title
    n_gt_matched: int       # GT titles matched by some reference

    def as_dict(self) -> dict:
        return {"ref_precision": self.ref_precision, "ref_recall": self.ref_recall,
                "ref_count": self.ref_count, "n_gt": self.n_gt, "n_matched": self.n_matched,
                "n_gt_matched": self.n_gt_matched}


def distinct_references(titles: Sequence[Sequence[str]]) -> list[list[str]]:
    """References (each a list of titles) merged when they share a normalised title; each
    result is the list of distinct normalised titles of one reference, first-seen order.
    References with no non-empty title are dropped."""
    groups: list[list[str]] = []
    owner: dict[str, int] = {}
    for alternatives in titles:
        norms = list(dict.fromkeys(n for t in alternatives if (n := normalize_title(t))))
        if not norms:
            continue
        hits = sorted({owner[n] for n in norms if n in owner})
        if not hits:
            owner.update({n: len(groups) for n in norms})
            groups.append(norms)
            continue
        target = hits[0]
        for other in hits[1:]:                     # one reference bridging two: merge them
            groups[target] += [n for n in groups[other] if n not in groups[target]]
            for n in groups[other]:
                owner[n] = target
            groups[other] = []
        groups[target] += [n for n in norms if n not in groups[target]]
        owner.update({n: target for n in norms})
    return [g for g in groups if g]


def reference_scores(pred: Sequence[Sequence[str] | str], gt_titles: Sequence[str], *,
                     unresolved_with_id: int = 0, match: Match = "exact",
                     unresolved: Unresolved = "exclude") -> RefScores:
    """Scores of one report. `pred`: one entry per reference, either a title or a list of
    alternative titles. `unresolved_with_id`: distinct untitled references carrying a paper id
    (used only with `unresolved="miss"`)."""
    if match not in ("exact", "aligned"):
        raise ValueError(f"match must be 'exact' or 'aligned', not {match!r}")
    if unresolved not in ("exclude", "miss"):
        raise ValueError(f"unresolved must be 'exclude' or 'miss', not {unresolved!r}")
    refs = distinct_references([[p] if isinstance(p, str) else list(p) for p in pred])
    gt = list(dict.fromkeys(n for t in gt_titles if (n := normalize_title(t))))
    if match == "exact":
        gt_set = set(gt)
        n_matched = sum(1 for alts in refs if any(n in gt_set for n in alts))
        n_gt_matched = len(gt_set & {n for alts in refs for n in alts})
    else:
        alignment = align_titles(gt, [alts[0] for alts in refs])
        n_matched = n_gt_matched = alignment.n_aligned
    extra = unresolved_with_id if unresolved == "miss" else 0
    count = len(refs) + extra
    return RefScores(ref_precision=n_matched / count if count else 0.0,
                     ref_recall=n_gt_matched / len(gt) if gt else 0.0,
                     ref_count=count, n_gt=len(gt), n_matched=n_matched,
                     n_gt_matched=n_gt_matched)
