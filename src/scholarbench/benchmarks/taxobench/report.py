"""TaxoBench in the report: the paper's table layouts, Figs. 3–5 with our runs, the per-sample
drill-down with expert vs model taxonomies (Figs. 9–10), run metadata.

Runs scored with the LLM judge add Table 7's layout (LLM-as-Judge, both modes; runs of the mode
without a judge show "—" and a "not judged" note), the judge columns and the judge's per-sample
scores and reasoning (judge.judge.jsonl, an older run's judge.jsonl; escaped) in the drill-down
beside each taxonomy comparison, a per-sample distribution of the judge's average, and the
judge's model, prompt version, token usage and unscored counts in the run metadata.

Figures (each drawn from our runs' summary means and scores.jsonl, with the paper's published
agents beside them where the paper reports the same quantities):

- ARI vs ARI∩ per agent, Deep Research mode (Fig. 3): the gap is the cost of retrieval.
- Retrieval F1 vs Sem-Path, Deep Research mode (Fig. 4), with Spearman's ρ (scipy.stats.spearmanr)
  over the agents shown (published and ours; the paper's 7 agents alone give ρ = 0.89) and,
  in a second panel, over our per-sample values.
- Homogeneity vs completeness (Fig. 5): points under y = x over-segment.
- Per-sample score distributions of the mode's main metrics.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.taxobench.judge import DIMENSIONS, JUDGE_KEYS
from scholarbench.benchmarks.taxobench.judge_records import judge_records
from scholarbench.benchmarks.taxobench.measures import BY_KEY, MEASURES
from scholarbench.core.display import best_directions
from scholarbench.core.measure import Measure
from scholarbench.report import svg
from scholarbench.report.trajectory import trajectories_html
from scholarbench.leakage.marks import LeakMarks, badge_html, findings_html
from scholarbench.report.htmlkit import (Page, drilldown_ids, e, metadata_html,
                                        sample_metric_table, table_html)
from scholarbench.benchmarks.taxobench.published import BOTTOM_UP, DEEP_RESEARCH, published_rows
from scholarbench.benchmarks.taxobench.runner import load_generated
from scholarbench.report.sections.base import (ReportRun, ReportSection,
                                               read_json_object, register_section, strip_group)
from scholarbench.benchmarks.taxobench.tables import (LAYOUTS, MODE_TITLES, MODES, load_run,
                                                      taxobench_footnote, taxobench_groups,
                                                      to_csv)
from scholarbench.data.taxobench import load_instances
from scholarbench.files import sha256_file
from scholarbench.report.tables import TableGroup
from scholarbench.report.treeview import compare_trees, render_comparison, similarity_for

# The judge's four dimensions as the rubric names them (appendix E.3), in Table 7's order.
JUDGE_DIMENSIONS = {"judge_coverage": "Semantic coverage & recall",
                    "judge_organization": "Sibling organization (MECE)",
                    "judge_logic": "Hierarchical consistency (logic)",
                    "judge_topology": "Structural topology"}
DISTRIBUTIONS = {DEEP_RESEARCH: ("recall", "precision", "f1", "ari", "ari_cap", "sem_path",
                                 "us_nted", "soft_f1"),
                 BOTTOM_UP: ("ari", "homogeneity", "completeness", "v_measure", "us_nted",
                             "sem_path", "soft_f1")}
SUMMARY_KEYS = {DEEP_RESEARCH: ("f1", "ari", "sem_path"), BOTTOM_UP: ("ari", "v_measure",
                                                                       "sem_path")}


def _published_values(table: int, mode: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for row in published_rows(table, mode):
        out.setdefault(row.system, {}).update(row.values)
    return out


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float] | None:
    if len(xs) < 3:
        return None
    from scipy.stats import spearmanr
    result = spearmanr(xs, ys)
    rho, p = float(result.statistic), float(result.pvalue)
    if not (math.isfinite(rho) and math.isfinite(p)):
        return None
    return rho, p


def _rho_text(stat: tuple[float, float] | None, n: int, what: str) -> str:
    if stat is None:
        return f"Spearman ρ undefined ({n} {what}; needs ≥ 3 with varying values)"
    return f"Spearman ρ = {stat[0]:.2f} (p = {stat[1]:.3f}, n = {n} {what})"


@register_section
class TaxoBenchSection(ReportSection):
    benchmark = "taxobench"
    title = "TaxoBench"
    order = 10
    modes = MODES
    mode_titles = MODE_TITLES

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        summary = load_run(run_dir)
        raw = read_json_object(run_dir / "summary.json", run_dir)
        return ReportRun(run_dir, self.benchmark, summary.mode, summary, manifest, raw)

    def metrics(self, mode: str) -> list[Measure]:
        """The mode's table columns, the other metrics, then the judge's (present only in
        judged runs; `compare` keeps the keys both runs have)."""
        first = [k for layout in LAYOUTS.get(mode, ()) for k in layout.keys]
        keys = list(dict.fromkeys(first + [m.key for m in MEASURES] + list(JUDGE_KEYS)))
        return [BY_KEY[k] for k in keys]

    def drilldown_metrics(self, mode: str) -> list[Measure]:
        """The mode's table columns, homogeneity and completeness (Bottom-Up's retrieval
        and ∩ metrics are trivially perfect or equal to the global ones: left out)."""
        keys = [k for layout in LAYOUTS.get(mode, ()) for k in layout.keys]
        return [BY_KEY[k] for k in dict.fromkeys(keys + ["homogeneity", "completeness"])]

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        return taxobench_groups([r.summary for r in runs], published)

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        return [taxobench_footnote([r.summary for r in runs])] if published and runs else []

    def csv(self, runs: Sequence[ReportRun]) -> str:
        return to_csv([r.summary for r in runs])

    def run_metadata(self, run: ReportRun) -> str:
        """The generic metadata plus, for a judged run, the judge's model, prompt version, token
        usage (manifest llm_usage.judge) and how many samples it scored."""
        return metadata_html(run, _judge_facts(run))

    # ------------------------------------------------------------------------------- HTML

    def html(self, runs: Sequence[ReportRun], page: Page) -> str:
        out = [page.heading(2, self.title)]
        directions = best_directions(BY_KEY.values())
        for group in self.groups(runs, page.published):
            mode_runs = [r for r in runs if r.mode == group.mode]
            out.append(f'<section class="mode" data-benchmark="taxobench" '
                       f'data-mode="{e(group.mode)}">')
            out.append(page.heading(3, group.title))
            out.append(page.heading(4, "Leaderboard", toc=False))
            out.extend(table_html(t, group.title, directions) for t in group.tables)
            if page.published:
                note = taxobench_footnote([r.summary for r in mode_runs])
                out.append(f'<p class="footnote">{e(note)}</p>')
            out.append(page.heading(4, f"Figures — {MODE_TITLES[group.mode]}", toc=False))
            out.append(self._figures(group.mode, mode_runs, page))
            out.append(page.heading(4, f"Per-sample drill-down — {MODE_TITLES[group.mode]}"))
            out.append(self._drilldown(group.mode, mode_runs, page))
            out.append("</section>")
        return "\n".join(out)

    # ---------------------------------------------------------------------------- figures

    def _figures(self, mode: str, runs: Sequence[ReportRun], page: Page) -> str:
        parts = []
        colours = {r.run_dir: svg.colour(i) for i, r in enumerate(runs)}
        if mode == DEEP_RESEARCH:
            parts.append(self._fig_ari_gap(runs, page))
            parts.append(self._fig_f1_sem_path(runs, colours, page))
        parts.append(self._fig_hom_comp(mode, runs, colours, page))
        parts.append(self._fig_distributions(mode, runs, colours, page))
        return '<div class="figures">' + "".join(parts) + "</div>"

    def _fig_ari_gap(self, runs: Sequence[ReportRun], page: Page) -> str:
        cats = [svg.BarCategory(r.name) for r in runs]
        ari = [r.summary.metrics["ari"].mean for r in runs]
        cap = [r.summary.metrics["ari_cap"].mean for r in runs]
        if page.published:
            for system, values in _published_values(3, DEEP_RESEARCH).items():
                cats.append(svg.BarCategory(system, published=True))
                ari.append(values["ari"])
                cap.append(values["ari_cap"])
        chart = svg.grouped_bars(cats, [svg.BarSeries("ARI (global)", ari, svg.PALETTE[0]),
                                        svg.BarSeries("ARI∩ (retrieved subset)", cap,
                                                      svg.PALETTE[1])],
                                 y_label="adjusted Rand index", title="Global vs retrieved-"
                                 "subset ARI", kind="ari-gap")
        return page.figure(chart, "Global ARI (every expert paper; unretrieved ones get the label "
                           "⊥) against ARI∩ (only the expert papers the agent retrieved), per "
                           "agent, as in TaxoBench Fig. 3"
                           + (" — hatched bars are the paper's published agents (Table 3)."
                              if page.published else "."))

    def _fig_f1_sem_path(self, runs: Sequence[ReportRun], colours: dict, page: Page) -> str:
        agents: list[svg.Point] = []
        for r in runs:
            f1, sp = r.summary.metrics["f1"].mean, r.summary.metrics["sem_path"].mean
            if f1 is not None and sp is not None:
                agents.append(svg.Point(f1, sp, r.name, colours[r.run_dir],
                                        tooltip=f"{r.name}: F1 {f1:.2%}, Sem-Path {sp:.2%}"))
        if page.published:
            f1s = _published_values(2, DEEP_RESEARCH)
            sps = _published_values(3, DEEP_RESEARCH)
            for system in f1s:
                f1, sp = f1s[system]["f1"], sps[system]["sem_path"]
                agents.append(svg.Point(f1, sp, system, published=True,
                                        tooltip=f"{system} (published): F1 {f1:.2%}, "
                                                f"Sem-Path {sp:.2%}"))
        rho_agents = _spearman([p.x for p in agents], [p.y for p in agents])
        paper = [p for p in agents if p.published]
        rho_paper = _spearman([p.x for p in paper], [p.y for p in paper])
        left = svg.scatter(agents, x_label="retrieval F1", y_label="Sem-Path",
                           title="Agents (means)", x_range=(0.0, None), y_range=(0.0, None),
                           note=_rho_text(rho_agents, len(agents), "agents"),
                           kind="f1-sem-path", width=400)
        samples: list[svg.Point] = []
        n_dropped = 0
        for r in runs:
            for sid, v in r.sample_values(("f1", "sem_path")).items():
                if v["f1"] is None or v["sem_path"] is None:
                    n_dropped += 1
                    continue
                samples.append(svg.Point(v["f1"], v["sem_path"], "", colours[r.run_dir],
                                         tooltip=f"{r.name} · sample {sid}: F1 {v['f1']:.2%}, "
                                                 f"Sem-Path {v['sem_path']:.2%}",
                                         data={"sample": sid}))
        rho_samples = _spearman([p.x for p in samples], [p.y for p in samples])
        right = svg.scatter(samples, x_label="retrieval F1", y_label="Sem-Path",
                            title="Our samples", x_range=(0.0, None), y_range=(0.0, None),
                            note=_rho_text(rho_samples, len(samples), "samples"),
                            legend=[(r.name, colours[r.run_dir], "filled") for r in runs],
                            kind="f1-sem-path-samples", width=400)
        caption = ("Retrieval F1 against Sem-Path in Deep Research mode (TaxoBench Fig. 4). Left: "
                   "one point per agent (" + ("hollow: the paper's published agents, Tables 2–3; "
                                             if page.published else "")
                   + "filled: ours); right: our per-sample values"
                   + (f" ({n_dropped} samples with an undefined Sem-Path left out)"
                      if n_dropped else "") + ". ρ is scipy.stats.spearmanr, two-sided p"
                   + (f"; the paper's {len(paper)} agents alone: "
                      + _rho_text(rho_paper, len(paper), "agents")
                      + " (the paper reports ρ = 0.89, p = 0.007)" if paper else "") + ".")
        return page.figures([(left, "(a) agents"), (right, "(b) samples")], caption)

    def _fig_hom_comp(self, mode: str, runs: Sequence[ReportRun], colours: dict,
                      page: Page) -> str:
        points: list[svg.Point] = []
        for r in runs:
            for sid, v in r.sample_values(("homogeneity", "completeness")).items():
                if v["homogeneity"] is not None and v["completeness"] is not None:
                    points.append(svg.Point(v["homogeneity"], v["completeness"], "",
                                            colours[r.run_dir], small=True,
                                            tooltip=f"{r.name} · sample {sid}",
                                            data={"sample": sid}))
            h, c = r.summary.metrics["homogeneity"].mean, r.summary.metrics["completeness"].mean
            if h is not None and c is not None:
                points.append(svg.Point(h, c, r.name, colours[r.run_dir],
                                        tooltip=f"{r.name}: homogeneity {h:.2%}, "
                                                f"completeness {c:.2%}"))
        published = page.published and mode == BOTTOM_UP
        if published:
            for system, values in _published_values(4, BOTTOM_UP).items():
                points.append(svg.Point(values["homogeneity"], values["completeness"], system,
                                        published=True, tooltip=f"{system} (published)"))
        chart = svg.scatter(points, x_label="homogeneity", y_label="completeness",
                            title="Homogeneity vs completeness", diagonal=True,
                            legend=[(r.name, colours[r.run_dir], "filled") for r in runs]
                            + ([("published", svg.PUBLISHED_COLOUR, "hollow")]
                               if published else []),
                            kind="hom-comp", width=520, height=400, clamp=(0.0, 1.0))
        return page.figure(chart, "Homogeneity against completeness (TaxoBench Fig. 5): large "
                           "points are run means, small ones samples"
                           + ("; hollow points the paper's published models (Table 4)"
                              if published else "")
                           + ". Below the dashed line y = x the model over-segments: its "
                           "categories are purer than the expert's but split them.")

    def _fig_distributions(self, mode: str, runs: Sequence[ReportRun], colours: dict,
                           page: Page) -> str:
        panels = []
        keys = DISTRIBUTIONS[mode] + (("judge_avg",) if any(r.summary.judged for r in runs)
                                      else ())
        for key in keys:
            d = BY_KEY[key]
            groups = []
            for r in runs:
                values = r.sample_values((key,))
                groups.append(strip_group(r, key, colours[r.run_dir], values))
            chart = svg.box_strip(groups, title=d.header(), y_percent=d.percent,
                                  clamp=d.bounds, kind=f"dist-{key}")
            panels.append((chart, key))
        return page.figures(panels, "Per-sample score distributions: box = quartiles and "
                            "median, whiskers = range, dots = samples, diamond = mean; "
                            "undefined values are counted under each run, not drawn"
                            + ("; Avg. is the LLM judge's mean of its four 1–5 scores (a run "
                               "without a judge has none)" if "judge_avg" in keys else "")
                            + ".")

    # -------------------------------------------------------------------------- drill-down

    def _gold(self, run: ReportRun, page: Page) -> tuple[dict[str, Any], str | None]:
        """Gold tasks by id for the run, and a note when they cannot be shown as scored."""
        data = run.manifest.get("data") or {}
        path = data.get("path") if isinstance(data, dict) else None
        if not path:
            return {}, "the manifest names no gold file"
        key = ("taxobench-gold", path)
        if key not in page.cache:
            gold_path = Path(path)
            if not gold_path.is_file():
                page.cache[key] = ({}, f"the gold file {path} is gone")
            else:
                try:
                    note = None
                    if data.get("sha256") and sha256_file(gold_path) != data["sha256"]:
                        note = (f"the gold file {path} changed since the run (sha256 differs); "
                                "trees shown from the current file")
                    page.cache[key] = ({t.id: t for t in load_instances(gold_path)}, note)
                except Exception as exc:  # a report must not die on one unreadable file
                    page.cache[key] = ({}, f"the gold file {path} cannot be read ({exc})")
        return page.cache[key]

    def _drilldown(self, mode: str, runs: Sequence[ReportRun], page: Page) -> str:
        metrics = self.drilldown_metrics(mode)
        if any(r.summary.judged for r in runs):
            metrics += [BY_KEY[k] for k in JUDGE_KEYS]
        rows, ids, cut = drilldown_ids(runs, page)
        golds: dict[Path, dict[str, Any]] = {}
        notes = []
        preds: dict[Path, dict[str, Any]] = {}
        judgements: dict[Path, dict[str, dict[str, Any]]] = {}
        sims = {}
        for r in runs:
            g, note = self._gold(r, page)
            golds[r.run_dir] = g
            if note:
                notes.append(f"{r.name}: {note}")
            try:
                preds[r.run_dir] = load_generated(r.run_dir)
            except Exception as exc:
                preds[r.run_dir] = {}
                notes.append(f"{r.name}: generate.jsonl cannot be read ({exc})")
            if r.summary.judged:
                judged, note = judge_records(r)
                judgements[r.run_dir] = judged
                if note:
                    notes.append(f"{r.name}: {note}")
            labels = [n.name for sid in ids if sid in g for n in g[sid].gold.walk()]
            labels += [n.name for p in preds[r.run_dir].values()
                       if p is not None and p.taxonomy is not None for n in p.taxonomy.walk()]
            sims[r.run_dir] = similarity_for(labels, r.manifest.get("embedder"), page.embedder)
        out = []
        if notes:
            out.append('<ul class="notes">' + "".join(f"<li>{e(n)}</li>" for n in notes)
                       + "</ul>")
        if cut:
            out.append(cut)
        summary_keys = SUMMARY_KEYS[mode]
        blocks: list[str] = []
        for i, sid in enumerate(ids):
            task = next((golds[r.run_dir][sid] for r in runs if sid in golds[r.run_dir]), None)
            heading = task.survey if task is not None else ""
            bits = []
            for r in runs:
                row = rows[r.run_dir].get(sid, {})
                keys = summary_keys + (("judge_avg",) if r.summary.judged else ())
                vals = ", ".join(f"{'Judge ' if k == 'judge_avg' else ''}{BY_KEY[k].label} "
                                 f"{BY_KEY[k].format(_number(row.get(k)))}" for k in keys)
                bits.append(f"{r.name}: {vals}")
            body = [sample_metric_table([(r.name, rows[r.run_dir].get(sid, {})) for r in runs],
                                        metrics)]
            badges = "".join(badge_html(rows[r.run_dir].get(sid)) for r in runs)
            body.append(trajectories_html(runs, sid))
            judge_html = {r.run_dir: _judge_html(r, judgements.get(r.run_dir), sid)
                          for r in runs if r.summary.judged and sid in rows[r.run_dir]}
            if task is None:
                body.append('<p class="muted">No gold taxonomy for this sample (see the notes '
                            "above).</p>")
                body.extend(judge_html.values())
            else:
                for j, r in enumerate(runs):
                    run_task = golds[r.run_dir].get(sid)
                    if sid not in rows[r.run_dir]:
                        continue
                    if run_task is None:
                        body.append(judge_html.get(r.run_dir, ""))
                        continue
                    pred = preds[r.run_dir].get(sid)
                    cmp = compare_trees(run_task.gold,
                                        pred.taxonomy if pred is not None else None,
                                        sims[r.run_dir])
                    row = rows[r.run_dir].get(sid) or {}
                    tree = render_comparison(cmp, model_title=f"Model taxonomy — {r.name}",
                                             papers=page.tree_papers,
                                             leaked=LeakMarks(row).by_title())
                    open_attr = " open" if i == 0 and j == 0 else ""
                    body.append(f'<details class="tree-details"{open_attr}><summary>Expert vs '
                                f"{e(r.name)} taxonomy{badge_html(row)}</summary>"
                                f"{findings_html(row, run_task.survey)}{tree}"
                                f"{judge_html.get(r.run_dir, '')}</details>")
            open_attr = " open" if i == 0 else ""
            blocks.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                          f'<span class="sid">{e(sid)}</span> <span class="stitle">{e(heading)}'
                          f'</span>{badges}<span class="sbits">{e(" · ".join(bits))}</span>'
                          "</summary>"
                          f'<div class="sample-body">{"".join(body)}</div></details>')
        return page.drilldown(out, blocks, ids, "samples")


# ------------------------------------------------------------------------------------ the judge

def _number(value: Any) -> float | None:
    return (float(value) if isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) else None)


def _judge_html(run: ReportRun, records: dict[str, dict[str, Any]] | None, sid: str) -> str:
    """One run's judgement of one sample: the four scores with the judge's reasoning, the
    average; or why there are none (unscored with the reason, or nothing to judge)."""
    judge = run.summary.judge
    who = judge.label if judge is not None else "judge not recorded"
    head = (f'<div class="judge" data-run="{e(run.run_dir)}" data-sample="{e(sid)}">'
            f"<h5>LLM judge — {e(run.name)} <span class=\"muted\">({e(who)})</span></h5>")
    record = (records or {}).get(sid)
    if record is None:
        return head + '<p class="muted">No judge record for this sample.</p></div>'
    if not record.get("judged"):
        return (head + '<p class="muted judge-none">Not sent to the judge: no well-formed '
                "prediction (missing or malformed).</p></div>")
    if record.get("unscored"):
        attempts = record.get("attempts")
        return (head + '<p class="judge-unscored">Unscored'
                + (f" ({e(attempts)} call{'' if attempts == 1 else 's'})"
                   if isinstance(attempts, int) else "")
                + f": {e(record['unscored'])}. Excluded from the means.</p></div>")
    scores = record.get("scores") if isinstance(record.get("scores"), dict) else {}
    reasoning = record.get("reasoning") if isinstance(record.get("reasoning"), dict) else {}
    rows = []
    for reply_key, key, _, _ in DIMENSIONS:
        value = _number(scores.get(key))
        d = BY_KEY[key]
        text = reasoning.get(reply_key)
        rows.append(f'<tr data-key="{e(key)}"><th>{e(d.label)} — {e(JUDGE_DIMENSIONS[key])}</th>'
                    f'<td class="score" data-value="{"" if value is None else repr(value)}">'
                    f"{e('—' if value is None else f'{value:g}')}</td>"
                    f'<td class="reasoning">{e(text) if isinstance(text, str) else ""}</td></tr>')
    avg = _number(record.get("judge_avg"))
    rows.append(f'<tr data-key="judge_avg"><th>{e(BY_KEY["judge_avg"].label)} — mean of the '
                f'four</th><td class="score" data-value="{"" if avg is None else repr(avg)}">'
                f'{e(BY_KEY["judge_avg"].format(avg))}</td><td class="reasoning"></td></tr>')
    return (head + '<table class="judge-scores"><thead><tr><th>dimension</th><th>score '
            "(1–5)</th><th>the judge's reasoning</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div>")


def _judge_facts(run: ReportRun) -> list[tuple[str, str]]:
    """Metadata rows about the judge (already HTML)."""
    summary = run.summary
    if not summary.judged:
        return []
    facts = []
    judge = summary.judge
    raw_judge = run.raw_summary.get("judge") if isinstance(run.raw_summary.get("judge"),
                                                           dict) else {}
    if judge is not None:
        bits = [e(judge.model_name), f"prompt {e(judge.prompt or 'not recorded')}"]
        if isinstance(raw_judge.get("prompt_sha256"), str):
            bits.append(f"prompt sha256 <code>{e(raw_judge['prompt_sha256'][:16])}…</code>")
        if judge.model_id and judge.model_id != judge.model:
            bits.append(f"model id <code>{e(judge.model_id)}</code>")
        facts.append(("LLM judge", " · ".join(bits)))
    usage = run.manifest.get("llm_usage")
    usage = usage.get("judge") if isinstance(usage, dict) else None
    if isinstance(usage, dict):
        def count(key: str) -> str:
            value = usage.get(key)
            return f"{value:,}" if isinstance(value, int) else "?"
        text = (f"{count('calls')} calls ({count('cache_hits')} answered from the cache, "
                f"{count('failures')} failed), {count('prompt_tokens')} prompt + "
                f"{count('completion_tokens')} completion tokens")
        cost = usage.get("cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            text += f", ${cost:.4f}"
        facts.append(("judge usage", e(text + " (every scoring of this run directory)")))
    avg = summary.metrics["judge_avg"]
    no_prediction = avg.n_null - avg.n_unscored
    facts.append(("judge samples", e(f"{avg.n} of {summary.n_samples} scored; {avg.n_unscored} "
                                     f"unscored (unusable reply); {no_prediction} without a "
                                     "prediction to judge — both excluded from the means")))
    return facts
