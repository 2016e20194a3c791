"""The ResearchArena report marks published Heading Entity Recall as not comparable with ours
(the paper's FLAIR NER vs our spaCy; docs/researcharena.md)."""
from __future__ import annotations

from scholarbench.benchmarks.researcharena.published import TABLE_KEYS, published_rows
from scholarbench.benchmarks.researcharena.report import ResearchArenaSection


def test_published_heading_entity_recall_is_marked_not_comparable():
    table = ResearchArenaSection()._table("T", TABLE_KEYS[3], [], published_rows(3))
    published = [r for r in table.rows if r.kind == "published"]
    assert [r.cells[2:] for r in published] == [("0.6074", "0.2104†", "45.69"),
                                                ("0.7325", "0.3098†", "60.04"),
                                                ("0.8408", "0.2446†", "49.83"),
                                                ("0.7940", "0.2938†", "66.65"),   # STORM.BM25
                                                ("0.7842", "0.2693†", "65.93")]   # STORM.BGE
    assert [r.values[1] for r in published] == [0.2104, 0.3098, 0.2446, 0.2938, 0.2693]
    assert len(table.notes) == 1 and table.notes[0].startswith("† Heading Entity Recall:")
    assert "FLAIR" in table.notes[0] and "not comparable" in table.notes[0]
    # no published rows, or another table: no mark and no note
    assert ResearchArenaSection()._table("T", TABLE_KEYS[3], [], []).notes == ()
    t1 = ResearchArenaSection()._table("T", TABLE_KEYS[1], [], published_rows(1))
    assert t1.notes == () and not any("†" in c for r in t1.rows for c in r.cells)
