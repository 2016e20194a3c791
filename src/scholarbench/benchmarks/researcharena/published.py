"""The ResearchArena paper's published baseline results (Tables 1–3), as rows to show beside ours.

Transcribed from "ResearchArena: Benchmarking LLMs' Ability to Collect and Organize Information
as Research Agents" (Kang & Xiong; ../shared/papers/001_80d49084e655d83b.txt, §6.2).
Tables 1 and 2 print one column per retriever (BM25, BGE) under each measure; each of our rows is
one baseline with one retriever, named "TITLE (BM25)" etc. System names keep the paper's spelling
per table ("Title" in Table 1, "TITLE" in Table 2). Table 2's MRR column is our `RR` (its mean
over tasks is MRR). Table 3's "Oracle" column spans rows as printed ("Yes": Clustering and
STORM; "No": Few-Shot, STORM.BM25, STORM.BGE — STORM end to end with each retriever); we keep it
as the row group. Values are on our scale (fractions as
printed; Tree Semantic Distance absolute). The paper measured on its own 12M-paper S2ORC
corpus; our corpora differ (docs/researcharena.md explains why the numbers are not comparable
one to one). `tests/test_report_html.py` checks every value against the paper's text.
"""
from __future__ import annotations

from dataclasses import dataclass

PAPER_CITATION = "ResearchArena paper (Kang & Xiong 2024)"
# The benchmark's size per table (§3.4: 7,952 surveys, 1,884 mind-maps); the paper does not say
# whether every task entered each table, so the report prints these as "≤ n".
PAPER_N = {1: 7952, 2: 7952, 3: 1884}

DISCOVERY, SELECTION, ORGANISATION = "discovery", "selection", "organisation"
TABLE_KEYS: dict[int, tuple[str, ...]] = {
    1: ("R@10", "R@100", "P@10", "P@100"),
    2: ("nDCG@10", "nDCG@30", "nDCG@100", "RR"),
    3: ("heading_soft_recall", "heading_entity_recall", "tree_semantic_distance"),
}
TABLE_MODE = {1: DISCOVERY, 2: SELECTION, 3: ORGANISATION}


@dataclass(frozen=True)
class ArenaPublishedRow:
    table: int
    mode: str
    system: str            # "TITLE (BM25)": the printed baseline, then the retriever
    group: str | None      # Table 3: "with oracle" / "without oracle"
    values: dict[str, float]


def _by_retriever(table: int, data: list[tuple[str, tuple[float, ...]]]
                  ) -> list[ArenaPublishedRow]:
    """Rows printed as measure1-BM25, measure1-BGE, measure2-BM25, ... → one row per retriever."""
    keys = TABLE_KEYS[table]
    out = []
    for system, values in data:
        if len(values) != 2 * len(keys):
            raise AssertionError(f"Table {table} row {system!r}: {len(values)} values")
        for offset, retriever in enumerate(("BM25", "BGE")):
            out.append(ArenaPublishedRow(table, TABLE_MODE[table], f"{system} ({retriever})",
                                         None, {k: values[2 * i + offset]
                                                for i, k in enumerate(keys)}))
    return out


# Table 1: discovery, Recall@10 | Recall@100 | Precision@10 | Precision@100, each BM25 | BGE.
_TABLE_1 = _by_retriever(1, [
    ("Title",      (0.0424, 0.1012, 0.1338, 0.2697, 0.0669, 0.1541, 0.0286, 0.0586)),
    ("ZERO-SHOT",  (0.0382, 0.0832, 0.1253, 0.2287, 0.0602, 0.1232, 0.0256, 0.0464)),
    ("DECOMPOSER", (0.0434, 0.0879, 0.1431, 0.2554, 0.0717, 0.1304, 0.0312, 0.0536)),
    ("Self-RAG",   (0.0380, 0.0815, 0.1210, 0.2260, 0.0595, 0.1215, 0.0256, 0.0461)),
    ("STORM",      (0.0281, 0.0979, 0.0693, 0.1441, 0.0446, 0.1041, 0.0130, 0.0208)),
])

# Table 2: selection, nDCG@10 | nDCG@30 | nDCG@100 | MRR, each BM25 | BGE.
_TABLE_2 = _by_retriever(2, [
    ("TITLE",      (0.0711, 0.1678, 0.0775, 0.1754, 0.0941, 0.2019, 0.1903, 0.3816)),
    ("ZERO-SHOT",  (0.0634, 0.1346, 0.0692, 0.1417, 0.0856, 0.1657, 0.1743, 0.3246)),
    ("DECOMPOSER", (0.0735, 0.1445, 0.0803, 0.1554, 0.0986, 0.1838, 0.1959, 0.3510)),
    ("SELF-RAG",   (0.0627, 0.1341, 0.0679, 0.1415, 0.0837, 0.1646, 0.1705, 0.3233)),
    ("STORM",      (0.0445, 0.1275, 0.0507, 0.1322, 0.0524, 0.1267, 0.1271, 0.3206)),
])

# Table 3: organisation, Heading Soft Recall | Heading Entity Recall | Tree Semantic Distance.
_TABLE_3 = [ArenaPublishedRow(3, ORGANISATION, system, group, dict(zip(TABLE_KEYS[3], values)))
            for system, group, values in [
                ("Clustering", "with oracle", (0.6074, 0.2104, 45.69)),
                ("STORM", "with oracle", (0.7325, 0.3098, 60.04)),
                ("Few-Shot", "without oracle", (0.8408, 0.2446, 49.83)),
                ("STORM.BM25", "without oracle", (0.7940, 0.2938, 66.65)),
                ("STORM.BGE", "without oracle", (0.7842, 0.2693, 65.93)),
            ]]

PUBLISHED: tuple[ArenaPublishedRow, ...] = tuple(_TABLE_1 + _TABLE_2 + _TABLE_3)


def published_rows(table: int | None = None, mode: str | None = None
                   ) -> list[ArenaPublishedRow]:
    return [row for row in PUBLISHED
            if (table is None or row.table == table) and (mode is None or row.mode == mode)]
