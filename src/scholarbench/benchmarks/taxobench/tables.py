"""The TaxoBench leaderboard: finished runs in the paper's table layouts, beside its published rows.

`load_runs` reads each run directory's manifest.json and summary.json into a `RunSummary`;
`leaderboard` renders, per mode present, the paper's tables (Deep Research: Tables 2, 3, 5;
Bottom-Up: Tables 4, 5; both modes: Table 7, the LLM-as-Judge scores, when some run of the mode
was scored with a judge) with our rows first, notes on undefined (null) metrics and missing or
malformed predictions, then the paper's rows marked "(published)"; `to_csv` gives one row per run.
Display follows the paper: percentages ×100 with 2 decimals and "%", US-TED, NSR/NSP/Soft F1 and
the judge's 1–5 scores with 2 decimals, an undefined mean as "—".

Table 7's notes name each run's judge (model and prompt version, from summary.json's "judge"
entry, else the manifest's models.judge / judge), count the samples the judge left unscored
apart from those with no prediction to judge (both excluded from the means), mark runs scored
without a judge ("not judged", "—" cells), and say when the published rows' judge (GPT-4o) is
not ours, so the numbers are not directly comparable.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS
from scholarbench.benchmarks.taxobench.measures import BY_KEY, METRIC_KEYS
from scholarbench.benchmarks.taxobench.published import (BOTTOM_UP, DEEP_RESEARCH,
                                                         PAPER_CITATION, PAPER_JUDGE,
                                                         PAPER_N_SURVEYS, TABLE_KEYS,
                                                         published_rows)
from scholarbench.core.measure import NOT_COUNTED
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.report.formats import FORMATS
from scholarbench.report.tables import (NULL, JudgeInfo, Row, RunSummary, Table,
                                        TableGroup, _count, _first_text, _metric, _text,
                                        read_json_object, render_groups)
from scholarbench.text.escape import csv_row

MODES = (DEEP_RESEARCH, BOTTOM_UP)  # the paper's order

MODE_TITLES = {DEEP_RESEARCH: "Deep Research mode", BOTTOM_UP: "Bottom-Up mode"}




@dataclass(frozen=True)
class TableLayout:
    table: int               # the paper's table number
    title: str
    keys: tuple[str, ...]    # metric columns, in the paper's order



LAYOUTS: dict[str, tuple[TableLayout, ...]] = {
    DEEP_RESEARCH: (
        TableLayout(2, "Table 2 layout — Retrieval", TABLE_KEYS[2]),
        TableLayout(3, "Table 3 layout — Organisation", TABLE_KEYS[3]),
        TableLayout(5, "Table 5 layout — Soft set-matching diagnostics", TABLE_KEYS[5]),
    ),
    BOTTOM_UP: (
        TableLayout(4, "Table 4 layout — Organisation", TABLE_KEYS[4]),
        TableLayout(5, "Table 5 layout — Soft set-matching diagnostics", TABLE_KEYS[5]),
    ),
}
# Table 7 (both modes), shown after a mode's other tables when some run of the mode was judged.

JUDGE_LAYOUT = TableLayout(7, "Table 7 layout — LLM-as-Judge", TABLE_KEYS[7])
# The declared measures none of the paper's tables shows (one added since): a table of ours,
# so a new measure is reported ("—" for runs scored before it) without a layout of its own.
FURTHER_LAYOUT = TableLayout(0, "Further measures (not in the paper's tables)", tuple(
    k for k in METRIC_KEYS if not any(k in layout.keys for layouts in LAYOUTS.values()
                                      for layout in layouts)))



def _judge_info(summary: dict[str, Any], manifest: dict[str, Any],
                summary_path: Path) -> JudgeInfo:
    """The judge of a judged run: summary.json's "judge" entry (written with the scores), else
    the manifest's models.judge (model name, id) and "judge" (prompt version)."""
    entry = summary.get("judge")
    if entry is not None and not isinstance(entry, dict):
        raise DataError(f"expected an object (the judge's model and prompt), got {entry!r}",
                        file=str(summary_path), field="judge")
    entry = entry or {}
    models = manifest.get("models")
    recorded = models.get("judge") if isinstance(models, dict) else None
    recorded = recorded if isinstance(recorded, dict) else {}
    manifest_judge = manifest.get("judge") if isinstance(manifest.get("judge"), dict) else {}
    model_id = _first_text(entry.get("model_id"), recorded.get("model_id"),
                           manifest_judge.get("model_id"))
    model = _first_text(recorded.get("model")) if (
        recorded.get("model_id") in (None, model_id)) else None
    if model is None and model_id:
        model = model_id.rsplit("|", 1)[-1] or None
    return JudgeInfo(model, model_id, _first_text(entry.get("prompt"),
                                                  manifest_judge.get("prompt")))



