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
tasks.jsonl, the answers from generate.jsonl, the judge's reasons from judge.jsonl. The
drill-down marks an answer item as a hit when it is literally a ground-truth id; the scorer also
resolves other spellings and exact titles, so its hit counts (shown) are the ones that count.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Sequence

from scholarbench.errors import DataError
from scholarbench.report import svg
from scholarbench.report.htmlkit import Page, e, metadata_html, sample_metric_table, table_html
from scholarbench.report.sections.base import (MetricDisplay, ReportRun, ReportSection,
                                               count_field, metric_rows, optional_number, plural,
                                               read_json_object, strip_group)
from scholarbench.report.tables import MetricSummary, Row, RunSummary, Table, TableGroup

FAMILIES = ("ego", "pair", "path")
KEYS: dict[str, tuple[str, ...]] = {
    "ego": ("novelty_sos", "novelty_recall@50", "disruption_sos", "disruption_recall@50"),
    "pair": ("cite_acc", "cite_sentiment", "comention_acc", "comention_paragraph"),
    "path": ("path_consistency", "path_connectivity"),
}
LLM_KEYS: dict[str, tuple[str, ...]] = {"ego": ("novelty_llm", "disruption_llm"), "pair": (),
                                        "path": ("path_rationality_llm",)}
MICRO = ("cite_acc", "cite_sentiment", "comention_acc", "comention_paragraph",
         "path_consistency")
ALL_KEYS = tuple(k for f in FAMILIES for k in KEYS[f] + LLM_KEYS[f])
COUNT_KEYS = ("returned", "distinct", "in_graph", "not_in_graph")


def _sos(key: str, label: str) -> MetricDisplay:
    return MetricDisplay(key, label, decimals=3, bounds=(0.0, 10.0))


def _rate(key: str, label: str) -> MetricDisplay:
    return MetricDisplay(key, label, decimals=3)


DISPLAY: dict[str, MetricDisplay] = {
    "novelty_sos": _sos("novelty_sos", "Novelty SoS"),
    "novelty_recall@50": _rate("novelty_recall@50", "Novelty Recall@50"),
    "disruption_sos": _sos("disruption_sos", "Disruption SoS"),
    "disruption_recall@50": _rate("disruption_recall@50", "Disruption Recall@50"),
    "cite_acc": _rate("cite_acc", "Cite Acc"),
    "cite_sentiment": _rate("cite_sentiment", "Cite Sentiment"),
    "comention_acc": _rate("comention_acc", "Co-mention Acc"),
    "comention_paragraph": _rate("comention_paragraph", "Co-mention Paragraph"),
    "path_consistency": _rate("path_consistency", "Path Consistency"),
    "path_connectivity": _rate("path_connectivity", "Path Connectivity"),
    "novelty_llm": MetricDisplay("novelty_llm", "Novelty (LLM)", decimals=2,
                                 bounds=(0.0, 10.0)),
    "disruption_llm": MetricDisplay("disruption_llm", "Disruption (LLM)", decimals=2,
                                    bounds=(0.0, 10.0)),
    "path_rationality_llm": MetricDisplay("path_rationality_llm", "Path Rationality (LLM)",
                                          decimals=2, bounds=(0.0, 10.0)),
}
for _k in MICRO:
    DISPLAY[f"{_k}_micro"] = _rate(f"{_k}_micro", f"{DISPLAY[_k].label} (micro)")
COUNT_DISPLAY = {k: MetricDisplay(k, label, decimals=0, bounds=(0.0, None), directional=False)
                 for k, label in zip(COUNT_KEYS, ("Returned", "Distinct", "In graph",
                                                  "Not in graph"))}
UNDEFINED_WHY = {
    "cite_sentiment": "no citation context of the query paper",
    "comention_paragraph": "the query paper in no unArXive paragraph",
    "novelty_llm": "every judged paper unscored",
    "disruption_llm": "every judged paper unscored",
    "path_rationality_llm": "the judge's reply unscored",
}
FAMILY_TITLES = {"ego": "ego-centric tasks", "pair": "pair-wise tasks",
                 "path": "path-wise tasks"}
NO_PUBLISHED = ("No published rows: SciNet released its query files but no ground truth, so "
                "these tasks are built by rule from a real citation graph (arxiv-2023 by "
                "default) in SciNet's query wording and scored by deterministic metrics; the "
                "paper's numbers (OpenAlex, GPT-5 labels) are not on the same tasks and are not "
                "shown (docs/scinet.md).")
ORACLE_NOTE = ("relation-aware computes the very graph measures the ground truth is built "
               "from: close to an oracle for ego and path tasks (what graph access is worth, "
               "not a fair contest).")
LIST_LIMIT = 50


def family_summary(run: ReportRun) -> dict[str, Any]:
    """summary.json's `families.<family>` entry of the run."""
    return run.raw_summary["families"][run.mode]


