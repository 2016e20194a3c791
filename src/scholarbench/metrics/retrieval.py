"""Set retrieval metrics (TaxoBench eq. 1-2) over title alignment."""
from __future__ import annotations

from scholarbench.text.align import Alignment


def retrieval_scores(alignment: Alignment) -> dict[str, float]:
    """Recall |P* ∩ P̂|/|P*|, precision |P* ∩ P̂|/|P̂|, F1. Duplicate titles count once.

    An empty retrieved set has precision 0 (not undefined): an agent that returns nothing is
    scored, not excluded. F1 is 0 when precision + recall is 0.
    """
    hit = alignment.n_aligned
    recall = hit / len(alignment.expert) if alignment.expert else 0.0
    precision = hit / len(alignment.model) if alignment.model else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"recall": recall, "precision": precision, "f1": f1}
