"""How DeepSynth-Eval's measures and checklist statuses are named, printed and coloured in the
report (shared by the section and its drill-down)."""
from __future__ import annotations

from scholarbench.report.sections.base import MetricDisplay

KEYS = ("dse_overall", "dse_general", "dse_constraint", "dse_precision")
TASK_KEYS = KEYS[:3]
COUNT_KEYS = ("n_correct", "n_not_mentioned", "n_incorrect", "n_unscored")
STATUS_NAMES = ("correct", "not mentioned", "incorrect", "unscored")
STATUS_COLOURS = ("#009E73", "#bdbdbd", "#D55E00", "#8a8a8a")
LABEL_STATUS = {"mentioned_correct": "correct", "not_mentioned": "not mentioned",
                "mentioned_incorrect": "incorrect"}
DISPLAY: dict[str, MetricDisplay] = {
    "dse_overall": MetricDisplay("dse_overall", "Overall", percent=True, decimals=1, sign="",
                                 bounds=(None, 1.0)),
    "dse_general": MetricDisplay("dse_general", "General", percent=True, decimals=1, sign="",
                                 bounds=(None, 1.0)),
    "dse_constraint": MetricDisplay("dse_constraint", "Constraint", percent=True, decimals=1,
                                    sign="", bounds=(None, 1.0)),
    "dse_precision": MetricDisplay("dse_precision", "Precision", percent=True, decimals=1,
                                   sign=""),
    # per task only (the drill-down, the distributions): correct / (correct + incorrect)
    "task_precision": MetricDisplay("task_precision", "Precision (task)", percent=True,
                                    decimals=1, sign=""),
}
COUNT_DISPLAY = {k: MetricDisplay(k, label, decimals=0, bounds=(0.0, None), directional=False)
                 for k, label in
                 zip(COUNT_KEYS, ("Correct", "Not mentioned", "Incorrect", "Unscored"))}
TITLE = "Table 1 layout — evaluation metrics (%)"
EXCERPT_CHARS = 2400
