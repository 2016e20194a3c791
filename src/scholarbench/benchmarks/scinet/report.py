"""SciNet in the report: a leaderboard per task family — ego (novelty / disruption SoS and
recall@50), pair (cite accuracy and sentiment, co-mention accuracy and paragraph co-mention;
macro means, and the micro means summary.json holds beside them), path (consistency,
connectivity) — with the LLM-judged metrics (novelty_llm, disruption_llm,
path_rationality_llm) and the judge's scored / unscored counts when the run was judged; a bar
plot per family comparing the runs and per-task score distributions; a per-task drill-down (the
query, the agent's answer beside the ground truth, the judge's scores and reasons, all escaped)
and run metadata (environment, agent and judge models, tokens, counts).

No published rows: SciNet released its query files but no ground truth, so our tasks are built
by rule from a real citation graph (docs/scinet.md) and the paper's numbers are not on the same
tasks — the section says so in a note.

Numbers come from the run's files only: the means and counts from summary.json
(`families.<family>`: macro / micro / n / n_null per metric; `judge.<metric>` counts), the
per-task values from scores.jsonl (keyed by `task_id`), the query and ground truth from
tasks.jsonl, the answers from generate.jsonl, the judge's reasons from judge.<item>.jsonl
(`judge_records.py`). The drill-down marks an answer item as a hit when it is literally a
ground-truth id; the scorer also resolves other spellings and exact titles, so its hit counts
(shown) are the ones that count.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.scinet.drilldown import DrillDown
from scholarbench.benchmarks.scinet.judged import EGO, PATH, REVIEW
from scholarbench.benchmarks.scinet.report_display import (  # noqa: F401  (re-exported)
    ALL_KEYS, COLUMNS, COUNT_KEYS, COUNTS, FAMILIES, FAMILY_TITLES, KEYS, LLM_KEYS, MICRO,
    NO_PUBLISHED, ORACLE_NOTE, UNDEFINED_WHY, family_summary, judge_entry, judged)
from scholarbench.core.display import best_directions
from scholarbench.core.judge_stage import judged_entry, recorded_judges
from scholarbench.core.measure import Measure
from scholarbench.errors import DataError
from scholarbench.report import svg
from scholarbench.report.htmlkit import Page, e, metadata_html, table_html
from scholarbench.report.sections.base import (ReportRun, ReportSection,
                                               count_field, metric_rows, optional_number, plural,
                                               read_json_object, strip_group)
from scholarbench.report.tables import MetricSummary, Row, RunSummary, Table, TableGroup
from scholarbench.text.escape import csv_row
from scholarbench.benchmarks.scinet.report_review import review_table


class SciNetSection(DrillDown, ReportSection):
    """Registered by the package (`scholarbench.benchmarks.scinet`) as a factory, so reports
    import this module only when they show a SciNet run."""
    benchmark = "scinet"
    title = "SciNet"
    order = 50
    modes = FAMILIES
    mode_titles = FAMILY_TITLES

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        path = run_dir / "summary.json"
        raw = read_json_object(path, run_dir)
        if raw.get("benchmark") != "scinet":
            raise DataError(f"benchmark is {raw.get('benchmark')!r}, the manifest says "
                            "'scinet'", file=str(path), field="benchmark")
        families = raw.get("families")
        if not isinstance(families, dict) or not families:
            raise DataError(f"expected an object with one entry per task family, got "
                            f"{families!r}", file=str(path), field="families")
        family = manifest.get("mode") or manifest.get("family")   # engine runs: mode
        if family not in families:
            if family is not None:
                raise DataError(f"no entry for the run's family {family!r} (the manifest's)",
                                file=str(path), field="families")
            family = next(iter(families))
        agg = families[family]
        prefix = f"families.{family}."
        if not isinstance(agg, dict):
            raise DataError(f"expected an object, got {agg!r}", file=str(path),
                            field=prefix[:-1])
        n_tasks = count_field(agg, "n_tasks", path, prefix=prefix, missing_ok=True)
        for key in ("empty_answers", "missing_answers", "not_in_graph", "no_gold"):
            count_field(agg, key, path, prefix=prefix, missing_ok=True)
        metrics: dict[str, MetricSummary] = {}
        for key in ALL_KEYS:
            entry = agg.get(key)
            if entry is None:
                continue
            if not isinstance(entry, dict):
                raise DataError(f"expected an object with macro, n, n_null, got {entry!r}",
                                file=str(path), field=prefix + key)
            n = count_field(entry, "n", path, prefix=prefix + key + ".", missing_ok=True)
            n_null = count_field(entry, "n_null", path, prefix=prefix + key + ".",
                                 missing_ok=True)
            unscored = 0
            if key in LLM_KEYS[family]:
                unscored = min(n_null, int(((agg.get("judge") or {}).get(key) or {})
                                           .get("tasks_null", 0) or 0))
            metrics[key] = MetricSummary(optional_number(entry.get("macro"), path,
                                                 prefix + key + ".macro"), n, n_null, unscored)
            if "micro" in entry:
                metrics[f"{key}_micro"] = MetricSummary(
                    optional_number(entry.get("micro"), path, prefix + key + ".micro"), n, n_null)
        # the report's run table and metadata read these generic keys; summary.json's own
        # keys are all kept as they are
        raw = {**raw, "n_samples": n_tasks, "n_missing": agg.get("missing_answers", 0)}
        if family == "review":                  # one judgement scores all five dimensions
            raw["n_unscored"] = int(agg.get("unscored", 0) or 0)
        elif isinstance(agg.get("judge"), dict):
            raw["n_unscored"] = sum(int((c or {}).get("unscored", 0))
                                    for c in agg["judge"].values() if isinstance(c, dict))
        summary = RunSummary(run_dir, family, str(manifest.get("agent") or raw.get("agent")
                                                  or ""),
                             manifest.get("run_name") or raw.get("run_name"), n_tasks,
                             int(agg.get("missing_answers", 0)), 0, metrics)
        return ReportRun(run_dir, self.benchmark, family, summary, manifest, raw,
                         id_key="task_id")

    def metrics(self, mode: str) -> list[Measure]:
        keys = KEYS.get(mode, ALL_KEYS)
        return ([COLUMNS[k] for k in keys] + [COLUMNS[f"{k}_micro"] for k in keys if k in MICRO]
                + [COLUMNS[k] for k in LLM_KEYS.get(mode, ())])

    def paired_metrics(self, mode: str) -> list[Measure]:
        # the micro means pool a run's hits: no per-task value to pair
        return [COLUMNS[k] for k in KEYS.get(mode, ALL_KEYS) + LLM_KEYS.get(mode, ())]

    # ------------------------------------------------------------------------------ tables

    def _columns(self, family: str, runs: Sequence[ReportRun]) -> tuple[str, ...]:
        """The family's metrics, each followed by its micro mean when some run has one."""
        out: list[str] = []
        for key in KEYS[family]:
            out.append(key)
            if any(f"{key}_micro" in r.summary.metrics for r in runs):
                out.append(f"{key}_micro")
        return tuple(out)

    def _notes(self, run: ReportRun) -> str | None:
        agg, parts = family_summary(run), []
        counts = [f"{plural(agg[k], label)}" for k, label in
                  (("empty_answers", "empty answer"), ("missing_answers", "missing answer"))
                  if agg.get(k)]
        if counts:
            parts.append(", ".join(counts) + " (scored 0, in the means"
                         + (f"; {plural(agg['errors'], 'errored task')} among them, not in the "
                            "means: the run is incomplete, a resume retries them)"
                            if agg.get("errors") else ")"))
        if agg.get("unresolved_refs") and agg["unresolved_refs"] != agg.get("not_in_graph"):
            parts.append(f"{plural(agg['unresolved_refs'], 'answer reference')} in all resolve "
                         "to no paper of the graph (ids, DOIs, titles; the first 50 items of "
                         "each answer count)")
        if agg.get("not_in_graph"):
            parts.append(f"{plural(agg['not_in_graph'], 'answer item')} not in the graph "
                         "(misses)")
        if agg.get("no_gold"):
            parts.append(f"{plural(agg['no_gold'], 'task')} without ground truth (upstream "
                         "queries; no metric)")
        for key in KEYS[run.mode]:
            m = run.summary.metrics.get(key)
            if m is None:
                continue
            if m.n_null:
                why = UNDEFINED_WHY.get(key, "undefined")
                parts.append(f"{COLUMNS[key].label} undefined for {plural(m.n_null, 'task')} "
                             f"({why}; excluded)")
        per = [f"{COLUMNS[k].label} n={run.summary.metrics[k].n}" for k in KEYS[run.mode]
               if k in run.summary.metrics]
        if per:
            parts.append("tasks scored: " + ", ".join(per))
        if "relation-aware" in str(run.summary.agent) and run.mode in ("ego", "path"):
            parts.append(ORACLE_NOTE)
        return f"{run.name}: {'; '.join(parts)}" if parts else None

    def _table(self, family: str, runs: Sequence[ReportRun]) -> Table:
        keys = self._columns(family, runs)
        header = ("System", "Samples") + tuple(COLUMNS[k].label for k in keys)
        rows = metric_rows(runs, keys, COLUMNS)
        notes = [n for r in runs if (n := self._notes(r))]
        explain = {"ego": "SoS = mean 0–10 percentile of the returned papers' novelty "
                          "(lowest Uzzi z first) or disruption (CD index) in the graph; "
                          "Recall@50 = share of the category's gold top 50 returned. Macro "
                          "means over the tasks of each kind (novel / disruptive).",
                   "pair": "Shares of the distinct returned papers (first 50) that cite the "
                           "query paper (Cite Acc), cite it positively (Cite Sentiment), are "
                           "co-cited with it (Co-mention Acc), or co-mentioned in one paragraph "
                           "(Co-mention Paragraph). Macro means over the tasks; micro = Σ hits "
                           "/ Σ distinct returned over the non-empty answers.",
                   "path": "Path Consistency = precision of the returned papers against the "
                           "gold path (endpoints included; micro pooled); Path Connectivity = 1 "
                           "when the endpoints and every returned paper form one citation "
                           "chain."}[family]
        notes.append(explain)
        return Table(f"SciNet {family} — deterministic metrics", header, tuple(rows),
                     tuple(notes), keys)

    def _llm_table(self, family: str, runs: Sequence[ReportRun]) -> Table | None:
        keys = LLM_KEYS[family]
        runs = [r for r in runs if judged(r)]
        if not keys or not runs:
            return None
        count_cols = (("judged", "Judged items"), ("unscored", "Unscored items"),
                      ("tasks_null", "Tasks null"))
        header = (("System", "Samples") + tuple(COLUMNS[k].label for k in keys)
                  + tuple(label for _, label in count_cols))
        rows, notes = [], []
        for r in runs:
            counts = judge_entry(r)
            values: list[float | None] = [r.summary.metrics[k].mean if k in r.summary.metrics
                                          else None for k in keys]
            cells = [COLUMNS[k].format(v) for k, v in zip(keys, values)]
            for name, _ in count_cols:
                total = sum(int((counts.get(k) or {}).get(name, 0)) for k in keys)
                values.append(float(total))
                cells.append(f"{total:,}")
            rows.append(Row("ours", (r.name, f"n={r.summary.n_samples}") + tuple(cells),
                            tuple(values), str(r.run_dir)))
            for k in keys:
                c = counts.get(k)
                if isinstance(c, dict):
                    reasons = ", ".join(f"{v} {why}" for why, v in
                                        (c.get("reasons") or {}).items()) or "none"
                    m = r.summary.metrics.get(k)
                    notes.append(f"{r.name}: {COLUMNS[k].label} over "
                                 f"{plural(m.n if m else 0, 'task')}; {c.get('judged', 0)} "
                                 f"items scored, {c.get('unscored', 0)} unscored ({reasons}; "
                                 f"excluded), {c.get('tasks_null', 0)} tasks null")
        judges = sorted({self._judge_name(r) for r in runs})
        notes.append("0–10 scores of the judge role's model (" + ", ".join(judges) + ") with "
                     "the paper's appendix-C prompts; ego: the mean over the returned papers, "
                     "each judged on its own; path: one judgement of the returned list. "
                     "Unscored items (a reply unusable after one repair, or a failed call) "
                     "are excluded and counted. With a judge panel the value is the panel's "
                     "mean; each judge's, their agreement and rankings: the Judges panel.")
        return Table(f"SciNet {family} — LLM-judged metrics", header, tuple(rows),
                     tuple(notes), tuple(keys) + tuple(f"judge_{n}" for n, _ in count_cols))

    @staticmethod
    def _judge_name(run: ReportRun) -> str:
        """The (first) judge's model: the engine's `judged.<item>`, else an older run's
        `models.judge` or `judge.model_id`."""
        judges = [j for item in (EGO, PATH, REVIEW)
                  for j in recorded_judges(judged_entry(run.manifest, item) or {})]
        models = run.manifest.get("models") or {}
        judge = run.manifest.get("judge") or {}
        return str((judges[0] if judges else {}).get("model")
                   or (models.get("judge") or {}).get("model")
                   or str(judge.get("model_id") or "").rsplit("|", 1)[-1] or "not recorded")

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        out = []
        for family in FAMILIES:
            fam_runs = [r for r in runs if r.mode == family]
            if not fam_runs:
                continue
            if family == "review":
                # deferred: pulls in pyarrow
                tables = [review_table(fam_runs, published)]
            else:
                tables = [self._table(family, fam_runs)]
                llm = self._llm_table(family, fam_runs)
                if llm is not None:
                    tables.append(llm)
            out.append(TableGroup(self.mode_title(family), tuple(tables), self.benchmark,
                                  family))
        return out

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        return [NO_PUBLISHED] if runs else []

    def csv(self, runs: Sequence[ReportRun]) -> str:
        llm = tuple(k for f in FAMILIES for k in LLM_KEYS[f])
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["system", "run_dir", "family", "agent", "n_tasks", "empty_answers",
                         "missing_answers", "not_in_graph", "no_gold"]
                        + [f"{k}{s}" for k in ALL_KEYS
                           for s in ("", "_n", "_n_null") + (("_micro",) if k in MICRO else ())]
                        + [f"{k}_{s}" for k in llm for s in ("judged", "unscored",
                                                              "tasks_null")]
                        + ["judge_model", "agent_llm_calls", "agent_llm_failed",
                           "agent_llm_fallback_tasks"])
        for r in runs:
            agg = family_summary(r)
            row: list[object] = [r.name, str(r.run_dir), r.mode, r.summary.agent,
                                 r.summary.n_samples] + [agg.get(k, 0) for k in (
                                     "empty_answers", "missing_answers", "not_in_graph",
                                     "no_gold")]
            for key in ALL_KEYS:
                m = r.summary.metrics.get(key)
                row += (["", "", ""] if m is None else
                        ["" if m.mean is None else repr(m.mean), m.n, m.n_null])
                if key in MICRO:
                    micro = r.summary.metrics.get(f"{key}_micro")
                    row.append("" if micro is None or micro.mean is None else repr(micro.mean))
            counts = judge_entry(r)
            for key in llm:
                c = counts.get(key)
                row += ([c.get("judged", 0), c.get("unscored", 0), c.get("tasks_null", 0)]
                        if isinstance(c, dict) else ["", "", ""])
            agent_llm = r.raw_summary.get("agent_llm") or {}
            row += [self._judge_name(r) if judged(r) else "", agent_llm.get("calls", ""),
                    agent_llm.get("failed", ""), agent_llm.get("fallback_tasks", "")]
            writer.writerow(csv_row(row))
        return buffer.getvalue()

    # -------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = best_directions(COLUMNS.values())
        for group in self.groups(runs, page.published):
            fam_runs = [r for r in runs if r.mode == group.mode]
            out.append(f'<section class="mode" data-benchmark="scinet" '
                       f'data-mode="{e(group.mode)}">')
            out.append(page.heading(3, group.title))
            out.append(page.heading(4, "Leaderboard", toc=False))
            out.extend(table_html(t, group.title, directions) for t in group.tables)
            out.extend(f'<p class="footnote">{e(f)}</p>'
                       for f in self.footnotes(fam_runs, page.published))
            out.append(page.heading(4, f"Figures — SciNet {group.mode}", toc=False))
            out.append(self._figures(group.mode, fam_runs, page))
            out.append(page.heading(4, f"Per-task drill-down — SciNet {group.mode}"))
            out.append(self._drilldown(fam_runs, page))
            out.append("</section>")
        return "\n".join(out)

    def bar_panels(self, family: str, runs: Sequence[ReportRun]
                   ) -> list[tuple[str, tuple[str, ...], tuple[float, float]]]:
        """(panel title, metric keys, y range) per scale of the family's metrics."""
        panels: list[tuple[str, tuple[str, ...], tuple[float, float]]] = []
        if family == "ego":
            panels.append(("SoS (0–10 percentile)", ("novelty_sos", "disruption_sos"),
                           (0.0, 10.0)))
            panels.append(("Recall@50", ("novelty_recall@50", "disruption_recall@50"),
                           (0.0, 1.0)))
        elif family == "pair":
            panels.append(("Pair-wise accuracy", KEYS["pair"], (0.0, 1.0)))
        else:
            panels.append(("Path metrics", KEYS["path"], (0.0, 1.0)))
        llm = tuple(k for k in LLM_KEYS[family] if any(k in r.summary.metrics for r in runs))
        if llm:
            panels.append(("LLM judge (0–10)", llm, (0.0, 10.0)))
        return [p for p in panels if any(k in r.summary.metrics for r in runs for k in p[1])]

    def _figures(self, family: str, runs: Sequence[ReportRun], page: Page) -> str:
        colours = {r.run_dir: svg.colour(i) for i, r in enumerate(runs)}
        bars = []
        for title, keys, y_range in self.bar_panels(family, runs):
            cats = [svg.BarCategory(COLUMNS[k].label) for k in keys]
            series = [svg.BarSeries(r.name, [r.summary.metrics[k].mean
                                             if k in r.summary.metrics else None
                                             for k in keys], colours[r.run_dir])
                      for r in runs]
            bars.append((svg.grouped_bars(cats, series, y_label=title, title=title,
                                          y_percent=False, y_range=y_range,
                                          width=max(300, 90 + len(keys) * (18 * len(runs) + 40)),
                                          kind=f"scinet-{family}-bars"), title))
        parts = []
        if bars:
            parts.append(page.figures(bars, f"SciNet {family}: each run's macro means per "
                                      "metric (one colour per run; a missing bar = the metric "
                                      "undefined for every task or not computed). No published "
                                      "rows: SciNet released no ground truth."))
        panels = []
        for key in KEYS[family] + LLM_KEYS[family]:
            if not any(key in r.summary.metrics and r.summary.metrics[key].n for r in runs):
                continue
            d = COLUMNS[key]
            groups = []
            for r in runs:
                present = {str(row.get("id")) for row in r.scores if key in row}
                values = {sid: v for sid, v in r.sample_values((key,)).items()
                          if sid in present}
                groups.append(strip_group(r, key, colours[r.run_dir], values))
            panels.append((svg.box_strip(groups, title=d.label, y_percent=False,
                                         clamp=d.bounds, y_range=d.bounds,
                                         kind=f"dist-{key}"), key))
        if panels:
            parts.append(page.figures(panels, "Per-task score distributions: box = quartiles "
                                      "and median, whiskers = range, dots = tasks, diamond = "
                                      "mean; tasks where the metric is undefined are counted "
                                      "under the name."))
        return '<div class="figures">' + "".join(parts) + "</div>"

    # ---------------------------------------------------------------------------- metadata

    def run_metadata(self, run: ReportRun) -> str:
        m, s = run.manifest, run.raw_summary
        agg = family_summary(run)
        extra: list[tuple[str, str]] = [("task family", e(FAMILY_TITLES.get(run.mode,
                                                                            run.mode)))]
        data = m.get("data") if isinstance(m.get("data"), dict) else m   # engine runs: data
        env = data.get("env")
        if isinstance(env, dict):
            extra.append(("environment", e(", ".join(f"{k}={v}" for k, v in env.items()))))
        if data.get("tasks_source"):
            extra.append(("tasks", e(f"{data.get('n_tasks', '?')} from {data['tasks_source']}; "
                                     f"sha256 {str(data.get('tasks_sha256', ''))[:16]}")))
        extra.append(("answers", e(f"{agg.get('empty_answers', 0)} empty, "
                                   f"{agg.get('missing_answers', 0)} missing, "
                                   f"{agg.get('not_in_graph', 0)} items not in the graph, "
                                   f"{agg.get('no_gold', 0)} tasks without ground truth")))
        counts = judge_entry(run)
        if counts:
            extra.append(("judge counts", e("; ".join(
                f"{k}: {c.get('judged', 0)} scored, {c.get('unscored', 0)} unscored ("
                + (", ".join(f"{v} {r}" for r, v in (c.get("reasons") or {}).items()) or
                   "none") + f"), {c.get('tasks_null', 0)} tasks null"
                for k, c in counts.items() if isinstance(c, dict)))))
        a = s.get("agent_llm")
        if isinstance(a, dict):
            extra.append(("agent model calls", e(
                f"{a.get('calls', 0)} calls, {a.get('failed', 0)} failed, "
                f"{a.get('unscored', 0)} unusable replies, {a.get('fallback_tasks', 0)} tasks "
                "took a fallback; stopped: " + (", ".join(f"{v} {k}" for k, v in
                                                          (a.get("stopped") or {}).items())
                                                or "—"))))
        return metadata_html(run, extra)


__all__ = ["SciNetSection", "COLUMNS", "KEYS", "LLM_KEYS"]
