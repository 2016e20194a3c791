"""DeepSynth-Eval in the report: the paper's Table 1 layout (Overall / General / Constraint /
Precision, ×100 with one decimal as printed) beside its published rows, the checklist status
counts, the status breakdown (the paper's Figs. 5 and 7: correct / not mentioned / incorrect,
plus our unscored items), per-task score distributions, General vs Constraint per run, a per-task
drill-down (`section_drilldown`: group scores, the judge's label per requirement, the report's
opening, escaped) and run metadata (writer and judge models, judge prompt version, oracle,
tokens, unscored counts).

Numbers come from the run's files only: the means from summary.json (macro means over the tasks
where the score is defined; Precision pooled over the run's labels, as summary.json holds it),
the per-task values from scores.jsonl, the group scores and labels from judged.jsonl (re-scored
with `deepsynth.scores.score_task`, the function that wrote scores.jsonl), unscored reasons from
the first judge's verdicts (judge.checklist.jsonl), the report text from generate.jsonl. Unscored items (the judge's reply unusable)
are excluded from every score and counted beside it.
"""
from __future__ import annotations

import csv
import io
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

from scholarbench.errors import DataError
from scholarbench.report import svg
from scholarbench.report.htmlkit import Page, e, metadata_html, table_html, usage_rows
from scholarbench.benchmarks.deepsynth.judge_record import judge_identity, judge_model
from scholarbench.benchmarks.deepsynth.section_drilldown import DeepSynthDrilldown
from scholarbench.benchmarks.deepsynth.published import (PAPER_CITATION, PAPER_JUDGE, PAPER_N,
                                                         published_rows)
from scholarbench.report.sections.base import (ReportRun, ReportSection,
                                               count_field, plural, read_json_object,
                                               strip_group)
from scholarbench.report.tables import MetricSummary, Row, RunSummary, Table, TableGroup
from scholarbench.benchmarks.deepsynth.display import (COLUMNS, COUNT_KEYS, KEYS, STATUS_COLOURS,
                                                       STATUS_NAMES, TASK_KEYS, TITLE)
from scholarbench.core.display import best_directions
from scholarbench.core.measure import Measure
from scholarbench.text.escape import csv_row


def _number(value: object) -> float | None:
    return (float(value) if isinstance(value, (int, float)) and not isinstance(value, bool)
            else None)


class DeepSynthRun(ReportRun):
    """A DeepSynth-Eval run: scores rows keyed by task_id, with the metric keys of either
    scoring variant read as the plain names and the task's own precision added."""

    @cached_property
    def scores(self) -> list[dict[str, Any]]:
        variant = self.raw_summary.get("variant") or "paper"
        rows = []
        for row in super().scores:
            row = dict(row)
            if variant != "paper":
                for key in TASK_KEYS:
                    for name, value in list(row.items()):
                        if name.startswith(key + "("):
                            row.setdefault(key, value)
            c, i = row.get("n_correct"), row.get("n_incorrect")
            if isinstance(c, int) and isinstance(i, int):
                row["task_precision"] = c / (c + i) if c + i else None
            rows.append(row)
        return rows


def _metric_summary(raw: dict[str, Any], key: str, n_tasks: int, path: Path) -> MetricSummary:
    variant = raw.get("variant") or "paper"
    means = raw.get("means")
    if not isinstance(means, dict):
        raise DataError(f"expected an object, got {means!r}", file=str(path), field="means")
    name = key if variant == "paper" else next(
        (k for k in means if k == key or k.startswith(key + "(")), key)
    if name not in means:
        raise DataError(f"no mean for {key}", file=str(path), field=f"means.{key}")
    mean = means[name]
    if mean is not None and _number(mean) is None:
        raise DataError(f"expected a number or null, got {mean!r}", file=str(path),
                        field=f"means.{name}")
    if key == "dse_precision":     # pooled over the run's labels: defined or not as a whole
        return MetricSummary(_number(mean), n_tasks if mean is not None else 0,
                             0 if mean is not None else n_tasks)
    undefined = (raw.get("n_undefined") or {}).get(name, 0)
    return MetricSummary(_number(mean), n_tasks - undefined, undefined)


