"""What DeepSynth-Eval's report shows beside its measures (their display is on the `Measure`,
`measures.py`): the per-task precision and the checklist counts of the drill-down, and how the
checklist statuses are named and coloured (shared by the section and its drill-down)."""
from __future__ import annotations

from scholarbench.benchmarks.deepsynth.measures import (  # noqa: F401  (TASK_KEYS re-exported)
    BASE_KEYS, BENCHMARK, TASK_KEYS, measures_for)
from scholarbench.core.measure import Measure

KEYS = BASE_KEYS                 # the measures' columns (measures.py); TASK_KEYS: per task
COUNT_KEYS = ("n_correct", "n_not_mentioned", "n_incorrect", "n_unscored")
STATUS_NAMES = ("correct", "not mentioned", "incorrect", "unscored")
STATUS_COLOURS = ("#009E73", "#bdbdbd", "#D55E00", "#8a8a8a")
LABEL_STATUS = {"mentioned_correct": "correct", "not_mentioned": "not mentioned",
                "mentioned_incorrect": "incorrect"}
# the paper variant's measures (the table's columns), and per task only (the drill-down, the
# distributions) the task's precision: correct / (correct + incorrect)
COLUMNS: dict[str, Measure] = {
    **{m.key: m for m in measures_for("paper")},
    "task_precision": Measure(BENCHMARK, "task_precision", label="Precision (task)",
                              unit="fraction", percent=True, decimals=1, sign=""),
}
COUNTS: dict[str, Measure] = {
    k: Measure(BENCHMARK, k, label=label, direction="none", decimals=0, bounds=(0.0, None))
    for k, label in zip(COUNT_KEYS, ("Correct", "Not mentioned", "Incorrect", "Unscored"))}
TITLE = "Table 1 layout — evaluation metrics (%)"
EXCERPT_CHARS = 2400
