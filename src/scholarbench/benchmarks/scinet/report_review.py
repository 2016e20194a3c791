"""SciNet's review sub-task in the report: the five judged dimensions per run, with the paper's
§6 systems beside them as published rows — without numbers, since the paper shows these
scores only in a bar chart (Figure 6; `published.py`), which the table says."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet.published import FIGURE, TABLE4, review_published
from scholarbench.benchmarks.scinet.report_display import COLUMNS, family_summary
from scholarbench.benchmarks.scinet.review_judge import REVIEW_METRICS
from scholarbench.report.sections.base import ReportRun, plural
from scholarbench.report.tables import Row, Table

TITLE = "SciNet review — the judge's five dimensions (1–10)"


def review_table(runs: Sequence[ReportRun], published: bool = True) -> Table:
    keys = REVIEW_METRICS
    header = ("System", "Samples") + tuple(COLUMNS[k].label for k in keys) + \
        ("Unscored", "No usable review")
    rows: list[Row] = []
    notes: list[str] = []
    for r in runs:
        agg: dict[str, Any] = family_summary(r)
        values = [r.summary.metrics[k].mean if k in r.summary.metrics else None for k in keys]
        cells = tuple(COLUMNS[k].format_with_interval(v, r.interval(k))
                      for k, v in zip(keys, values))
        unscored, missing = int(agg.get("unscored", 0)), int(agg.get("missing_answers", 0))
        rows.append(Row("ours", (r.name, f"n={r.summary.n_samples}") + cells
                        + (f"{unscored:,}", f"{missing:,}"),
                        tuple(values) + (float(unscored), float(missing)), str(r.run_dir)))
        m = r.summary.metrics.get(keys[0])
        notes.append(f"{r.name}: means over {plural(m.n if m else 0, 'review')} the judge "
                     f"scored; {plural(unscored, 'review')} unscored (judge reply unusable "
                     f"after one repair) and {plural(missing, 'task')} without a usable review "
                     "(malformed or missing) are left out and counted")
    info = review_published()
    if published:
        rows.append(Row("separator", (f"published: {FIGURE}",)))
        for r4 in info.human_ranks:
            rows.append(Row("published", (f"{r4.system} (published)", "n=40")
                            + tuple("—" for _ in keys) + ("", ""),
                            tuple(None for _ in keys) + (None, None)))
    notes.append("Each review is scored once by the judge role's model on the paper's five "
                 "dimensions, 1–10 (our prompt prompts/review_judge.v1.txt: the paper publishes "
                 f"none). Published: {info.note}. Human ranks are from {TABLE4}.")
    return Table(TITLE, header, tuple(rows), tuple(notes), keys + ("unscored", "no_review"))