def judge_entry(run: ReportRun) -> dict[str, Any]:
    entry = family_summary(run).get("judge")
    return entry if isinstance(entry, dict) else {}


def judged(run: ReportRun) -> bool:
    return any(k in run.summary.metrics for k in LLM_KEYS.get(run.mode, ()))


class SciNetSection(ReportSection):
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
        if isinstance(agg.get("judge"), dict):
            raw["n_unscored"] = sum(int((c or {}).get("unscored", 0))
                                    for c in agg["judge"].values() if isinstance(c, dict))
        summary = RunSummary(run_dir, family, str(manifest.get("agent") or raw.get("agent")
                                                  or ""),
                             manifest.get("run_name") or raw.get("run_name"), n_tasks,
                             int(agg.get("missing_answers", 0)), 0, metrics)
        return ReportRun(run_dir, self.benchmark, family, summary, manifest, raw,
                         id_key="task_id")

    def metrics(self, mode: str) -> list[MetricDisplay]:
        keys = KEYS.get(mode, ALL_KEYS)
        return ([DISPLAY[k] for k in keys] + [DISPLAY[f"{k}_micro"] for k in keys if k in MICRO]
                + [DISPLAY[k] for k in LLM_KEYS.get(mode, ())])

    def paired_metrics(self, mode: str) -> list[MetricDisplay]:
        # the micro means pool a run's hits: no per-task value to pair
        return [DISPLAY[k] for k in KEYS.get(mode, ALL_KEYS) + LLM_KEYS.get(mode, ())]

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
        if agg.get("unresolved_refs"):
            parts.append(f"{plural(agg['unresolved_refs'], 'answer reference')} resolve to no "
                         "paper of the graph (ids, DOIs, titles; counted as misses)")
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
                parts.append(f"{DISPLAY[key].label} undefined for {plural(m.n_null, 'task')} "
                             f"({why}; excluded)")
        per = [f"{DISPLAY[k].label} n={run.summary.metrics[k].n}" for k in KEYS[run.mode]
               if k in run.summary.metrics]
        if per:
            parts.append("tasks scored: " + ", ".join(per))
        if "relation-aware" in str(run.summary.agent) and run.mode in ("ego", "path"):
            parts.append(ORACLE_NOTE)
        return f"{run.name}: {'; '.join(parts)}" if parts else None

    def _table(self, family: str, runs: Sequence[ReportRun]) -> Table:
        keys = self._columns(family, runs)
        header = ("System", "Samples") + tuple(DISPLAY[k].label for k in keys)
        rows = metric_rows(runs, keys, DISPLAY)
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
        header = (("System", "Samples") + tuple(DISPLAY[k].label for k in keys)
                  + tuple(label for _, label in count_cols))
        rows, notes = [], []
        for r in runs:
            counts = judge_entry(r)
            values: list[float | None] = [r.summary.metrics[k].mean if k in r.summary.metrics
                                          else None for k in keys]
            cells = [DISPLAY[k].format(v) for k, v in zip(keys, values)]
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
                    notes.append(f"{r.name}: {DISPLAY[k].label} over "
                                 f"{plural(m.n if m else 0, 'task')}; {c.get('judged', 0)} "
                                 f"items scored, {c.get('unscored', 0)} unscored ({reasons}; "
                                 f"excluded), {c.get('tasks_null', 0)} tasks null")
        judges = sorted({self._judge_name(r) for r in runs})
        notes.append("0–10 scores of the judge role's model (" + ", ".join(judges) + ") with "
                     "the paper's appendix-C prompts; ego: the mean over the returned papers, "
                     "each judged on its own; path: one judgement of the returned list. "
                     "Unscored items (a reply unusable after one repair, or a failed call) "
                     "are excluded and counted.")
        return Table(f"SciNet {family} — LLM-judged metrics", header, tuple(rows),
                     tuple(notes), tuple(keys) + tuple(f"judge_{n}" for n, _ in count_cols))

    @staticmethod
    def _judge_name(run: ReportRun) -> str:
        models = run.manifest.get("models") or {}
        judge = run.manifest.get("judge") or {}
        return str((models.get("judge") or {}).get("model")
                   or str(judge.get("model_id") or "").rsplit("|", 1)[-1] or "not recorded")

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        out = []
        for family in FAMILIES:
            fam_runs = [r for r in runs if r.mode == family]
            if not fam_runs:
                continue
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
            writer.writerow(row)
        return buffer.getvalue()

    # -------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = {k: d.higher_is_better for k, d in DISPLAY.items()}
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
            cats = [svg.BarCategory(DISPLAY[k].label) for k in keys]
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
            d = DISPLAY[key]
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

    # ---------------------------------------------------------------------------- drill-down

    @staticmethod
    def _read(run: ReportRun, name: str, page: Page) -> dict[str, dict[str, Any]]:
        key = ("scinet-file", str(run.run_dir), name)
        if key not in page.cache:
            from scholarbench.data.jsonl import read_jsonl_tolerant
            page.cache[key] = {str(r.get("task_id")): r for r in
                               read_jsonl_tolerant(run.run_dir / name)
                               if isinstance(r, dict)}
        return page.cache[key]

    @staticmethod
    def _judgements(run: ReportRun, page: Page) -> dict[tuple[str, str], dict[str, Any]]:
        """(metric, subject) → the last judgement in judge.jsonl."""
        key = ("scinet-judge", str(run.run_dir))
        if key not in page.cache:
            from scholarbench.data.jsonl import read_jsonl_tolerant
            out = {}
            for j in read_jsonl_tolerant(run.run_dir / "judge.jsonl"):
                if isinstance(j, dict):
                    out[(str(j.get("metric")), str(j.get("subject")))] = j
            page.cache[key] = out
        return page.cache[key]

    @staticmethod
    def gold_sets(task: dict[str, Any]) -> tuple[str, list[tuple[str, list[str]]]]:
        """A sentence about the task's ground truth, and its named id lists."""
        gold = task.get("gold")
        if not isinstance(gold, dict):
            return "No ground truth (an upstream query).", []
        family, kind = task.get("family"), task.get("kind")
        if family == "ego":
            measure = gold.get("measure", "")
            return (f"Gold: the category's top {len(gold.get('ranked') or [])} papers by "
                    f"{measure} ({gold.get('population', '')}).",
                    [("gold top-50", list(gold.get("ranked") or []))])
        if family == "pair" and kind == "pncites":
            lists = [("citers", list(gold.get("citers") or []))]
            if gold.get("positive") is not None:
                lists.append(("positive citers", list(gold["positive"])))
            return ("Gold: every graph paper citing the query paper; positive citers by the "
                    "sentiment rule" + ("" if gold.get("positive") is not None else
                                        " (none: no citation context — Cite Sentiment "
                                        "undefined)") + ".", lists)
        if family == "pair":
            lists = [("co-cited", list(gold.get("cocited") or []))]
            if gold.get("comentioned") is not None:
                lists.append(("co-mentioned in a paragraph", list(gold["comentioned"])))
            return ("Gold: papers cited together with the query paper; paragraph co-mentions"
                    + ("" if gold.get("comentioned") is not None else
                       " (none: no paragraph — Co-mention Paragraph undefined)") + ".", lists)
        return (f"Gold: the maximum cumulative-citation path (score {gold.get('score', '—')}).",
                [("gold path", list(gold.get("path") or []))])

    def _drilldown(self, runs: Sequence[ReportRun], page: Page) -> str:
        rows = {r.run_dir: {str(row.get("id")): row for row in r.scores} for r in runs}
        ids = list(dict.fromkeys(sid for r in runs for sid in rows[r.run_dir]))
        out = []
        if page.max_samples is not None and len(ids) > page.max_samples:
            ids = ids[: page.max_samples]
            out.append(f'<p class="muted">The first {len(ids)} tasks are shown '
                       "(--max-samples).</p>")
        tasks = {r.run_dir: self._read(r, "tasks.jsonl", page) for r in runs}
        generated = {r.run_dir: self._read(r, "generate.jsonl", page) for r in runs}
        family = runs[0].mode if runs else ""
        metrics = ([DISPLAY[k] for k in KEYS.get(family, ())]
                   + [DISPLAY[k] for k in LLM_KEYS.get(family, ()) if any(judged(r)
                                                                           for r in runs)]
                   + [COUNT_DISPLAY[k] for k in COUNT_KEYS])
        for i, sid in enumerate(ids):
            task = next((tasks[r.run_dir][sid] for r in runs if sid in tasks[r.run_dir]), {})
            metric_rows = []
            for r in runs:
                row = dict(rows[r.run_dir].get(sid) or {})
                record = generated[r.run_dir].get(sid) or {}
                if row.get("missing_answer"):
                    row["missing"] = True
                if record.get("error"):
                    row["error"] = record["error"]
                metric_rows.append((r.name, row))
            body = [sample_metric_table(metric_rows, metrics)]
            sentence, gold_lists = self.gold_sets(task) if task else ("Task not in tasks.jsonl.",
                                                                      [])
            facts = [f"{task.get('kind', '')}"] if task else []
            for key in ("field", "source", "classic", "recent"):
                if task.get(key):
                    facts.append(f"{key} {task[key]}")
            body.append(f'<p class="muted">{e(" · ".join(facts))}</p>')
            body.append(f'<p class="legend-line"><b>Query:</b> {e(task.get("query", ""))}</p>')
            body.append(f'<p class="legend-line">{e(sentence)}</p>')
            gold_all = {g for _, ids_ in gold_lists for g in ids_}
            answers = {r.run_dir: (generated[r.run_dir].get(sid) or {}).get("papers")
                       for r in runs}
            returned = {str(p) for a in answers.values() if isinstance(a, list) for p in a}
            for name, items in gold_lists:
                body.append(self._id_list(f"Ground truth — {name} ({len(items)})", items,
                                          returned, "in some run's answer", data=f"gold-{name}"))
            for r in runs:
                body.append(self._run_block(r, sid, rows[r.run_dir].get(sid) or {},
                                            generated[r.run_dir].get(sid), gold_lists,
                                            gold_all, page))
            open_attr = " open" if i == 0 else ""
            query = str(task.get("query", ""))
            out.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                       f'<span class="sid">{e(sid)}</span> <span class="stitle">'
                       f'{e(query[:160] + ("…" if len(query) > 160 else ""))}</span></summary>'
                       f'<div class="sample-body">{"".join(body)}</div></details>')
        return "\n".join(out)

    @staticmethod
    def _id_list(title: str, items: Sequence[Any], marked: set[str], mark: str,
                 scores: dict[str, str] | None = None, data: str = "") -> str:
        shown = list(items)[:LIST_LIMIT]
        lis = []
        for item in shown:
            hit = str(item) in marked
            extra = f' <span class="muted">{e(scores[str(item)])}</span>' if (
                scores and str(item) in scores) else ""
            lis.append(f'<li class="{"rel" if hit else "nonrel"}">{e(item)}'
                       f'{" ✓" if hit else ""}{extra}</li>')
        more = (f'<li class="muted">… {len(items) - LIST_LIMIT} more</li>'
                if len(items) > LIST_LIMIT else "")
        return (f'<details class="excerpt" data-list="{e(data)}"><summary>{e(title)} — ✓ = '
                f'{e(mark)}</summary><ol class="ranked">{"".join(lis)}{more}</ol></details>')

    def _run_block(self, run: ReportRun, sid: str, row: dict[str, Any],
                   record: dict[str, Any] | None, gold_lists: list[tuple[str, list[str]]],
                   gold_all: set[str], page: Page) -> str:
        parts = [f'<h5 class="run-name">{e(run.name)}</h5>']
        papers = (record or {}).get("papers")
        if not isinstance(papers, list):
            why = (record or {}).get("error") or ("malformed answer" if record else
                                                  "not generated")
            parts.append(f'<p class="muted">No answer ({e(why)}); scored as empty.</p>')
        else:
            hits = {k: row[k] for k in row if k.endswith("_hits")}
            literal = sum(1 for p in dict.fromkeys(map(str, papers[:50])) if p in gold_all)
            scored = ", ".join(f"{k[:-5]} {v}" for k, v in hits.items())
            parts.append(f'<p class="legend-line">{len(papers)} items returned, '
                         f'{row.get("distinct", "—")} distinct in the first 50, '
                         f'{row.get("in_graph", "—")} in the graph, '
                         f'{row.get("not_in_graph", "—")} not; scorer hits: {e(scored or "—")}'
                         f"; {literal} literally in the ground truth</p>")
            scores: dict[str, str] = {}
            judgements = self._judgements(run, page)
            for metric in LLM_KEYS.get(run.mode, ()):
                for p in papers:
                    j = judgements.get((metric, str(p)))
                    if j is not None:
                        scores[str(p)] = (f"judge {j['score']}/10" if j.get("score") is not None
                                          else f"judge unscored ({j.get('unscored') or '?'})")
            parts.append(self._id_list(f"{run.name} — answer ({len(papers)})", papers,
                                       gold_all, "a ground-truth id", scores,
                                       data="answer"))
            if run.mode == "path":
                j = judgements.get(("path_rationality_llm", sid))
                if j is not None:
                    score = (f"{j['score']}/10" if j.get("score") is not None else
                             f"unscored ({j.get('unscored') or '?'})")
                    parts.append(f'<p class="legend-line"><b>Judge (path rationality):</b> '
                                 f'{e(score)} — {e(j.get("reasoning") or "")}</p>')
        info = (record or {}).get("info")
        if isinstance(info, dict):
            bits = []
            if info.get("queries"):
                bits.append("queries: " + " | ".join(map(str, info["queries"])))
            if info.get("stopped"):
                bits.append(f"stopped: {info['stopped']}")
            if info.get("fallback"):
                bits.append(f"fallback: {info['fallback']}")
            if bits:
                parts.append(f'<p class="muted">{e("; ".join(bits))}</p>')
        return '<div class="run-block">' + "".join(parts) + "</div>"

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


__all__ = ["SciNetSection", "DISPLAY", "KEYS", "LLM_KEYS"]
