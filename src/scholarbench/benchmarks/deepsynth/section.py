"""DeepSynth-Eval in the report: the paper's Table 1 layout (Overall / General / Constraint /
Precision, ×100 with one decimal as printed) beside its published rows, the checklist status
counts, the status breakdown (the paper's Figs. 5 and 7: correct / not mentioned / incorrect,
plus our unscored items), per-task score distributions, General vs Constraint per run, a per-task
drill-down (group scores, the judge's label per requirement, the report's opening, escaped) and
run metadata (writer and judge models, judge prompt version, oracle, tokens, unscored counts).

Numbers come from the run's files only: the means from summary.json (macro means over the tasks
where the score is defined; Precision pooled over the run's labels, as summary.json holds it),
the per-task values from scores.jsonl, the group scores and labels from judged.jsonl (re-scored
with `deepsynth.scores.score_task`, the function that wrote scores.jsonl), unscored reasons from
judge.jsonl, the report text from generate.jsonl. Unscored items (the judge's reply unusable)
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
from scholarbench.report.trajectory import trajectories_html
from scholarbench.report.htmlkit import (Page, e, metadata_html, sample_metric_table,
                                         table_html, usage_rows)
from scholarbench.benchmarks.deepsynth.published import (PAPER_CITATION, PAPER_JUDGE, PAPER_N,
                                                         published_rows)
from scholarbench.report.sections.base import (MetricDisplay, ReportRun, ReportSection,
                                               count_field, plural, read_json_object,
                                               strip_group)
from scholarbench.report.tables import MetricSummary, Row, RunSummary, Table, TableGroup

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


class DeepSynthSection(ReportSection):
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

    def metrics(self, mode: str) -> list[MetricDisplay]:
        return [DISPLAY[k] for k in KEYS]

    def paired_metrics(self, mode: str) -> list[MetricDisplay]:
        # Precision is pooled over a run's labels: no per-task value to pair (compare pairs
        # the task-level scores only)
        return [DISPLAY[k] for k in TASK_KEYS]

    # ------------------------------------------------------------------------------ tables

    @staticmethod
    def _judge(run: ReportRun) -> str:
        judge = run.raw_summary.get("judge") or run.manifest.get("judge") or {}
        models = run.manifest.get("models") or {}
        model = ((models.get("judge") or {}).get("model")
                 or str(judge.get("model_id") or "").rsplit("|", 1)[-1] or "not recorded")
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
                parts.append(f"{DISPLAY[key].label} undefined for {plural(m.n_null, 'task')} "
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
        header = ("System", "Samples") + tuple(DISPLAY[k].label for k in KEYS)
        rows = [Row("ours", (r.name, f"n={r.summary.n_samples}")
                    + tuple(DISPLAY[k].format(r.summary.metrics[k].mean) for k in KEYS),
                    tuple(r.summary.metrics[k].mean for k in KEYS), str(r.run_dir))
                for r in runs]
        group: object = object()
        for row in (published_rows() if published else []):
            if row.group != group:
                group = row.group
                rows.append(Row("separator", (f"published: {PAPER_CITATION}"
                                              + (f", {group}" if group else ""),)))
            rows.append(Row("published", (f"{row.system} (published)", f"n={row.n}")
                            + tuple(DISPLAY[k].format(row.values[k]) for k in KEYS),
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
            rows.append(Row("ours", (r.name, f"n={r.summary.n_samples}")
                            + tuple(f"{c:,}" for c in counts) + (f"{sum(counts):,}",
                                                                 self._judge(r)),
                            tuple(float(c) for c in counts), str(r.run_dir)))
        return Table("Checklist requirement statuses (ours)", header, tuple(rows), (), keys)

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        if not runs:
            return []
        return [TableGroup(self.mode_title("checklist"),
                           (self._table(runs, published), self._status_table(runs)),
                           self.benchmark, "checklist")]

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        if not published or not runs:
            return []
        judges = sorted({self._judge(r).split(",")[0] for r in runs})
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
            writer.writerow(row)
        return buffer.getvalue()

    # -------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = {k: d.higher_is_better for k, d in DISPLAY.items()}
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

    def _judged(self, run: ReportRun, page: Page) -> dict[str, Any]:
        """task id → (Task from judged.jsonl, its TaskScore); {} when unreadable."""
        key = ("deepsynth-judged", str(run.run_dir))
        if key not in page.cache:
            from scholarbench.benchmarks.deepsynth.loader import load_tasks
            from scholarbench.benchmarks.deepsynth.scores import score_task
            variant = run.raw_summary.get("variant") or "paper"
            try:
                tasks = load_tasks(run.run_dir / "judged.jsonl", require_prompts=False)
                page.cache[key] = {str(t.task_id): (t, score_task(t, variant)) for t in tasks}
            except Exception:   # an older or partial run: the drill-down shows the scores only
                page.cache[key] = {}
        return page.cache[key]

    def _read(self, run: ReportRun, name: str, id_key: str = "task_id") -> dict[str, Any]:
        from scholarbench.data.jsonl import read_jsonl_tolerant
        return {str(r.get(id_key)): r for r in read_jsonl_tolerant(run.run_dir / name)}

    def breakdown_rows(self, runs: Sequence[ReportRun], page: Page) -> list[svg.StackRow]:
        """Per run its summary.json counts; then per run general / constraint groups apart
        (from judged.jsonl) when there are both."""
        rows = [svg.StackRow(r.name, [int(r.raw_summary.get(k, 0)) for k in COUNT_KEYS])
                for r in runs]
        for r in runs:
            judged = self._judged(r, page)
            split = {False: [0, 0, 0, 0], True: [0, 0, 0, 0]}
            for _, score in judged.values():
                for g in score.groups:
                    t = g.tally
                    for i, v in enumerate((t.correct, t.not_mentioned, t.incorrect,
                                           t.unscored)):
                        split[g.strict][i] += v
            if judged and sum(split[False]) and sum(split[True]):
                rows.append(svg.StackRow(f"{r.name} · general", split[False]))
                rows.append(svg.StackRow(f"{r.name} · constraint", split[True]))
        return rows

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
            "scores); then the general and constraint groups apart. n = requirements.")]
        def fmt(r: ReportRun, key: str) -> str:
            return DISPLAY[key].format(r.summary.metrics[key].mean)

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
        for key in ("dse_overall", "dse_general", "dse_constraint", "task_precision"):
            d = DISPLAY[key]
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

    def _drilldown(self, runs: Sequence[ReportRun], page: Page) -> str:
        rows = {r.run_dir: {str(row.get("id")): row for row in r.scores} for r in runs}
        ids = list(dict.fromkeys(sid for r in runs for sid in rows[r.run_dir]))
        out = []
        if page.max_samples is not None and len(ids) > page.max_samples:
            ids = ids[: page.max_samples]
            out.append(f'<p class="muted">The first {len(ids)} tasks are shown '
                       "(--max-samples).</p>")
        judged = {r.run_dir: self._judged(r, page) for r in runs}
        lines = {r.run_dir: self._read(r, "judge.jsonl") for r in runs}
        generated = {r.run_dir: self._read(r, "generate.jsonl") for r in runs}
        metrics = ([DISPLAY[k] for k in ("dse_overall", "dse_general", "dse_constraint",
                                          "task_precision")]
                   + [COUNT_DISPLAY[k] for k in COUNT_KEYS])
        for i, sid in enumerate(ids):
            task = next((judged[r.run_dir][sid][0] for r in runs if sid in judged[r.run_dir]),
                        None)
            heading = ""
            if task is not None:
                heading = (f"survey {task.survey_id} · " if task.survey_id else "") + (
                    f"{task.n_requirements} requirements in {len(task.checklist)} groups"
                    if hasattr(task, "n_requirements") else "")
            body = [sample_metric_table([(r.name, rows[r.run_dir].get(sid, {})) for r in runs],
                                        metrics)]
            body.append(trajectories_html(runs, sid))
            for j, r in enumerate(runs):
                entry = judged[r.run_dir].get(sid)
                status = (rows[r.run_dir].get(sid) or {}).get("report_status")
                if entry is not None:
                    body.append(self._groups_table(r.name, entry[1], status))
                    body.append(self._labels(r.name, entry[0], lines[r.run_dir].get(sid)))
                body.append(self._excerpt(r.name, generated[r.run_dir].get(sid)))
            prompt = " ".join((getattr(task, "general_prompt", "") or "").split())
            bits = (f'<span class="sbits">{e(prompt[:200] + ("…" if len(prompt) > 200 else ""))}'
                    "</span>" if prompt else "")
            open_attr = " open" if i == 0 else ""
            out.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                       f'<span class="sid">task {e(sid)}</span> <span class="stitle">'
                       f'{e(heading)}</span>{bits}</summary><div class="sample-body">'
                       f'{"".join(body)}</div></details>')
        return "\n".join(out)

    @staticmethod
    def _groups_table(name: str, score: Any, status: str | None) -> str:
        head = ("<tr><th>group</th><th>type</th><th>weight</th><th>S<sub>k</sub></th>"
                "<th>θ<sub>k</sub></th><th>score (%)</th><th>correct</th><th>not mentioned"
                "</th><th>incorrect</th><th>unscored</th></tr>")
        body = []
        for g in score.groups:
            t = g.tally
            value = "—" if g.score is None else f"{g.score * 100:.1f}"
            body.append(f"<tr><th>{e(g.name)}</th><td>{'constraint' if g.strict else 'general'}"
                        f"</td><td>{g.weight:g}</td><td>{g.reward_get:g}</td>"
                        f"<td>{g.threshold:.2f}</td><td data-key='group_score'>{value}</td>"
                        f"<td>{t.correct}</td><td>{t.not_mentioned}</td><td>{t.incorrect}</td>"
                        f"<td>{t.unscored}</td></tr>")
        note = ("" if status in (None, "ok") else
                f' <span class="flag">report {e(status.replace("_", " "))}: not sent to the '
                "judge, every requirement not mentioned</span>")
        return (f'<p class="legend-line"><b>{e(name)}</b> — group scores{note}</p>'
                f'<table class="sample-metrics groups"><thead>{head}</thead><tbody>'
                f'{"".join(body)}</tbody></table>')

    @staticmethod
    def _labels(name: str, task: Any, line: dict[str, Any] | None) -> str:
        from scholarbench.benchmarks.deepsynth.scores import subgroup_statuses
        reasons = {}
        for sub in (line or {}).get("subgroups", []):
            reasons[(sub.get("g"), sub.get("s"))] = sub.get("reasons") or []
        items, counts = [], dict.fromkeys(STATUS_NAMES, 0)
        for gi, g in enumerate(task.checklist):
            for si, sub in enumerate(g.sub_groups):
                statuses, _ = subgroup_statuses(sub)
                why = reasons.get((gi, si), [])
                for ri, (req, st) in enumerate(zip(sub.requirements, statuses)):
                    label = LABEL_STATUS.get(st, "unscored")
                    counts[label] += 1
                    reason = why[ri] if ri < len(why) and why[ri] and label == "unscored" else ""
                    cls = label.replace(" ", "-")
                    items.append(f'<tr class="st-{cls}"><td>{e(g.name)} › {e(sub.name)}</td>'
                                 f"<td>{e(req.content)}</td><td class='label'>{e(label)}"
                                 + (f" <span class='muted'>({e(reason)})</span>" if reason
                                    else "") + "</td></tr>")
        summary = ", ".join(f"{v} {k}" for k, v in counts.items())
        return (f'<details class="labels"><summary>{e(name)} — the judge\'s label per '
                f"requirement ({e(summary)})</summary><table class='judge-labels'><thead><tr>"
                "<th>group › sub-group</th><th>requirement</th><th>label</th></tr></thead>"
                f"<tbody>{''.join(items)}</tbody></table></details>")

    @staticmethod
    def _excerpt(name: str, record: dict[str, Any] | None) -> str:
        report = (record or {}).get("report")
        if not isinstance(report, str) or not report.strip():
            why = (record or {}).get("error") or "no report"
            return f'<p class="muted"><b>{e(name)}</b>: no report ({e(why)}).</p>'
        excerpt = report[:EXCERPT_CHARS]
        more = (f" — the first {EXCERPT_CHARS:,} of {len(report):,} characters"
                if len(report) > EXCERPT_CHARS else f" — {len(report):,} characters")
        return (f'<details class="excerpt"><summary>{e(name)} — report{e(more)}</summary>'
                f'<pre class="report">{e(excerpt)}</pre></details>')

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


__all__ = ["DeepSynthSection", "DISPLAY", "KEYS"]