def judge_labels(manifest: dict[str, Any]) -> list[str]:
    """The labels of a panel's judges as the manifest records them ([] for a lone judge)."""
    panel = judge_identity(manifest).get("panel")
    if not isinstance(panel, list):
        return []
    return [str(p.get("label")) for p in panel if isinstance(p, dict) and p.get("label")]


def judgements_per_requirement(manifest: dict[str, Any]) -> int:
    """How many judgements summary.json counts per requirement: every judge of a panel, each
    asked K times (`judge.panel[*].seeds`); 1 for a lone judge asked once."""
    panel = judge_identity(manifest).get("panel")
    if not isinstance(panel, list) or not panel:
        return 1
    n = sum(len(p.get("seeds") or [None]) for p in panel if isinstance(p, dict))
    return max(1, n)


class DeepSynthSection(DeepSynthDrilldown, ReportSection):
    """Registered (lazily) by the package `__init__` under kind "section"."""
    benchmark = "deepsynth"
    title = "DeepSynth-Eval"
    order = 30
    modes = ("checklist",)
    mode_titles = {"checklist": "checklist scores"}

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        path = run_dir / "summary.json"
        raw = read_json_object(path, run_dir)
        if raw.get("benchmark") != "deepsynth":
            raise DataError(f"benchmark is {raw.get('benchmark')!r}, the manifest says "
                            "'deepsynth'", file=str(path), field="benchmark")
        n_tasks = count_field(raw, "n_tasks", path)
        for key in COUNT_KEYS:
            count_field(raw, key, path)
        metrics = {k: _metric_summary(raw, k, n_tasks, path) for k in KEYS}
        reports = raw.get("reports") if isinstance(raw.get("reports"), dict) else {}
        agent = manifest.get("agent") or raw.get("agent") or ""
        mode = str(manifest.get("setting") or raw.get("setting") or manifest.get("mode")
                   or raw.get("mode") or "")
        summary = RunSummary(run_dir, mode, str(agent), manifest.get("run_name")
                             or raw.get("run_name"), n_tasks, int(reports.get("missing", 0)),
                             int(reports.get("malformed", 0)), metrics)
        return DeepSynthRun(run_dir, self.benchmark, mode, summary, manifest, raw,
                            id_key="task_id")

    def metrics(self, mode: str) -> list[Measure]:
        return [COLUMNS[k] for k in KEYS]

    def paired_metrics(self, mode: str) -> list[Measure]:
        # Precision is pooled over a run's labels: no per-task value to pair (compare pairs
        # the task-level scores only)
        return [COLUMNS[k] for k in TASK_KEYS]

    # ------------------------------------------------------------------------------ tables

    @staticmethod
    def _judge(run: ReportRun) -> str:
        """Every judge of the run (a panel: each label, and judges × repeats), its prompt."""
        judge = run.raw_summary.get("judge") or judge_identity(run.manifest)
        model = (judge_model(run.manifest)
                 or str(judge.get("model_id") or "").rsplit("|", 1)[-1] or "not recorded")
        labels = judge_labels(run.manifest)
        judges, per = len(labels) or 1, judgements_per_requirement(run.manifest)
        if labels and per > 1:
            samples = per // judges
            model = (" + ".join(labels) + f" ({judges} judge{'s' if judges > 1 else ''}"
                     + (f" × {samples} samples" if samples > 1 else "") + ")")
        prompt = str(judge.get("prompt") or "not recorded").split("@")[0]
        return f"{model}, prompt {prompt}"

    def _notes(self, run: ReportRun) -> str | None:
        raw, parts = run.raw_summary, []
        n_unscored = raw.get("n_unscored", 0)
        total = sum(raw.get(k, 0) for k in COUNT_KEYS)
        if n_unscored:
            why = (raw.get("judge") or {}).get("unscored_reasons") or raw.get(
                "unscored_reasons") or {}
            reasons = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in why.items())
            parts.append(f"{plural(n_unscored, 'requirement')} of {total:,} unscored (the "
                         f"judge's reply unusable: {reasons or 'reasons not recorded'}; "
                         "excluded from every score)")
        for key in TASK_KEYS:
            m = run.summary.metrics[key]
            if m.n_null:
                parts.append(f"{COLUMNS[key].label} undefined for {plural(m.n_null, 'task')} "
                             "(no scored item; excluded from the mean)")
        reports = raw.get("reports") or {}
        bad = {k: v for k, v in reports.items() if k != "ok" and v}
        if bad:
            n_bad = sum(bad.values())
            parts.append(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in bad.items())
                         + f" report{'' if n_bad == 1 else 's'} (not sent to the judge; every "
                         "requirement not mentioned, the task scores 0 and stays in the means)")
        if (raw.get("variant") or "paper") != "paper":
            parts.append(f"scored with the {raw['variant']} variant")
        if (raw.get("judge") or {}).get("same_model_as_agent"):
            parts.append("the judge is the writer's own model")
        return f"{run.name}: {'; '.join(parts)}" if parts else None

    def _table(self, runs: Sequence[ReportRun], published: bool) -> Table:
        header = ("System", "Samples") + tuple(COLUMNS[k].label for k in KEYS)
        rows = [Row("ours", (r.name, f"n={r.summary.n_samples}")
                    + tuple(COLUMNS[k].format_with_interval(r.summary.metrics[k].mean,
                                                           r.interval(k)) for k in KEYS),
                    tuple(r.summary.metrics[k].mean for k in KEYS), str(r.run_dir))
                for r in runs]
        group: object = object()
        for row in (published_rows() if published else []):
            if row.group != group:
                group = row.group
                rows.append(Row("separator", (f"published: {PAPER_CITATION}"
                                              + (f", {group}" if group else ""),)))
            rows.append(Row("published", (f"{row.system} (published)", f"n={row.n}")
                            + tuple(COLUMNS[k].format(row.values[k]) for k in KEYS),
                            tuple(row.values[k] for k in KEYS)))
        notes = [n for r in runs if (n := self._notes(r))]
        notes.append("Overall, General and Constraint are macro means over the tasks (×100); "
                     "Precision = correct / (correct + incorrect) pooled over all of a run's "
                     "judged requirements (×100).")
        return Table(TITLE, header, tuple(rows), tuple(notes), KEYS)

    def _status_table(self, runs: Sequence[ReportRun]) -> Table:
        keys = COUNT_KEYS
        header = ("System", "Samples", "Correct", "Not mentioned", "Incorrect", "Unscored",
                  "Requirements", "Judge")
        rows = []
        for r in runs:
            raw = r.raw_summary
            counts = [int(raw.get(k, 0)) for k in keys]
            per = judgements_per_requirement(r.manifest)
            rows.append(Row("ours", (r.name, f"n={r.summary.n_samples}")
                            + tuple(f"{c:,}" for c in counts) + (f"{sum(counts) // per:,}",
                                                                 self._judge(r)),
                            tuple(float(c) for c in counts), str(r.run_dir)))
        notes = tuple(f"{r.name}: the status counts are judgements, {n} per requirement "
                      "(every judge of the panel, every repeat); Requirements counts each "
                      "requirement once" for r in runs
                      if (n := judgements_per_requirement(r.manifest)) > 1)
        return Table("Checklist requirement statuses (ours)", header, tuple(rows), notes, keys)

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        if not runs:
            return []
        return [TableGroup(self.mode_title("checklist"),
                           (self._table(runs, published), self._status_table(runs)),
                           self.benchmark, "checklist")]

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        if not published or not runs:
            return []
        judges = sorted({self._judge(r).rpartition(", prompt")[0] for r in runs})
        return [f"Published rows: {PAPER_CITATION}, n = {PAPER_N} tasks with the paper's oracle "
                f"context, judged by {PAPER_JUDGE}; ours judged by {', '.join(judges)} on the "
                "tasks listed, so the two are comparable only as far as the judges agree "
                "(docs/deepsynth.md)."]

    def csv(self, runs: Sequence[ReportRun]) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["system", "run_dir", "mode", "agent", "variant", "n_tasks"]
                        + [f"{k}{s}" for k in KEYS for s in ("", "_n", "_n_null")]
                        + list(COUNT_KEYS) + ["reports_ok", "reports_not_ok", "judge_model_id",
                                              "judge_prompt"])
        for r in runs:
            raw = r.raw_summary
            row: list[object] = [r.name, str(r.run_dir), r.mode, r.summary.agent,
                                 raw.get("variant") or "paper", r.summary.n_samples]
            for key in KEYS:
                m = r.summary.metrics[key]
                row += ["" if m.mean is None else repr(m.mean), m.n, m.n_null]
            reports = raw.get("reports") or {}
            judge = raw.get("judge") or {}
            row += [raw.get(k, 0) for k in COUNT_KEYS] + [
                reports.get("ok", ""), sum(v for k, v in reports.items() if k != "ok"),
                judge.get("model_id", ""), judge.get("prompt", "")]
            writer.writerow(csv_row(row))
        return buffer.getvalue()

    # -------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = best_directions(COLUMNS.values())
        for group in self.groups(runs, page.published):
            out.append('<section class="mode" data-benchmark="deepsynth" data-mode="checklist">')
            out.append(page.heading(4, "Leaderboard", toc=False))
            out.extend(table_html(t, group.title, directions) for t in group.tables)
            out.extend(f'<p class="footnote">{e(f)}</p>'
                       for f in self.footnotes(runs, page.published))
            out.append(page.heading(3, "DeepSynth-Eval figures"))
            out.append(self._figures(runs, page))
            out.append(page.heading(3, "DeepSynth-Eval per-task drill-down"))
            out.append(self._drilldown(runs, page))
            out.append("</section>")
        return "\n".join(out)

    def breakdown_rows(self, runs: Sequence[ReportRun], page: Page) -> list[svg.StackRow]:
        """Per run its summary.json counts; then per run general / constraint groups apart
        (from judged.jsonl) when there are both."""
        rows, splits = [], []
        for r in runs:
            judged = self._judged(r, page)
            split = {False: [0, 0, 0, 0], True: [0, 0, 0, 0]}
            for _, score in judged.values():
                for g in score.groups:
                    t = g.tally
                    for i, v in enumerate((t.correct, t.not_mentioned, t.incorrect,
                                           t.unscored)):
                        split[g.strict][i] += v
            labels = judge_labels(r.manifest)
            if judged and judgements_per_requirement(r.manifest) > 1:
                # a panel: summary.json counts every judge's every repeat; the bars are the
                # first judge's labels (judged.jsonl), so overall = general + constraint
                first = f" ({labels[0]})" if labels else ""
                rows.append(svg.StackRow(f"{r.name}{first}",
                                         [a + b for a, b in zip(split[False], split[True])]))
            else:
                rows.append(svg.StackRow(r.name, [int(r.raw_summary.get(k, 0))
                                                  for k in COUNT_KEYS]))
            if judged and sum(split[False]) and sum(split[True]):
                splits.append(svg.StackRow(f"{r.name} · general", split[False]))
                splits.append(svg.StackRow(f"{r.name} · constraint", split[True]))
        return rows + splits

    def _figures(self, runs: Sequence[ReportRun], page: Page) -> str:
        colours = {r.run_dir: svg.colour(i) for i, r in enumerate(runs)}
        segments = [svg.StackSegment(n, c, hatched=(n == "unscored"))
                    for n, c in zip(STATUS_NAMES, STATUS_COLOURS)]
        parts = [page.figure(
            svg.stacked_bars(self.breakdown_rows(runs, page), segments,
                             title="Checklist requirement status breakdown",
                             kind="status-breakdown", width=720),
            "Checklist requirement status breakdown per run (the paper's Figs. 5 and 7): the "
            "share of all checklist requirements the judge labelled correct, not mentioned or "
            "incorrect, and those left unscored (an unusable judge reply; excluded from the "
            "scores); then the general and constraint groups apart. n = requirements (a "
            "judge panel: the first judge's labels, named on the bar).")]
        def fmt(r: ReportRun, key: str) -> str:
            return COLUMNS[key].format(r.summary.metrics[key].mean)

        points = [svg.Point(r.summary.metrics["dse_general"].mean or 0.0,
                            r.summary.metrics["dse_constraint"].mean or 0.0, r.name,
                            colours[r.run_dir],
                            tooltip=f"{r.name}: General {fmt(r, 'dse_general')}, Constraint "
                            f"{fmt(r, 'dse_constraint')}")
                  for r in runs if r.summary.metrics["dse_general"].mean is not None
                  and r.summary.metrics["dse_constraint"].mean is not None]
        for r in runs:
            for sid, v in r.sample_values(("dse_general", "dse_constraint")).items():
                if v["dse_general"] is not None and v["dse_constraint"] is not None:
                    points.append(svg.Point(v["dse_general"], v["dse_constraint"],
                                            colour=colours[r.run_dir], small=True,
                                            tooltip=f"{r.name} · task {sid}"))
        if page.published:
            points += [svg.Point(p.values["dse_general"], p.values["dse_constraint"],
                                 published=True, tooltip=f"{p.system} ({p.group or 'reference'}"
                                 f", published)") for p in published_rows()]
        legend = [(r.name, colours[r.run_dir], "filled") for r in runs]
        if page.published:
            legend.append(("published (Table 1)", svg.PUBLISHED_COLOUR, "hollow"))
        scatter = svg.scatter(points, x_label="General score", y_label="Constraint score",
                              title="General vs Constraint", diagonal=True, legend=legend,
                              clamp=(None, 1.0), kind="general-constraint", width=440,
                              height=360)
        panels = []
        for key in (*TASK_KEYS, "task_precision"):
            d = COLUMNS[key]
            groups = []
            for r in runs:
                values = r.sample_values((key,))
                groups.append(strip_group(r, key, colours[r.run_dir], values))
            panels.append((svg.box_strip(groups, title=d.label, y_percent=True,
                                         clamp=d.bounds, kind=f"dist-{key}"), key))
        parts.append(page.figure(scatter, "General vs Constraint score: each run's mean "
                                 "(large), its tasks (small) and the paper's Table 1 rows "
                                 "(hollow grey); dashed: General = Constraint."))
        parts.append(page.figures(panels, "Per-task score distributions: box = quartiles "
                                  "and median, whiskers = range, dots = tasks, diamond = mean. "
                                  "Precision (task) = correct / (correct + incorrect) within "
                                  "one task (the leaderboard's Precision pools all tasks)."))
        return '<div class="figures">' + "".join(parts) + "</div>"

    # ---------------------------------------------------------------------------- metadata

    def run_metadata(self, run: ReportRun) -> str:
        m, s = run.manifest, run.raw_summary
        models = m.get("models") or {}
        extra: list[tuple[str, str]] = []
        writer = (m.get("agent_config") or {}).get("writer")
        agent_model = (models.get("agent") or {}).get("model") or (
            (m.get("agent_model") or {}).get("model_id"))
        extra.append(("writer", e(f"{m.get('agent', '—')}"
                                  + (f" ({writer.get('name', '')})" if isinstance(writer, dict)
                                     and writer.get("name") else "")
                                  + (f", model {agent_model}" if agent_model else ""))))
        judge = s.get("judge") or {}
        extra.append(("judge (checklist)", e(f"{self._judge(run)}; {judge.get('calls', 0)} "
                                             f"calls ({judge.get('model_calls', 0)} to the "
                                             f"model, {judge.get('cache_hits', 0)} cached)")))
        oracle = (m.get("agent_config") or {}).get("oracle") or (
            m.get("options") or {}).get("oracle_config")
        if isinstance(oracle, dict):
            extra.append(("oracle", e(", ".join(f"{k}={v}" for k, v in oracle.items()
                                                if isinstance(v, (str, int, float))))))
        extra.extend(usage_rows(m))
        reports = s.get("reports") or {}
        extra.append(("reports", e(", ".join(f"{v} {k.replace('_', ' ')}"
                                             for k, v in reports.items()) or "—")))
        reasons = s.get("unscored_reasons") or {}
        extra.append(("unscored requirements", e(f"{s.get('n_unscored', 0)}"
                                                 + (" (" + ", ".join(f"{v} {k}" for k, v in
                                                                     reasons.items()) + ")"
                                                    if reasons else ""))))
        extra.append(("scoring variant", e(s.get("variant") or "paper")))
        return metadata_html(run, extra)


__all__ = ["DeepSynthSection", "COLUMNS", "KEYS"]
