"""ResearchArena in the report: the paper's table layouts per task (Tables 1–3) beside its
published baselines, every measure we record, Recall@K curves, score distributions, and a
per-sample drill-down (top-ranked papers marked relevant or not; ground-truth vs agent mind-maps).

Means are over *scored* tasks (unscorable ones — no searchable gold, no mind-map — are excluded
and counted in the notes), exactly as summary.json holds them. The Recall@K curve is recomputed
from generate.jsonl and the qrels in tasks.jsonl with the run's qrels variant: relevant = grade
≥ 1, a repeated paper keeps its first rank, a missing or malformed output retrieves nothing; at
K = 10 and 100 it equals the R@10 / R@100 means (tested).
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Sequence

from scholarbench.errors import DataError
from scholarbench.report import svg
from scholarbench.report.trajectory import trajectories_html
from scholarbench.leakage.marks import LeakMarks, badge_html, findings_html, tag_html
from scholarbench.report.htmlkit import Page, drilldown_ids, e, sample_metric_table, table_html
from scholarbench.benchmarks.researcharena.measures.declared import (BY_KEY, ORGANISATION_KEYS,
                                                                     RANKING_KEYS)
from scholarbench.core.display import best_directions
from scholarbench.core.measure import Measure
from scholarbench.benchmarks.researcharena.published import (PAPER_CITATION, PAPER_N, TABLE_KEYS,
                                                             published_rows)
from scholarbench.benchmarks.researcharena.records import mindmap_from_json, read_tasks
from scholarbench.report.sections.base import (ReportRun, ReportSection,
                                               metric_summaries, plural, read_json_object,
                                               register_section, strip_group)
from scholarbench.report.tables import Row, RunSummary, Table, TableGroup
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.report.corpus_lookup import corpus_dir_of, papers_by_id
from scholarbench.report.treeview import compare_trees, render_comparison, similarity_for
from scholarbench.text.escape import csv_row

TASKS = ("discovery", "selection", "organisation")
TASK_TITLES = {"discovery": "Information discovery", "selection": "Information selection",
               "organisation": "Information organisation"}
RANKING, ORGANISATION = RANKING_KEYS, ORGANISATION_KEYS
PAPER_TABLE = {"discovery": 1, "selection": 2, "organisation": 3}
# Published columns measured with another tool than ours: the cell is marked and the table says
# why (docs/researcharena.md, "Organisation"). The examples are spaCy en_core_web_sm 3.8.0's.
NOT_COMPARABLE_MARK = "†"
NOT_COMPARABLE = {
    "heading_entity_recall": "Heading Entity Recall: the paper tagged entities with FLAIR, we "
    "with spaCy en_core_web_sm, which tags generic headings as ORG (\"Challenges and Future "
    "Directions\", \"Hallucination\") and \"LLaMA\" as DATE — published values are not "
    "comparable with ours.",
}
TOP_N = 10   # ranked papers shown per sample and run


def _table_title(task: str) -> str:
    table = PAPER_TABLE[task]
    return f"Table {table} layout — {TASK_TITLES[task]}"


@register_section
class ResearchArenaSection(ReportSection):
    benchmark = "researcharena"
    title = "ResearchArena"
    order = 20
    modes = TASKS
    mode_titles = TASK_TITLES

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        path = run_dir / "summary.json"
        raw = read_json_object(path, run_dir)
        if raw.get("benchmark") != "researcharena":
            raise DataError(f"benchmark is {raw.get('benchmark')!r}, the manifest says "
                            "'researcharena'", file=str(path), field="benchmark")
        task = raw.get("task")
        if task not in TASKS:
            raise DataError(f"task {task!r} is not one of {', '.join(TASKS)}", file=str(path),
                            field="task")
        if manifest.get("mode") not in (None, task):
            raise DataError(f"mode {manifest['mode']!r} differs from summary.json's task "
                            f"{task!r}", file=str(run_dir / "manifest.json"), field="mode")
        counts = {}
        for key in ("n_samples", "n_scored", "n_missing", "n_malformed"):
            value = raw.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise DataError(f"expected a non-negative integer, got {value!r}",
                                file=str(path), field=key)
            counts[key] = value
        keys = ORGANISATION if task == "organisation" else RANKING
        metrics = metric_summaries(raw, keys, counts["n_scored"], path)
        agent = manifest.get("agent") or raw.get("agent") or ""
        summary = RunSummary(run_dir, task, str(agent), manifest.get("run_name")
                             or raw.get("run_name"), counts["n_samples"], counts["n_missing"],
                             counts["n_malformed"], metrics)
        return ReportRun(run_dir, self.benchmark, task, summary, manifest, raw)

    def metrics(self, mode: str) -> list[Measure]:
        if mode == "organisation":
            return [BY_KEY[k] for k in ORGANISATION]
        primary = TABLE_KEYS[PAPER_TABLE[mode]]
        return [BY_KEY[k] for k in dict.fromkeys(primary + RANKING)]

    # ------------------------------------------------------------------------------ tables

    def _notes(self, run: ReportRun) -> str | None:
        raw = run.raw_summary
        parts = []
        unscorable = raw.get("n_unscorable") or {}
        if isinstance(unscorable, dict) and sum(unscorable.values()):
            why = ", ".join(f"{n} {reason}" for reason, n in unscorable.items())
            parts.append(f"{plural(sum(unscorable.values()), 'task')} unscorable ({why}; "
                         "excluded from the means)")
        if run.summary.n_missing:
            parts.append(plural(run.summary.n_missing, "missing output") + " (scored as "
                         + ("an empty mind-map)" if run.mode == "organisation"
                            else "an empty ranking)"))
        if run.summary.n_malformed:
            parts.append(plural(run.summary.n_malformed, "malformed output") + " (scored as "
                         + ("an empty mind-map)" if run.mode == "organisation"
                            else "an empty ranking)"))
        nulls = {}
        for key, m in run.summary.metrics.items():
            if m.n_null:
                nulls.setdefault(m.n_null, []).append(key)
        for count, keys in nulls.items():
            parts.append(f"{', '.join(keys)} undefined for {count} scored tasks (excluded)")
        if raw.get("qrels") not in (None, "searchable"):
            parts.append(f"qrels: {raw['qrels']} (every reference judged, upstream's qrels)")
        return f"{run.name}: {'; '.join(parts)}" if parts else None

    def _table(self, title: str, keys: Sequence[str], runs: Sequence[ReportRun],
               published: Sequence[Any]) -> Table:
        header = ("System", "Samples") + tuple(BY_KEY[k].header() for k in keys)
        rows = [Row("ours", (r.name, f"n={r.raw_summary.get('n_scored', r.summary.n_samples)}")
                    + tuple(BY_KEY[k].format_with_interval(r.summary.metrics[k].mean,
                                                           r.interval(k)) for k in keys),
                    tuple(r.summary.metrics[k].mean for k in keys), str(r.run_dir))
                for r in runs]
        group: object = object()
        for row in published:
            if row.group != group:
                group = row.group
                rows.append(Row("separator", (f"published: {PAPER_CITATION}"
                                              + (f", {group}" if group else ""),)))
            rows.append(Row("published", (f"{row.system} (published)",
                                          f"n≤{PAPER_N[row.table]:,}")
                            + tuple(BY_KEY[k].format(row.values[k])
                                    + (NOT_COMPARABLE_MARK if k in NOT_COMPARABLE else "")
                                    for k in keys),
                            tuple(row.values[k] for k in keys)))
        notes = tuple(n for r in runs if (n := self._notes(r)))
        notes += tuple(f"{r.name}: {k}: {note}" for r in runs for k in keys
                       if isinstance(note := (r.raw_summary.get("measure_notes") or {}).get(k),
                                     str))
        if published:
            notes += tuple(f"{NOT_COMPARABLE_MARK} {NOT_COMPARABLE[k]}" for k in keys
                           if k in NOT_COMPARABLE)
        return Table(title, header, tuple(rows), notes, tuple(keys))

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        out = []
        for task in TASKS:
            task_runs = [r for r in runs if r.mode == task]
            if not task_runs:
                continue
            table = PAPER_TABLE[task]
            keys = TABLE_KEYS[table]
            tables = [self._table(_table_title(task), keys, task_runs,
                                  published_rows(table) if published else [])]
            if task != "organisation":
                tables.append(self._table("All measures (ours)", RANKING, task_runs, []))
            out.append(TableGroup(self.mode_title(task), tuple(tables), self.benchmark, task))
        return out

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        if not published or not runs:
            return []
        return [f"Published rows: {PAPER_CITATION}, Tables 1–3, measured on the paper's "
                "12M-paper S2ORC corpus with BM25 or BGE retrieval (n: the benchmark's "
                "7,952 surveys / 1,884 mind-maps); ours on the tasks listed over our corpus, "
                "so the two are not comparable one to one (docs/researcharena.md)."]

    def csv(self, runs: Sequence[ReportRun]) -> str:
        keys = [k for k in RANKING + ORGANISATION
                if any(k in r.summary.metrics for r in runs)]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["system", "run_dir", "task", "agent", "n_samples", "n_scored",
                         "n_unscorable", "n_missing", "n_malformed"]
                        + [f"{k}{suffix}" for k in keys for suffix in ("", "_n", "_n_null")])
        for r in runs:
            raw = r.raw_summary
            unscorable = raw.get("n_unscorable") or {}
            row: list[object] = [r.name, str(r.run_dir), r.mode, r.summary.agent,
                                 r.summary.n_samples, raw.get("n_scored"),
                                 sum(unscorable.values()) if isinstance(unscorable, dict) else "",
                                 r.summary.n_missing, r.summary.n_malformed]
            for key in keys:
                m = r.summary.metrics.get(key)
                row += (["", "", ""] if m is None else
                        ["" if m.mean is None else repr(m.mean), m.n, m.n_null])
            writer.writerow(csv_row(row))
        return buffer.getvalue()

    # -------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = best_directions(BY_KEY.values())
        footnote = self.footnotes(runs, page.published)
        for group in self.groups(runs, page.published):
            task_runs = [r for r in runs if r.mode == group.mode]
            out.append(f'<section class="mode" data-benchmark="researcharena" '
                       f'data-mode="{e(group.mode)}">')
            out.append(page.heading(3, group.title))
            out.append(page.heading(4, "Leaderboard", toc=False))
            out.extend(table_html(t, group.title, directions) for t in group.tables)
            out.extend(f'<p class="footnote">{e(f)}</p>' for f in footnote)
            out.append(page.heading(4, f"Figures — {TASK_TITLES[group.mode]}", toc=False))
            out.append(self._figures(group.mode, task_runs, page))
            out.append(page.heading(4, f"Per-sample drill-down — {TASK_TITLES[group.mode]}"))
            out.append(self._drilldown(group.mode, task_runs, page))
            out.append("</section>")
        return "\n".join(out)

    def _tasks(self, run: ReportRun, page: Page) -> dict[str, Any]:
        key = ("researcharena-tasks", str(run.run_dir))
        if key not in page.cache:
            try:
                page.cache[key] = {t.id: t for t in read_tasks(run.run_dir / "tasks.jsonl")}
            except Exception:   # an older or partial run: the drill-down shows ids only
                page.cache[key] = {}
        return page.cache[key]

    def _generated(self, run: ReportRun) -> dict[str, dict[str, Any]]:
        return {str(r.get("id")): r for r in read_jsonl_tolerant(run.run_dir / "generate.jsonl")}

    def _figures(self, task: str, runs: Sequence[ReportRun], page: Page) -> str:
        colours = {r.run_dir: svg.colour(i) for i, r in enumerate(runs)}
        parts = []
        if task != "organisation":
            curves = [recall_curve(r, self._tasks(r, page), self._generated(r)) for r in runs]
            series = [svg.LineSeries(r.name, [k for k, _ in c], [v for _, v in c],
                                     colours[r.run_dir]) for r, c in zip(runs, curves) if c]
            if series:
                chart = svg.lines(series, x_label="K (rank cut-off, log scale)",
                                  y_label="mean Recall@K", title="Recall@K", log_x=True,
                                  kind="recall-at-k", width=460)
                parts.append(page.figure(chart, "Mean Recall@K over the scored tasks against "
                                         "the cut-off K, from each run's rankings and qrels "
                                         "(equal to R@10 and R@100 at K = 10, 100)."))
        panels = []
        keys = ORGANISATION if task == "organisation" else TABLE_KEYS[PAPER_TABLE[task]]
        for key in keys:
            d = BY_KEY[key]
            groups = []
            for r in runs:
                unscorable = {str(row.get("id")) for row in r.scores if row.get("unscorable")}
                values = {sid: v for sid, v in r.sample_values((key,)).items()
                          if sid not in unscorable}
                groups.append(strip_group(r, key, colours[r.run_dir], values))
            panels.append((svg.box_strip(groups, title=d.header(), y_percent=False,
                                         clamp=d.bounds, kind=f"dist-{key}"), key))
        parts.append(page.figures(panels, "Per-sample score distributions over the scored "
                                  "tasks: box = quartiles and median, whiskers = range, dots "
                                  "= tasks, diamond = mean."))
        return '<div class="figures">' + "".join(parts) + "</div>"

    def _drilldown(self, task: str, runs: Sequence[ReportRun], page: Page) -> str:
        metrics = self.metrics(task)
        rows, ids, cut = drilldown_ids(runs, page, "samples")
        out = [cut] if cut else []
        tasks: dict[str, Any] = {}
        for r in runs:
            for tid, t in self._tasks(r, page).items():
                tasks.setdefault(tid, t)
        generated = {r.run_dir: self._generated(r) for r in runs}
        titles: dict[str, dict[str, Any]] = {}
        if task != "organisation":
            for r in runs:
                wanted = []
                for sid in ids:
                    ranking = (generated[r.run_dir].get(sid) or {}).get("ranking")
                    if isinstance(ranking, list):
                        wanted += [x[0] for x in ranking[:TOP_N]
                                   if isinstance(x, list) and x and isinstance(x[0], str)]
                try:
                    titles.update(papers_by_id(corpus_dir_of(r.manifest), wanted))
                except Exception:   # an unreadable corpus: ids only
                    pass
        sims = {}
        if task == "organisation":
            for r in runs:
                labels = [n.name for t in tasks.values() if t.mindmap is not None
                          for n in t.mindmap.walk()]
                for rec in generated[r.run_dir].values():
                    labels += _mindmap_labels(rec.get("mindmap"))
                sims[r.run_dir] = similarity_for(labels, r.manifest.get("embedder"),
                                                 page.embedder)
        blocks: list[str] = []
        for i, sid in enumerate(ids):
            t = tasks.get(sid)
            heading = t.topic if t is not None else ""
            body = [sample_metric_table([(r.name, rows[r.run_dir].get(sid, {})) for r in runs],
                                        metrics)]
            badges = "".join(badge_html(rows[r.run_dir].get(sid)) for r in runs)
            body.append(trajectories_html(runs, sid))
            if t is not None and task != "organisation":
                qrels = t.qrels(runs[0].raw_summary.get("qrels") or "searchable")
                body.append(f'<p class="muted">{len(qrels)} judged references'
                            + (f"; cut-off {t.cutoff}" if t.cutoff else "")
                            + f"; {len(t.unsearchable)} references unsearchable under the "
                            "leakage rule.</p>")
                for r in runs:
                    row = rows[r.run_dir].get(sid) or {}
                    body.append(self._ranked_list(r.name, generated[r.run_dir].get(sid), qrels,
                                                  titles, LeakMarks(row)))
                    body.append(findings_html(row, t.topic))
            elif t is not None and t.mindmap is not None:
                for j, r in enumerate(runs):
                    rec = generated[r.run_dir].get(sid) or {}
                    try:
                        pred = (mindmap_from_json(rec["mindmap"]) if rec.get("mindmap")
                                else None)
                    except ValueError:
                        pred = None
                    cmp = compare_trees(t.mindmap, pred, sims[r.run_dir])
                    tree = render_comparison(cmp, model_title=f"Agent mind-map — {r.name}",
                                             expert_title="Ground-truth mind-map "
                                             f"({t.mindmap_source or 'unknown source'})",
                                             papers=False)
                    open_attr = " open" if i == 0 and j == 0 else ""
                    body.append(f'<details class="tree-details"{open_attr}><summary>Ground '
                                f"truth vs {e(r.name)} mind-map</summary>{tree}</details>")
            open_attr = " open" if i == 0 else ""
            blocks.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                          f'<span class="sid">{e(sid)}</span> <span class="stitle">{e(heading)}'
                          f'</span>{badges}</summary><div class="sample-body">{"".join(body)}'
                          "</div></details>")
        return page.drilldown(out, blocks, ids, "samples")

    def _ranked_list(self, name: str, record: dict[str, Any] | None, qrels: dict[str, int],
                     titles: dict[str, dict[str, Any]], marks: LeakMarks | None = None) -> str:
        """The ranking's top TOP_N, each paper the leakage audit counted marked with its rule
        (by its ranking entry: docs/leakage.md)."""
        ranking = (record or {}).get("ranking")
        if not isinstance(ranking, list):
            return f'<p><b>{e(name)}</b>: no ranking (missing output).</p>'
        items = []
        for entry in ranking[:TOP_N]:
            pid = entry[0] if isinstance(entry, list) and entry else entry
            grade = qrels.get(str(pid), 0)
            info = titles.get(str(pid))
            text = f"{info['title']} ({info['year']})" if info and info.get("year") else (
                info["title"] if info else "")
            cls, mark = ("rel", "✓") if grade > 0 else ("nonrel", "·")
            rule = marks.rule_for(str(pid)) if marks else None
            leak = (f' leak" data-rule="{e(rule)}' if rule else "")
            items.append(f'<li class="{cls}{leak}" title="grade {grade}">{mark} '
                         f"<code>{e(pid)}</code> {e(text)}"
                         + (tag_html(rule) if rule else "") + "</li>")
        first = next((i + 1 for i, x in enumerate(ranking)
                      if isinstance(x, list) and x and qrels.get(str(x[0]), 0) > 0), None)
        return (f'<p class="legend-line"><b>{e(name)}</b>: top {min(TOP_N, len(ranking))} of '
                f"{len(ranking)} ranked; first relevant at rank {first or '—'} "
                "(✓ = in the qrels)</p>" f'<ol class="ranked">{"".join(items)}</ol>')


def _mindmap_labels(raw: object) -> list[str]:
    out, stack = [], [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("name"), str):
                out.append(node["name"])
            children = node.get("children")
            if isinstance(children, list):
                stack.extend(children)
    return out


def recall_curve(run: ReportRun, tasks: dict[str, Any], generated: dict[str, dict[str, Any]],
                 max_k: int = 1000) -> list[tuple[int, float]]:
    """(K, mean Recall@K over the run's scored tasks) for K = 1 … the longest ranking."""
    variant = run.raw_summary.get("qrels") or "searchable"
    rows = {str(row.get("id")): row for row in run.scores if not row.get("unscorable")}
    per_task = []
    for sid, row in rows.items():
        t = tasks.get(sid)
        if t is None:
            return []
        gold = {pid for pid, grade in t.qrels(variant).items() if grade >= 1}
        if not gold:
            continue
        ranking = (generated.get(sid) or {}).get("ranking")
        ids: list[str] = []
        if isinstance(ranking, list) and not row.get("malformed") and not row.get("missing"):
            seen: set[str] = set()
            for entry in ranking:
                pid = entry[0] if isinstance(entry, list) and entry else None
                if isinstance(pid, str) and pid not in seen:
                    seen.add(pid)
                    ids.append(pid)
        hits, cumulative = 0, []
        for pid in ids[:max_k]:
            hits += pid in gold
            cumulative.append(hits / len(gold))
        per_task.append(cumulative)
    if not per_task:
        return []
    longest = max((len(c) for c in per_task), default=0)
    if longest == 0:
        return []
    out = []
    for k in range(1, longest + 1):
        total = sum((c[k - 1] if k <= len(c) else (c[-1] if c else 0.0)) for c in per_task)
        out.append((k, total / len(per_task)))
    return out
