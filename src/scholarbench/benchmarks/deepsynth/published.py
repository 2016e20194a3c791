"""The DeepSynth-Eval paper's published results (Table 1), as rows to show beside ours.

Transcribed from "DeepSynth-Eval" (../shared/papers/002_0666b7058b0e67b3.txt, §4, Table 1:
"Main results under our two controlled synthesis workflows"). The paper prints every metric
×100 ("Evaluation Metrics(%)", one decimal); we store fractions (our summary.json's scale) and
print them ×100 with one decimal, as the paper does. Row groups are the paper's workflows
("E2E Single-turn", "Agentic Multi-turn"); the Reference Survey row (the human survey judged
against its own checklist) has none. The judge and the oracle summariser were DeepSeek-V3.2
(§4.1); n = 96 tasks except the row the paper marks as a 59-task subset.
`tests/test_report_deepsynth_reportbench.py` checks every value against the paper's text.
"""
from __future__ import annotations

from dataclasses import dataclass

PAPER_CITATION = "DeepSynth-Eval paper, Table 1"
PAPER_JUDGE = "DeepSeek-V3.2"
PAPER_N = 96
KEYS = ("dse_overall", "dse_general", "dse_constraint", "dse_precision")


@dataclass(frozen=True)
class DeepSynthPublishedRow:
    system: str
    group: str | None           # the workflow: "E2E Single-turn" | "Agentic Multi-turn"
    values: dict[str, float]    # fractions (the paper's number / 100)
    n: int = PAPER_N
    printed: tuple[str, ...] = ()   # the numbers as the paper prints them


def _row(system: str, group: str | None, printed: str, n: int = PAPER_N
         ) -> DeepSynthPublishedRow:
    numbers = printed.split()
    return DeepSynthPublishedRow(system, group, {k: round(float(v) / 100, 6)
                                                 for k, v in zip(KEYS, numbers, strict=True)},
                                 n, tuple(numbers))


E2E, AGENTIC = "E2E Single-turn", "Agentic Multi-turn"
PUBLISHED: tuple[DeepSynthPublishedRow, ...] = (
    _row("Reference Survey", None, "96.1 95.5 98.9 99.6"),
    _row("Qwen3-30B-A3B-Thinking-2507", E2E, "6.3 4.8 11.4 69.5"),
    _row("Qwen3-235B-A22B-Thinking-2507", E2E, "24.8 24.7 23.3 79.9"),
    _row("DeepSeek-V3.2", E2E, "23.4 22.2 27.0 79.8"),
    _row("GPT-5.2", E2E, "28.3 26.4 36.1 85.5"),
    _row("Qwen3-30B-A3B-Thinking-2507", AGENTIC, "17.3 17.7 16.0 90.1"),
    _row("Qwen3-235B-A22B-Thinking-2507", AGENTIC, "35.5 37.5 27.5 92.9"),
    _row("DeepSeek-V3.2", AGENTIC, "30.4 31.4 27.0 91.4"),
    _row("GPT-5.2", AGENTIC, "33.3 34.8 26.2 95.3"),
    _row("GPT-5.2 (59/96 tasks subset)", AGENTIC, "37.0 39.0 28.4 95.0", n=59),
)


def published_rows() -> list[DeepSynthPublishedRow]:
    return list(PUBLISHED)
