"""What the SciNet paper published for its downstream review (§6), to show beside our runs.

The five judged dimensions (Relevance, Completeness, Depth, Logical Consistency, Usefulness,
1–10, averaged over the 40 queries per method) are published only as a bar chart, "Figure 6.
LLM Evaluation of Survey Generation Quality" (../shared/papers/004_ef33e603ab8a9cb2.txt, §6):
the paper's text prints none of its values, so there are no published numbers for them and
every table shows "—" there with this note. What the text does print is Table 4, "Human
preference rankings across 40 queries" (three experts ranking the four systems' reviews; lower
is better) — a different measure (a rank among four systems, not a 1–10 score), kept here with
its row names and shown in the note only, never in the dimensions' columns.
`tests/test_scinet_review.py` checks these rows against the paper's text.
"""
from __future__ import annotations

from dataclasses import dataclass

FIGURE = "SciNet paper §6, Figure 6 (bar chart; values not printed in the text)"
TABLE4 = "SciNet paper §6, Table 4 (human preference rankings across 40 queries)"


@dataclass(frozen=True)
class HumanRank:
    system: str                 # Table 4's "Method" column
    avg_rank: float             # "Avg. Rank ↓"
    rank_counts: tuple[int, int, int, int]   # "#Rank=1" … "#Rank=4"


TABLE4_ROWS: tuple[HumanRank, ...] = (
    HumanRank("Ground Truth", 1.33, (30, 7, 3, 0)),
    HumanRank("Deep Research System", 2.20, (6, 22, 10, 2)),
    HumanRank("Base LLM", 3.00, (3, 6, 19, 12)),
    HumanRank("Search-enabled LLM", 3.58, (1, 3, 8, 28)),
)


@dataclass(frozen=True)
class ReviewPublished:
    dimensions: dict[str, float]        # none: the paper prints no value (Figure 6 only)
    human_ranks: tuple[HumanRank, ...]
    note: str
    short: str = "the paper shows these five scores in its Figure 6 only (no printed values)"


def review_published() -> ReviewPublished:
    ranks = "; ".join(f"{r.system} {r.avg_rank:.2f}" for r in TABLE4_ROWS)
    return ReviewPublished(
        {}, TABLE4_ROWS,
        f"the paper's five-dimension scores are in {FIGURE} — no published numbers; its "
        f"{TABLE4} gives average human ranks of the four systems ({ranks}), a different "
        "measure, not shown beside ours")
