"""How DeepSynth-Eval's measures and checklist statuses are named, printed and coloured in the
report (shared by the section and its drill-down)."""
from __future__ import annotations

from scholarbench.benchmarks.deepsynth.measures import BASE_KEYS, LABELS, TASK_KEYS
from scholarbench.report.sections.base import MetricDisplay

KEYS = BASE_KEYS                 # the measures' columns (measures.py); TASK_KEYS: per task
COUNT_KEYS = ("n_correct", "n_not_mentioned", "n_incorrect", "n_unscored")
STATUS_NAMES = ("correct", "not mentioned", "incorrect", "unscored")
STATUS_COLOURS = ("#009E73", "#bdbdbd", "#D55E00", "#8a8a8a")
LABEL_STATUS = {"mentioned_correct": "correct", "not_mentioned": "not mentioned",
                "mentioned_incorrect": "incorrect"}
# the measures (`measures.BASES`): a group score has no lower clip (down to -1/clip_factor)
DISPLAY: dict[str, MetricDisplay] = {
    **{k: MetricDisplay(k, LABELS[k], percent=True, decimals=1, sign="",
                        bounds=(None, 1.0) if k in TASK_KEYS else (0.0, 1.0))
       for k in KEYS},
    # per task only (the drill-down, the distributions): correct / (correct + incorrect)
    "task_precision": MetricDisplay("task_precision", "Precision (task)", percent=True,
                                    decimals=1, sign=""),
}
COUNT_DISPLAY = {k: MetricDisplay(k, label, decimals=0, bounds=(0.0, None), directional=False)
                 for k, label in
                 zip(COUNT_KEYS, ("Correct", "Not mentioned", "Incorrect", "Unscored"))}
TITLE = "Table 1 layout — evaluation metrics (%)"
EXCERPT_CHARS = 2400
