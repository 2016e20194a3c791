"""SciNet's per-task drill-down in the HTML report: per task, the query and its facts, each
run's metrics and counts, the ground-truth id lists, each run's answer (items that are literally
a ground-truth id marked; the scorer's own hit counts shown, since it also resolves other
spellings and titles), the judge's scores and reasons, and the agent's search trace — every
text escaped."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet.judge_records import judgements
from scholarbench.benchmarks.scinet.report_display import (COLUMNS, COUNT_KEYS, COUNTS,
                                                          KEYS, LIST_LIMIT, LLM_KEYS, judged)
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.report.trajectory import trajectories_html
from scholarbench.report.htmlkit import Page, drilldown_ids, e, sample_metric_table
from scholarbench.report.sections.base import ReportRun


class DrillDown:
    """The drill-down part of `SciNetSection` (a mixin: it reads the run's files)."""

    @staticmethod
    def _read(run: ReportRun, name: str, page: Page) -> dict[str, dict[str, Any]]:
        key = ("scinet-file", str(run.run_dir), name)
        if key not in page.cache:
            page.cache[key] = {str(r.get("task_id")): r for r in
                               read_jsonl_tolerant(run.run_dir / name)
                               if isinstance(r, dict)}
        return page.cache[key]

    @staticmethod
    def _judgements(run: ReportRun, page: Page) -> dict[tuple[str, str], dict[str, Any]]:
        """(metric, subject) → the run's judgement (`judge_records.judgements`)."""
        key = ("scinet-judge", str(run.run_dir))
        if key not in page.cache:
            kinds = {str(t.get("task_id")): str(t.get("kind"))
                     for t in DrillDown._read(run, "tasks.jsonl", page).values()}
            page.cache[key] = judgements(run.run_dir, run.manifest, kinds)
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
        rows, ids, cut = drilldown_ids(runs, page, "tasks")
        out = [cut] if cut else []
        tasks = {r.run_dir: self._read(r, "tasks.jsonl", page) for r in runs}
        generated = {r.run_dir: self._read(r, "generate.jsonl", page) for r in runs}
        family = runs[0].mode if runs else ""
        metrics = ([COLUMNS[k] for k in KEYS.get(family, ())]
                   + [COLUMNS[k] for k in LLM_KEYS.get(family, ()) if any(judged(r)
                                                                           for r in runs)]
                   + [COUNTS[k] for k in COUNT_KEYS])
        blocks: list[str] = []
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
            body.append(trajectories_html(runs, sid))
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
            blocks.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                          f'<span class="sid">{e(sid)}</span> <span class="stitle">'
                          f'{e(query[:160] + ("…" if len(query) > 160 else ""))}</span></summary>'
                          f'<div class="sample-body">{"".join(body)}</div></details>')
        return page.drilldown(out, blocks, ids, "tasks")

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
        if run.mode == "review":
            parts.append(self._review_block(run, sid, record, page))
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

    def _review_block(self, run: ReportRun, sid: str, record: dict[str, Any] | None,
                      page: Page) -> str:
        """The review (escaped, first 20,000 characters) and the judge's scores and reasons."""
        review = (record or {}).get("review")
        out = []
        if isinstance(review, str):
            cut = " (first 20,000 characters)" if len(review) > 20_000 else ""
            out.append(f'<details class="excerpt" data-list="review"><summary>review, '
                       f'{len(review):,} characters{cut}</summary><pre>{e(review[:20_000])}'
                       "</pre></details>")
        j = self._judgements(run, page).get(("review", sid))
        if j is not None:
            score = (", ".join(f"{k} {v}" for k, v in j["score"].items())
                     if isinstance(j.get("score"), dict)
                     else f"unscored ({j.get('unscored') or '?'})")
            out.append(f'<p class="legend-line"><b>Judge:</b> {e(score)} — '
                       f'{e(j.get("reasoning") or "")}</p>')
        return "".join(out)
