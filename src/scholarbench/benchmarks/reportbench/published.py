"""The ReportBench paper's published results (Table 1), as rows to show beside ours.

Transcribed from "ReportBench" (../shared/papers/003_22f823472828d6a1.txt, §3.2, Table 1:
"Performance metrics of OpenAI Deep Research, Gemini Deep Research, and the base models").
Columns: reference Precision, Recall, Ref Num (mean references per report); cited statements'
Match Rate and Count (mean per report); non-cited statements' Factual Acc and Count. We store
rates as fractions (the paper prints precision/recall as fractions, the two accuracies as
percentages) and counts as printed. Statement extraction and matching used gpt-4o; the
non-cited vote gemini-2.5-pro and gemini-2.5-flash, three samples each (§3.1); outputs were
collected from the products' web interfaces in July 2025 on the benchmark's 100 surveys.
`tests/test_report_deepsynth_reportbench.py` checks every value against the paper's text.
"""
from __future__ import annotations

from dataclasses import dataclass

PAPER_CITATION = "ReportBench paper, Table 1"
PAPER_JUDGES = "gpt-4o (statements, matching); gemini-2.5-pro + gemini-2.5-flash (vote)"
PAPER_N = 100
KEYS = ("ref_precision", "ref_recall", "ref_count", "cited_match_rate", "n_cited",
        "noncited_accuracy", "n_noncited")


@dataclass(frozen=True)
class ReportBenchPublishedRow:
    system: str
    group: str
    values: dict[str, float]
    printed: tuple[str, ...]    # the seven numbers as the paper prints them


def _row(system: str, group: str, printed: str) -> ReportBenchPublishedRow:
    numbers = printed.split()
    values = {}
    for key, text in zip(KEYS, numbers, strict=True):
        values[key] = (round(float(text[:-1]) / 100, 6) if text.endswith("%")
                       else float(text))
    return ReportBenchPublishedRow(system, group, values, tuple(numbers))


PRODUCTS, BASE = "Deep Research products", "base models with search and link reader"
PUBLISHED: tuple[ReportBenchPublishedRow, ...] = (
    _row("OpenAI Deep Research", PRODUCTS, "0.385 0.033 9.89 78.87% 88.2 95.83% 38.9"),
    _row("Gemini Deep Research", PRODUCTS, "0.145 0.036 32.42 72.94% 96.2 92.21% 49.6"),
    _row("gemini-2.5-flash", BASE, "0.237 0.012 5.47 44.88% 12.1 98.52% 11.5"),
    _row("gemini-2.5-pro", BASE, "0.269 0.010 4.27 59.24% 6.58 96.08% 9.35"),
    _row("openai-o3", BASE, "0.299 0.031 12.26 31.43% 16.16 82.22% 11.51"),
    _row("claude4-sonnet", BASE, "0.337 0.021 6.74 73.67% 14.93 92.64% 17.07"),
)


def published_rows() -> list[ReportBenchPublishedRow]:
    return list(PUBLISHED)
