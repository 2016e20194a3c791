"""The DeepSynth-Eval report section's per-task drill-down (a mixin of `section.
DeepSynthSection`): per task, each run's task metrics, the agent's tool trajectory, the group
scores and the judge's label per requirement (re-scored from judged.jsonl with
`deepsynth.scores.score_task`, the function that wrote scores.jsonl), unscored reasons from
the first judge's verdicts (judge.checklist.jsonl; judge.jsonl in a run judged before the
engine judged) and the report's opening, all escaped."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.display import (COLUMNS, COUNT_KEYS, COUNTS,
                                                       EXCERPT_CHARS, LABEL_STATUS,
                                                       STATUS_NAMES, TASK_KEYS)
from scholarbench.leakage.marks import findings_html
from scholarbench.report.htmlkit import Page, drilldown_ids, e, sample_metric_table
from scholarbench.report.sections.base import ReportRun
from scholarbench.report.trajectory import trajectories_html
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.benchmarks.deepsynth.judge_record import (FILE, checklist_entry,
                                                            first_judge_reasons)
from scholarbench.benchmarks.deepsynth.loader import load_tasks
from scholarbench.benchmarks.deepsynth.scores import score_task, subgroup_statuses


class DeepSynthDrilldown:
    def _judged(self, run: ReportRun, page: Page) -> dict[str, Any]:
        """task id → (Task from judged.jsonl, its TaskScore); {} when unreadable."""
        key = ("deepsynth-judged", str(run.run_dir))
        if key not in page.cache:
            variant = run.raw_summary.get("variant") or "paper"
            try:
                tasks = load_tasks(run.run_dir / "judged.jsonl", require_prompts=False)
                page.cache[key] = {str(t.task_id): (t, score_task(t, variant)) for t in tasks}
            except Exception:   # an older or partial run: the drill-down shows the scores only
                page.cache[key] = {}
        return page.cache[key]

    def _read(self, run: ReportRun, name: str, id_key: str = "task_id") -> dict[str, Any]:
        return {str(r.get(id_key)): r for r in read_jsonl_tolerant(run.run_dir / name)}

    def _reasons(self, run: ReportRun) -> dict[str, dict[tuple[int, int], list[Any]]]:
        """task id → (group, sub-group) → unscored reason per requirement."""
        if checklist_entry(run.manifest) is not None:
            return first_judge_reasons(run.manifest, read_jsonl_tolerant(run.run_dir / FILE))
        return {sid: {(sub.get("g"), sub.get("s")): sub.get("reasons") or []
                      for sub in line.get("subgroups") or []}
                for sid, line in self._read(run, "judge.jsonl").items()}

    def _drilldown(self, runs: Sequence[ReportRun], page: Page) -> str:
        rows, ids, cut = drilldown_ids(runs, page, "tasks")
        out = [cut] if cut else []
        judged = {r.run_dir: self._judged(r, page) for r in runs}
        reasons = {r.run_dir: self._reasons(r) for r in runs}
        generated = {r.run_dir: self._read(r, "generate.jsonl") for r in runs}
        metrics = ([COLUMNS[k] for k in (*TASK_KEYS, "task_precision")]
                   + [COUNTS[k] for k in COUNT_KEYS])
        blocks: list[str] = []
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
                    body.append(self._labels(r.name, entry[0], reasons[r.run_dir].get(sid)))
                body.append(findings_html(rows[r.run_dir].get(sid)))     # docs/leakage.md
                body.append(self._excerpt(r.name, generated[r.run_dir].get(sid)))
            prompt = " ".join((getattr(task, "general_prompt", "") or "").split())
            bits = (f'<span class="sbits">{e(prompt[:200] + ("…" if len(prompt) > 200 else ""))}'
                    "</span>" if prompt else "")
            open_attr = " open" if i == 0 else ""
            blocks.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                          f'<span class="sid">task {e(sid)}</span> <span class="stitle">'
                          f'{e(heading)}</span>{bits}</summary><div class="sample-body">'
                          f'{"".join(body)}</div></details>')
        return page.drilldown(out, blocks, ids, "tasks")

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
    def _labels(name: str, task: Any, reasons: dict[tuple[int, int], list[Any]] | None
                ) -> str:
        reasons = reasons or {}
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