def load_run(run_dir: Path | str) -> RunSummary:
    """One finished TaxoBench run; a DataError naming the file when it is absent or malformed."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ScholarbenchError(f"{run_dir}: not a directory (expected a finished run directory)")
    manifest_path, summary_path = run_dir / "manifest.json", run_dir / "summary.json"
    manifest = read_json_object(manifest_path, run_dir)
    summary = read_json_object(summary_path, run_dir)
    for path, data in ((manifest_path, manifest), (summary_path, summary)):
        benchmark = data.get("benchmark")
        if benchmark != "taxobench":
            raise DataError(f"benchmark is {benchmark!r}; the leaderboard covers 'taxobench' runs",
                            file=str(path), field="benchmark")
    mode = _text(summary, "mode", summary_path)
    if mode not in MODES:
        raise DataError(f"mode {mode!r} is not one of {', '.join(MODES)}", file=str(summary_path),
                        field="mode")
    if manifest.get("mode") is not None and manifest["mode"] != mode:
        raise DataError(f"mode {manifest['mode']!r} differs from summary.json's {mode!r}",
                        file=str(manifest_path), field="mode")
    agent = _text(manifest, "agent", manifest_path, optional=True) or _text(summary, "agent",
                                                                           summary_path)
    run_name = (_text(manifest, "run_name", manifest_path, optional=True)
                or _text(summary, "run_name", summary_path, optional=True))
    n_samples = _count(summary, "n_samples", summary_path)
    n_missing = _count(summary, "n_missing", summary_path)
    n_malformed = _count(summary, "n_malformed", summary_path)
    if n_missing + n_malformed > n_samples:
        raise DataError(f"n_missing ({n_missing}) + n_malformed ({n_malformed}) exceed n_samples "
                        f"({n_samples})", file=str(summary_path), field="n_missing")
    if not isinstance(summary.get("metrics"), dict):
        raise DataError(f"expected an object, got {summary.get('metrics')!r}",
                        file=str(summary_path), field="metrics")
    statuses = summary.get("status") or {}      # no result: not in the means
    n_counted = n_samples - sum(n for status, n in statuses.items()
                                if status in NOT_COUNTED and isinstance(n, int))
    metrics = {key: _metric(summary, key, n_counted, summary_path) for key in METRIC_KEYS}
    judge = None
    if any(key in summary["metrics"] for key in JUDGE_KEYS):   # judged: all five keys, checked
        metrics.update((key, _metric(summary, key, n_counted, summary_path))
                       for key in JUDGE_KEYS)
        judge = _judge_info(summary, manifest, summary_path)
    return RunSummary(run_dir=run_dir, mode=mode, agent=agent or "", run_name=run_name,
                      n_samples=n_samples, n_missing=n_missing, n_malformed=n_malformed,
                      metrics=metrics, judge=judge)



def load_runs(run_dirs: Iterable[Path | str]) -> list[RunSummary]:
    """Finished runs in the order given."""
    return [load_run(d) for d in run_dirs]


# ------------------------------------------------------------------------------------- formatting


def format_value(key: str, value: float | None) -> str:
    """A metric value as the paper prints it: 0.2092 → "20.92%", 29.26, 0.76; None → "—"."""
    return NULL if value is None else BY_KEY[key].format(value)



def _header(key: str) -> str:
    return BY_KEY[key].header()



def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"



def run_notes(run: RunSummary, keys: Sequence[str]) -> str | None:
    """'name: k undefined for 1 of 5 samples (excluded from the mean); 1 missing prediction'."""
    parts = []
    by_count: dict[int, list[str]] = {}
    for key in keys:
        if run.metrics[key].n_null:
            by_count.setdefault(run.metrics[key].n_null, []).append(key)
    for count, names in by_count.items():
        parts.append(f"{', '.join(names)} undefined for {count} of "
                     f"{_plural(run.n_samples, 'sample')} (excluded from the mean)")
    if run.n_missing:
        parts.append(_plural(run.n_missing, "missing prediction")
                     + (" (scored as an empty taxonomy)" if run.n_missing == 1
                        else " (scored as empty taxonomies)"))
    if run.n_malformed:
        parts.append(_plural(run.n_malformed, "malformed prediction")
                     + (" (scored as an empty taxonomy)" if run.n_malformed == 1
                        else " (scored as empty taxonomies)"))
    return f"{run.name}: {'; '.join(parts)}" if parts else None



NOT_JUDGED_NOTE = ("not judged (re-score the run with `scholarbench score RUN_DIR --with-judge` "
                   "for these columns)")



def judge_notes(run: RunSummary) -> str:
    """Table 7's note on one run: its judge, then the samples without judge scores, unscored
    (the judge's reply was unusable) apart from those with no prediction to judge."""
    if not run.judged:
        return f"{run.name}: {NOT_JUDGED_NOTE}"
    judge = run.judge or JudgeInfo(None, None, None)
    parts = [f"judge {judge.label}"]
    avg = run.metrics["judge_avg"]
    of = f"of {_plural(run.n_samples, 'sample')}"
    if avg.n_unscored:
        parts.append(f"{avg.n_unscored} {of} unscored (the judge's reply was unusable after a "
                     "repair turn; excluded from the means)")
    no_prediction = avg.n_null - avg.n_unscored
    if no_prediction:
        parts.append(f"{no_prediction} {of} without a prediction to judge (missing or "
                     "malformed; not sent to the judge, excluded from the means)")
    for key in JUDGE_KEYS:    # one dimension without a value where the others have one
        m = run.metrics[key]
        if (m.n_null, m.n_unscored) != (avg.n_null, avg.n_unscored):
            parts.append(f"{key} undefined for {m.n_null} {of} ({m.n_unscored} unscored; "
                         "excluded from its mean)")
    return f"{run.name}: {'; '.join(parts)}"



def judge_comparability_notes(runs: Sequence[RunSummary], published: bool) -> list[str]:
    """Whether our judge scores can be read against each other and against the paper's."""
    judges = list(dict.fromkeys(run.judge or JudgeInfo(None, None, None)
                                for run in runs if run.judged))
    notes = []
    if len({(j.model_id or j.model, j.prompt) for j in judges}) > 1:
        notes.append("Our runs were judged by different judges ("
                     + "; ".join(j.label for j in judges) + "): their judge scores are not "
                     "directly comparable with each other.")
    if published and judges:
        others = list(dict.fromkeys(j.model_name for j in judges if not j.is_paper_judge))
        if others:
            notes.append(f"Published rows were judged by {PAPER_JUDGE} (TaxoBench §3.4, "
                         f"appendix B); ours by {', '.join(others)}, so the scores are not "
                         "directly comparable.")
        else:
            notes.append(f"Published rows were judged by {PAPER_JUDGE} (TaxoBench §3.4), as "
                         "ours; the paper does not name the GPT-4o snapshot.")
    return notes



def _published_rows(layout: TableLayout, mode: str) -> list[Row]:
    rows = []
    group: object = object()
    for row in published_rows(layout.table, mode):
        if row.group != group:
            group = row.group
            label = f"published: {PAPER_CITATION}" + (f", {group}" if group else "")
            rows.append(Row("separator", (label,)))
        rows.append(Row("published", (f"{row.system} (published)", f"n={PAPER_N_SURVEYS}")
                        + tuple(format_value(k, row.values[k]) for k in layout.keys),
                        tuple(row.values[k] for k in layout.keys)))
    return rows



def _our_row(run: RunSummary, keys: Sequence[str]) -> Row:
    """A run's row; a metric the run lacks (a judge column of an unjudged run) shows "—"."""
    values = tuple(run.metrics[k].mean if k in run.metrics else None for k in keys)
    return Row("ours", (run.name, f"n={run.n_samples}")
               + tuple(_with_interval(k, v, run.metrics.get(k)) for k, v in zip(keys, values)),
               values, str(run.run_dir))


def _with_interval(key: str, value: float | None, summary: Any) -> str:
    """The value as the paper prints it, then ± half its 95% interval (same unit)."""
    text = format_value(key, value)
    half = getattr(summary, "half_width", None)
    if value is None or half is None:
        return text
    m = BY_KEY[key]
    return f"{text} ±{half * 100 if m.percent else half:.{m.decimals}f}"



def _build_table(layout: TableLayout, mode: str, runs: Sequence[RunSummary],
                 published: bool) -> Table:
    header = ("System", "Samples") + tuple(_header(k) for k in layout.keys)
    rows = [_our_row(run, layout.keys) for run in runs]
    if layout.table == JUDGE_LAYOUT.table:
        notes = tuple([judge_notes(run) for run in runs]
                      + judge_comparability_notes(runs, published))
    else:
        notes = tuple(note for run in runs if (note := run_notes(run, layout.keys)))
    if published:
        rows.extend(_published_rows(layout, mode))
    return Table(layout.title, header, tuple(rows), notes, layout.keys)



def mode_layouts(mode: str, runs: Sequence[RunSummary]) -> tuple[TableLayout, ...]:
    """The mode's table layouts for these runs: the further measures when some are declared,
    Table 7 only when one of them was judged."""
    judged = any(run.judged for run in runs if run.mode == mode)
    return LAYOUTS[mode] + ((FURTHER_LAYOUT,) if FURTHER_LAYOUT.keys else ()) \
        + ((JUDGE_LAYOUT,) if judged else ())



def _footnote(runs: Sequence[RunSummary]) -> str:
    counts = sorted({run.n_samples for run in runs})
    ours = (f"ours on {counts[0]} instance(s)" if len(counts) == 1
            else f"ours on {'/'.join(map(str, counts))} instances (n per row)")
    ours += " of each run's own data (its scores.jsonl lists them)"
    return (f"Published rows: {PAPER_CITATION}, measured on all {PAPER_N_SURVEYS} surveys with "
            f"the agents' real outputs; {ours}.")



def taxobench_groups(runs: Sequence[RunSummary], published: bool = True) -> list[TableGroup]:
    """Per mode present (the paper's order), the paper's table layouts with our rows first."""
    groups = []
    for mode in MODES:
        mode_runs = [run for run in runs if run.mode == mode]
        if mode_runs:
            groups.append(TableGroup(f"TaxoBench — {MODE_TITLES[mode]}",
                                     tuple(_build_table(layout, mode, mode_runs, published)
                                           for layout in mode_layouts(mode, mode_runs)),
                                     "taxobench", mode))
    return groups



def taxobench_footnote(runs: Sequence[RunSummary]) -> str:
    return _footnote(runs)



def leaderboard(runs: Sequence[RunSummary], fmt: str = "terminal", published: bool = True) -> str:
    """Per mode present, our runs in the paper's table layouts, then the paper's rows marked."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if not runs:
        return "No runs to report."
    return render_groups(taxobench_groups(runs, published), fmt,
                         [_footnote(runs)] if published else [])



_JUDGE_SUFFIXES = ("", "_n", "_n_null", "_n_unscored")



def to_csv(runs: Sequence[RunSummary]) -> str:
    """One row per run: identity, sample counts, then per metric its mean, n and n_null; then
    per judge metric its mean, n, n_null and n_unscored, and the judge's model and prompt
    version (all empty for a run scored without a judge)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["system", "run_dir", "mode", "agent", "n_samples", "n_missing", "n_malformed"]
                    + [f"{k}{suffix}" for k in METRIC_KEYS for suffix in ("", "_n", "_n_null")]
                    + [f"{k}{suffix}" for k in JUDGE_KEYS for suffix in _JUDGE_SUFFIXES]
                    + ["judge_model", "judge_model_id", "judge_prompt"])
    for run in runs:
        row: list[object] = [run.name, str(run.run_dir), run.mode, run.agent, run.n_samples,
                             run.n_missing, run.n_malformed]
        for key in METRIC_KEYS:
            m = run.metrics[key]
            row += ["" if m.mean is None else repr(m.mean), m.n, m.n_null]
        for key in JUDGE_KEYS:
            m = run.metrics.get(key)
            row += (["" if m.mean is None else repr(m.mean), m.n, m.n_null, m.n_unscored]
                    if m is not None else [""] * len(_JUDGE_SUFFIXES))
        judge = run.judge if run.judged else None
        row += ([judge.model or "", judge.model_id or "", judge.prompt or ""] if judge
                else ["", "", ""])
        writer.writerow(csv_row(row))
    return buffer.getvalue()
