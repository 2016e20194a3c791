"""Scoring organisation answers: each answer's mind-map read, every heading of the run embedded
and tagged once, then one row per sample (`measures.organisation.organisation_scores`).

The embedder and the entity extractor cache by text, so embedding the run's headings in one
batch (`warm_caches`) leaves each sample's scoring only cache hits: fewer, fuller encoder
batches than one per sample. An embedder or extractor that keeps no cache is not warmed (the
work would be done twice).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from scholarbench.benchmarks.researcharena.measures.declared import ORGANISATION_KEYS
from scholarbench.benchmarks.researcharena.measures.organisation import (
    SpacyEntityExtractor, heading_labels, organisation_scores)
from scholarbench.benchmarks.researcharena.records import NO_MINDMAP, ArenaTask, mindmap_from_json
from scholarbench.benchmarks.researcharena.scoring import answer_row, row_status
from scholarbench.embed.base import CachedEmbedder
from scholarbench.records import TaxoNode


@dataclass
class MindmapAnswer:
    """One organisation answer as read: its row so far, its outcome (`scoring.answer_row`) and
    the predicted mind-map (None: missing, malformed or not run)."""
    row: dict[str, Any]
    outcome: str
    pred: TaxoNode | None


def read_mindmap(task: ArenaTask, rec: dict[str, Any] | None) -> MindmapAnswer:
    """The answer's mind-map; one that does not parse makes the answer malformed (scored as an
    empty mind-map)."""
    unscorable = NO_MINDMAP if task.mindmap is None else None
    row, outcome = answer_row(task, rec, "mindmap", unscorable)
    pred = None
    if outcome == "ok" and rec is not None:
        try:
            pred = mindmap_from_json(rec["mindmap"])
        except ValueError as exc:
            row.update(malformed=True, error=str(exc))
            outcome = "malformed"
    if unscorable:
        row["unscorable"] = unscorable
    return MindmapAnswer(row, outcome, pred)


def warm_caches(trees: Iterable[TaxoNode | None], embedder: Any, extractor: Any) -> None:
    """Embed and tag every distinct heading of `trees` in one call each (as the measures
    normalise them), for the caches the per-sample scoring then reads."""
    labels = list(dict.fromkeys(" ".join(x.split()) for tree in trees
                                for x in heading_labels(tree)))
    if not labels:
        return
    if isinstance(embedder, CachedEmbedder):
        embedder.embed(labels)
    if isinstance(extractor, SpacyEntityExtractor):
        extractor.extract(labels)


def organisation_row(task: ArenaTask, answer: MindmapAnswer, embedder: Any, extractor: Any
                     ) -> dict[str, Any]:
    """One sample's row: the three measures against the task's mind-map (null when the task
    has none or the agent errored)."""
    row = dict(answer.row)
    if answer.row.get("unscorable") or answer.outcome == "error":
        row.update({k: None for k in ORGANISATION_KEYS})
    else:
        row["mindmap_source"] = task.mindmap_source
        row.update(organisation_scores(task.mindmap, answer.pred, embedder, extractor=extractor))
    row["status"] = row_status(row, answer.outcome)
    return row


__all__ = ["MindmapAnswer", "organisation_row", "read_mindmap", "warm_caches"]
