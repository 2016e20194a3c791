"""ReportBench in the report: the paper's Table 1 layout (reference Precision, Recall, Ref Num;
cited statements' Match Rate and Count; non-cited statements' Factual Acc and Count) beside its
published rows, the statement judgements' counts (unreachable, unscored, ties) beside the
means, precision-vs-recall plots per run and per survey, score distributions, a per-survey
drill-down (the report's references matched to the survey's bibliography, the bibliography's
missed titles, the extra references; statement counts; the report's opening, all escaped) and
run metadata.

Means are summary.json's: reference metrics over every task but errored ones and those left
without a constructed prompt (a task without a report scores 0 and stays in the means,
counted); statement rates over the judged reports where the rate is
defined (undefined and not-judged reports excluded and counted); Count = mean (statement,
citation) pairs / non-cited statements per judged report. The per-survey drill-down is
`section_drilldown`.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Sequence

from scholarbench.errors import DataError
from scholarbench.report import svg
from scholarbench.report.htmlkit import Page, e, metadata_html, table_html, usage_rows
from scholarbench.benchmarks.reportbench.measures import BENCHMARK, BY_KEY, keys
from scholarbench.core.display import best_directions
from scholarbench.core.measure import Measure
from scholarbench.benchmarks.reportbench.section_drilldown import ReportBenchDrilldown
from scholarbench.benchmarks.reportbench.published import (KEYS as TABLE_KEYS, PAPER_CITATION,
                                                           PAPER_JUDGES, PAPER_N, published_rows)
from scholarbench.report.sections.base import (ReportRun, ReportSection,
                                               count_field, metric_rows, optional_number, plural,
                                               read_json_object, strip_group)
from scholarbench.report.tables import MetricSummary, Row, RunSummary, Table, TableGroup
from scholarbench.text.escape import csv_row

REF_KEYS = keys("reference")           # the per-survey measures (`measures.MEASURES`)
RATES = keys("statement")
COUNTS = ("n_cited", "n_noncited")     # statement counts per judged report (Table 1 "Count")
# the declared measures and the statement counts per judged report (Table 1 "Count"), shown
# with 2 decimals and no direction
COLUMNS: dict[str, Measure] = {
    **BY_KEY,
    **{k: Measure(BENCHMARK, k, label=label, direction="none", decimals=2, bounds=(0.0, None))
       for k, label in zip(COUNTS, ("Count (cited)", "Count (non-cited)"))},
}
TITLE = "Table 1 layout — references and statements"


def judged(run: ReportRun) -> bool:
    return isinstance(run.raw_summary.get("statements"), dict)


class ReportBenchSection(ReportBenchDrilldown, ReportSection):
    benchmark = "reportbench"
    title = "ReportBench"
    order = 40
    modes = ("shipped", "sentence", "paragraph", "detail")
    mode_titles = {"shipped": "shipped prompts", "sentence": "sentence-level prompts",
                   "paragraph": "paragraph-level prompts", "detail": "detail-level prompts"}

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        path = run_dir / "summary.json"
        raw = read_json_object(path, run_dir)
        if raw.get("benchmark") != "reportbench":
            raise DataError(f"benchmark is {raw.get('benchmark')!r}, the manifest says "
                            "'reportbench'", file=str(path), field="benchmark")
        n = count_field(raw, "n_tasks", path)
        means = raw.get("means")
        if not isinstance(means, dict):
            raise DataError(f"expected an object, got {means!r}", file=str(path), field="means")
        counted = raw.get("n_counted") if isinstance(raw.get("n_counted"), int) else n
        metrics = {}
        for k in REF_KEYS:      # null or absent (declared after the run): no value, n = 0
            mean = optional_number(means.get(k), path, f"means.{k}")
            defined = counted if mean is not None else 0
            metrics[k] = MetricSummary(mean, defined, n - defined)
        st = raw.get("statements")
        if isinstance(st, dict):
            n_judged = count_field(st, "n_judged", path)
            for key in RATES:
                entry = st.get(key) or {}
                count = entry.get("n", 0) if isinstance(entry.get("n"), int) else 0
                metrics[key] = MetricSummary(optional_number(entry.get("mean"), path,
                                                      f"statements.{key}.mean"), count,
                                             n - count)
            for key, name in (("n_cited", "mean_cited_per_report"),
                              ("n_noncited", "mean_noncited_per_report")):
                value = optional_number(st.get(name), path, f"statements.{name}")
                metrics[key] = MetricSummary(value, n_judged if value is not None else 0,
                                             n - (n_judged if value is not None else 0))
        mode = str(raw.get("granularity") or manifest.get("mode") or "shipped")
        summary = RunSummary(run_dir, mode, str(manifest.get("agent") or raw.get("agent") or ""),
                             manifest.get("run_name") or raw.get("run_name"), n,
                             int(raw.get("n_missing") or 0), 0, metrics)
        return ReportRun(run_dir, self.benchmark, mode, summary, manifest, raw,
                         id_key="arxiv_id")

    def metrics(self, mode: str) -> list[Measure]:
        return [COLUMNS[k] for k in TABLE_KEYS + RATES[1::2]]

    def paired_metrics(self, mode: str) -> list[Measure]:
        return [COLUMNS[k] for k in REF_KEYS + RATES]

    # ------------------------------------------------------------------------------ tables

    def _notes(self, run: ReportRun) -> list[str]:
        raw, parts = run.raw_summary, []
        if raw.get("n_missing"):
            parts.append(f"{plural(raw['n_missing'], 'task')} without a report (reference "
                         "metrics 0, in the means)")
        if raw.get("n_error") or raw.get("n_unscored"):
            parts.append(f"{plural(int(raw.get('n_error') or 0), 'task')} errored and "
                         f"{int(raw.get('n_unscored') or 0)} without a constructed prompt "
                         "(not in the means; resume the run to retry errors)")
        if raw.get("n_no_references"):
            parts.append(f"{plural(raw['n_no_references'], 'report')} without a reference "
                         "(scored 0)")
        st = raw.get("statements")
        if isinstance(st, dict):
            c = st.get("counts") or {}
            parts.append(
                f"statements judged in {st.get('n_judged', 0)} reports"
                + (f" ({st['n_not_judged']} not judged" if st.get("n_not_judged") else "")
                + (f", {st['n_failed']} failed" if st.get("n_failed") else "")
                + (")" if st.get("n_not_judged") else "")
                + f"; cited pairs: {c.get('n_cited', 0)}, {c.get('n_cited_matched', 0)} "
                f"matched, {c.get('n_cited_unreachable', 0)} unreachable (counted as not "
                f"matched in Match Rate), {c.get('n_cited_unscored', 0)} unscored (excluded)"
                f"; non-cited: {c.get('n_noncited', 0)}, {c.get('n_noncited_tie', 0)} ties "
                f"(excluded from Factual Acc), {c.get('n_noncited_unscored', 0)} unscored")
            for key in ("cited_match_rate", "noncited_accuracy"):
                undefined = (st.get(key) or {}).get("n_undefined")
                if undefined:
                    parts.append(f"{COLUMNS[key].label} undefined for "
                                 f"{plural(undefined, 'report')} (excluded)")
        else:
            parts.append("statements not judged (score with --statements for these columns)")
        return [f"{run.name}: {'; '.join(parts)}"] if parts else []

    def _table(self, runs: Sequence[ReportRun], published: bool) -> Table:
        keys = TABLE_KEYS
        header = ("System", "Samples") + tuple(COLUMNS[k].label for k in keys)
        rows = metric_rows(runs, keys, COLUMNS)
        group: object = object()
        for row in (published_rows() if published else []):
            if row.group != group:
                group = row.group
                rows.append(Row("separator", (f"published: {PAPER_CITATION}, {group}",)))
            rows.append(Row("published", (f"{row.system} (published)", f"n={PAPER_N}")
                            + tuple(COLUMNS[k].format(row.values[k]) for k in keys),
                            tuple(row.values[k] for k in keys)))
        notes = [n for r in runs for n in self._notes(r)]
        return Table(TITLE, header, tuple(rows), tuple(notes), keys)

    STATEMENT_COLUMNS = (("n_cited", "Cited"), ("n_cited_matched", "Matched"),
                         ("n_cited_unreachable", "Unreach."),
                         ("n_cited_unscored", "Unsc."),
                         ("cited_match_rate_checkable", "Match*"),
                         ("n_noncited", "Non-cited"), ("n_noncited_correct", "Correct"),
                         ("n_noncited_incorrect", "Incorr."), ("n_noncited_tie", "Ties"),
                         ("n_noncited_unscored", "Unsc."),
                         ("noncited_accuracy_upstream", "Acc†"))

    def _statement_table(self, runs: Sequence[ReportRun]) -> Table | None:
        runs = [r for r in runs if judged(r)]
        if not runs:
            return None
        header = ("System", "Judged") + tuple(label for _, label in self.STATEMENT_COLUMNS)
        rows = []
        for r in runs:
            st = r.raw_summary["statements"]
            counts = st.get("counts") or {}
            cells, values = [], []
            for key, _ in self.STATEMENT_COLUMNS:
                if key in RATES:
                    value = r.summary.metrics[key].mean
                    cells.append(COLUMNS[key].format(value))
                else:
                    value = float(counts.get(key, 0))
                    cells.append(f"{int(value):,}")
                values.append(value)
            rows.append(Row("ours", (r.name, f"n={st.get('n_judged', 0)}") + tuple(cells),
                            tuple(values), str(r.run_dir)))
        notes = ["Cited (statement, citation) pairs: matched, unreachable (the cited source "
                 "not found; not matched in Match Rate), unscored (the judge's reply "
                 "unusable; excluded). Non-cited statements: correct, incorrect, tied votes "
                 "(excluded from Factual Acc), unscored. Totals over the judged reports. "
                 "* Match Rate over the checkable pairs only (unreachable left out). "
                 "† Factual Acc with ties counted as wrong (upstream's script)."]
        for r in runs:
            reasons = r.raw_summary["statements"].get("cited_unreachable_reasons") or {}
            if reasons:
                notes.append(f"{r.name}: unreachable — "
                             + ", ".join(f"{v} {k}" for k, v in reasons.items()))
        return Table("Statement judgements (ours): counts beside the means", header,
                     tuple(rows), tuple(notes),
                     tuple(k for k, _ in self.STATEMENT_COLUMNS))

    def _further_table(self, runs: Sequence[ReportRun]) -> Table | None:
        """The per-survey measures neither table above shows (one declared since): "—" for a
        run scored before it."""
        shown = set(TABLE_KEYS) | {k for k, _ in self.STATEMENT_COLUMNS}
        keys = tuple(k for k in REF_KEYS + RATES if k not in shown)
        if not keys:
            return None
        header = ("System", "Samples") + tuple(COLUMNS[k].label for k in keys)
        return Table("Further measures (not in the paper's table)", header,
                     tuple(metric_rows(runs, keys, COLUMNS)), (), keys)

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        out = []
        for mode in self.modes + tuple(sorted({r.mode for r in runs} - set(self.modes))):
            mode_runs = [r for r in runs if r.mode == mode]
            if not mode_runs:
                continue
            tables = [self._table(mode_runs, published)]
            for table in (self._statement_table(mode_runs), self._further_table(mode_runs)):
                if table is not None:
                    tables.append(table)
            out.append(TableGroup(self.mode_title(mode), tuple(tables), self.benchmark, mode))
        return out

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        if not published or not runs:
            return []
        return [f"Published rows: {PAPER_CITATION}, on the benchmark's {PAPER_N} surveys with "
                f"the products' and models' web-searching outputs (July 2025), judged by "
                f"{PAPER_JUDGES}; ours on the tasks listed over our corpus and judges, so the "
                "two are not comparable one to one (docs/reportbench.md).",
                "Published Match Rate: upstream's pipeline (statement/match_text.py, "
                "metrics_calculator.py @ 1826140) leaves a cited source it could not scrape out "
                "of the denominator, as our Match Rate (checkable) does; our Match Rate counts "
                "it as a mismatch (paper §4)."]

    def csv(self, runs: Sequence[ReportRun]) -> str:
        keys = [k for k in REF_KEYS + RATES + COUNTS if any(k in r.summary.metrics for r in runs)]
        count_keys = [k for k, _ in self.STATEMENT_COLUMNS if k not in RATES]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["system", "run_dir", "granularity", "agent", "n_tasks",
                         "n_with_report", "n_missing", "n_no_references", "n_judged"]
                        + [f"{k}{s}" for k in keys for s in ("", "_n", "_n_null")]
                        + [f"total_{k}" for k in count_keys])
        for r in runs:
            raw = r.raw_summary
            st = raw.get("statements") if judged(r) else {}
            row: list[object] = [r.name, str(r.run_dir), r.mode, r.summary.agent,
                                 r.summary.n_samples, raw.get("n_with_report", ""),
                                 raw.get("n_missing", ""), raw.get("n_no_references", ""),
                                 st.get("n_judged", "") if st else ""]
            for key in keys:
                m = r.summary.metrics.get(key)
                row += (["", "", ""] if m is None else
                        ["" if m.mean is None else repr(m.mean), m.n, m.n_null])
            counts = (st or {}).get("counts") or {}
            row += [counts.get(k, "") if st else "" for k in count_keys]
            writer.writerow(csv_row(row))
        return buffer.getvalue()

    # -------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = best_directions(COLUMNS.values())
        footnotes = self.footnotes(runs, page.published)
        for group in self.groups(runs, page.published):
            mode_runs = [r for r in runs if r.mode == group.mode]
            out.append(f'<section class="mode" data-benchmark="reportbench" '
                       f'data-mode="{e(group.mode)}">')
            out.append(page.heading(3, group.title))
            out.append(page.heading(4, "Leaderboard", toc=False))
            out.extend(table_html(t, group.title, directions) for t in group.tables)
            out.extend(f'<p class="footnote">{e(f)}</p>' for f in footnotes)
            out.append(page.heading(4, f"Figures — ReportBench {group.mode}", toc=False))
            out.append(self._figures(mode_runs, page))
            out.append(page.heading(4, f"Per-survey drill-down — ReportBench {group.mode}"))
            out.append(self._drilldown(mode_runs, page))
            out.append("</section>")
        return "\n".join(out)

    def _figures(self, runs: Sequence[ReportRun], page: Page) -> str:
        colours = {r.run_dir: svg.colour(i) for i, r in enumerate(runs)}
        p, rc = "ref_precision", "ref_recall"
        points = [svg.Point(r.summary.metrics[rc].mean or 0.0, r.summary.metrics[p].mean or 0.0,
                            r.name, colours[r.run_dir],
                            tooltip=f"{r.name}: precision "
                            f"{COLUMNS[p].format(r.summary.metrics[p].mean)}, recall "
                            f"{COLUMNS[rc].format(r.summary.metrics[rc].mean)}",
                            data={"run": str(r.run_dir)}) for r in runs]
        legend = [(r.name, colours[r.run_dir], "filled") for r in runs]
        if page.published:
            points += [svg.Point(row.values[rc], row.values[p], row.system, published=True,
                                 tooltip=f"{row.system} (published): precision "
                                 f"{row.values[p]:.3f}, recall {row.values[rc]:.3f}")
                       for row in published_rows()]
            legend.append(("published (Table 1)", svg.PUBLISHED_COLOUR, "hollow"))
        per_run = svg.scatter(points, x_label="reference recall", y_label="reference precision",
                              title="Precision vs recall per run", legend=legend,
                              x_percent=False, y_percent=False, clamp=(0.0, 1.0),
                              kind="pr-runs", width=440, height=360)
        survey_points = []
        for r in runs:
            for sid, v in r.sample_values((p, rc)).items():
                if v[p] is not None and v[rc] is not None:
                    survey_points.append(svg.Point(v[rc], v[p], colour=colours[r.run_dir],
                                                   small=True, tooltip=f"{r.name} · {sid}: "
                                                   f"precision {v[p]:.3f}, recall {v[rc]:.3f}",
                                                   data={"sample": sid}))
            m = r.summary.metrics
            survey_points.append(svg.Point(m[rc].mean or 0.0, m[p].mean or 0.0, "",
                                           colours[r.run_dir], tooltip=f"{r.name}: mean"))
        per_survey = svg.scatter(survey_points, x_label="reference recall",
                                 y_label="reference precision",
                                 title="Precision vs recall per survey",
                                 legend=[(r.name, colours[r.run_dir], "filled") for r in runs],
                                 x_range=(0.0, None), y_range=(0.0, 1.0), x_percent=False,
                                 y_percent=False, clamp=(0.0, 1.0), kind="pr-surveys",
                                 width=440, height=360)
        parts = [page.figures([(per_run, "per run"), (per_survey, "per survey")],
                              "Reference precision against recall. Left: each run's mean "
                              "(filled) and the paper's Table 1 rows (hollow grey). Right: every "
                              "survey of each run (small dots; tooltips name the survey) and the "
                              "run's mean (large).")]
        panels = []
        for key in (k for k in TABLE_KEYS if k in BY_KEY):     # Table 1's measures
            if not any(key in r.summary.metrics for r in runs):
                continue
            d = COLUMNS[key]
            groups = []
            for r in runs:
                values = r.sample_values((key,))
                groups.append(strip_group(r, key, colours[r.run_dir], values))
            fixed = d.bounds if None not in d.bounds else (None, None)
            panels.append((svg.box_strip(groups, title=d.label, y_percent=d.percent,
                                         clamp=d.bounds, y_range=fixed, kind=f"dist-{key}"),
                           key))
        parts.append(page.figures(panels, "Per-survey score distributions: box = quartiles "
                                  "and median, whiskers = range, dots = surveys, diamond = "
                                  "mean; statement rates over the judged reports where they "
                                  "are defined (undefined counted under the name)."))
        return '<div class="figures">' + "".join(parts) + "</div>"

    # ---------------------------------------------------------------------------- metadata

    def run_metadata(self, run: ReportRun) -> str:
        m, s = run.manifest, run.raw_summary
        models = m.get("models") or {}
        extra: list[tuple[str, str]] = []
        for role, label in (("agent", "writer model"), ("judge", "judge model"),
                            ("prompt", "prompt-construction model")):
            info = models.get(role)
            if isinstance(info, dict):
                extra.append((label, e(info.get("model") or info.get("model_id") or "—")))
        if isinstance(models.get("vote_judges"), list):
            extra.append(("vote judges", e(", ".join(str(v.get("model") or v.get("model_id"))
                                                     for v in models["vote_judges"]))))
        if isinstance(m.get("statements"), dict):
            ident = m["statements"]
            extra.append(("statement judging", e(", ".join(
                f"{k}={v}" for k, v in ident.items() if isinstance(v, (str, int, float))))))
        extra.extend(usage_rows(m))
        refs = s.get("references") or {}
        if refs:
            reasons = ", ".join(f"{v} {k}" for k, v in (refs.get("reasons") or {}).items())
            extra.append(("references found", e(
                f"{refs.get('found', 0)} found, {refs.get('resolved', 0)} resolved in the "
                f"corpus, {refs.get('titled', 0)} titled only, {refs.get('unresolved', 0)} "
                f"unresolved" + (f" ({reasons})" if reasons else ""))))
        micro = s.get("micro") or {}
        if micro:
            extra.append(("micro precision / recall", e(
                f"{micro.get('ref_precision', 0):.4f} / {micro.get('ref_recall', 0):.4f}")))
        st = s.get("statements")
        if isinstance(st, dict):
            c = st.get("counts") or {}
            extra.append(("statement counts", e(
                f"{st.get('n_judged', 0)} judged, {st.get('n_not_judged', 0)} not judged, "
                f"{st.get('n_failed', 0)} failed; unreachable {c.get('n_cited_unreachable', 0)}"
                f", cited unscored {c.get('n_cited_unscored', 0)}, ties "
                f"{c.get('n_noncited_tie', 0)}, non-cited unscored "
                f"{c.get('n_noncited_unscored', 0)}, votes unscored "
                f"{c.get('n_votes_unscored', 0)}")))
        options = m.get("options")
        if isinstance(options, dict):
            extra.append(("options", e(", ".join(f"{k}={v}" for k, v in options.items()))))
        return metadata_html(run, extra)
