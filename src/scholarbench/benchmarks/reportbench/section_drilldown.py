"""The ReportBench report section's per-survey drill-down (a mixin of `section.
ReportBenchSection`): per survey, each run's reference lists — the report's references matched
to the survey's bibliography, the extra ones, the bibliography's missed titles — recomputed from
generate.jsonl, the run's GT folder and corpus with the exact title match of `metrics` (the LLM
title extractor is not re-run; when that disagrees with scores.jsonl the block says so), the
statement counts, and the report's opening, all escaped. A reference the leakage audit counted
is marked in its list (docs/leakage.md), listed first, and every finding is listed under the
lists (`leakage.marks`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.ground_truth import load_ground_truth
from scholarbench.report.trajectory import trajectories_html
from scholarbench.report.htmlkit import Page, drilldown_ids, e, sample_metric_table
from scholarbench.report.sections.base import ReportRun
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.leakage.marks import LeakMarks, badge_html, findings_html, tag_html
from scholarbench.text.normalize import normalize_title
from scholarbench.references.extract import extract_references
from scholarbench.benchmarks.reportbench.metrics import distinct_references
from scholarbench.benchmarks.reportbench.tasks import load_tasks

LIST_LIMIT = 40          # titles per list in the drill-down
EXCERPT_CHARS = 2000


class ReportBenchDrilldown:
    def _context(self, run: ReportRun, page: Page) -> dict[str, Any]:
        """The run's tasks (by arxiv id), GT titles and corpus, read once per page."""
        key = ("reportbench-context", str(run.run_dir))
        if key in page.cache:
            return page.cache[key]
        ctx: dict[str, Any] = {"tasks": {}, "gt": {}, "corpus": None}
        data = run.manifest.get("data") if isinstance(run.manifest.get("data"), dict) else {}
        try:
            ctx["tasks"] = {t.arxiv_id: t for t in load_tasks(Path(data["path"]))}
        except Exception:
            pass
        try:
            ctx["gt"] = load_ground_truth(Path(data["gt_dir"]))
        except Exception:
            pass
        corpus = run.manifest.get("corpus")
        if isinstance(corpus, dict) and corpus.get("path"):
            try:
                # deferred: pulls in duckdb, pyarrow
                from scholarbench.corpus.store import Corpus
                ctx["corpus"] = Corpus.open(Path(corpus["path"]))
            except Exception:
                pass
        page.cache[key] = ctx
        return ctx

    def reference_lists(self, run: ReportRun, report: str | None, page: Page, sid: str,
                        marks: LeakMarks | None = None) -> dict[str, list[str]] | None:
        """{"matched": report titles in the GT, "extra": report titles not in it, "missed":
        GT titles no reference matched}, exact normalised-title match; None without the GT.
        With `marks`, also {"leak:matched", "leak:extra"}: per listed reference the rule the
        leakage audit counted it under, or "" (by its titles and ids)."""
        ctx = self._context(run, page)
        if sid not in ctx["gt"]:
            return None
        gt_titles = [g.title for g in ctx["gt"][sid]]
        gt = {}
        for t in gt_titles:
            gt.setdefault(normalize_title(t), t)
        gt.pop("", None)
        matched, extra, hit = [], [], set()
        rules: dict[str, list[str]] = {"leak:matched": [], "leak:extra": []}
        if isinstance(report, str) and report.strip():
            refs = extract_references(report, ctx["corpus"]).titled()
            groups = distinct_references([r.titles() for r in refs])
            shown: dict[str, str] = {}
            ids: dict[str, list[str]] = {}
            for r in refs:
                for t in r.titles():
                    shown.setdefault(normalize_title(t), t)
                    ids.setdefault(normalize_title(t), []).extend(r.ids)
            for norms in groups:
                found = [n for n in norms if n in gt]
                rule = (marks.rule_for(None, norms, [i for n in norms for i in ids.get(n, ())])
                        if marks else None) or ""
                if found:
                    matched.append(gt[found[0]])
                    hit.update(found)
                    rules["leak:matched"].append(rule)
                else:
                    extra.append(shown.get(norms[0], norms[0]))
                    rules["leak:extra"].append(rule)
        missed = [title for n, title in gt.items() if n not in hit]
        out = {"matched": matched, "missed": missed, "extra": extra}
        return {**out, **rules} if marks is not None else out

    def _drilldown(self, runs: Sequence[ReportRun], page: Page) -> str:
        rows, ids, cut = drilldown_ids(runs, page, "surveys")
        out = [cut] if cut else []
        generated = {r.run_dir: {str(g.get("id")): g for g in
                                 read_jsonl_tolerant(r.run_dir / "generate.jsonl")}
                     for r in runs}
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.reportbench.section import COLUMNS, REF_KEYS
        metrics = [COLUMNS[k] for k in REF_KEYS + ("cited_match_rate", "noncited_accuracy")]
        blocks: list[str] = []
        for i, sid in enumerate(ids):
            task = next((self._context(r, page)["tasks"].get(sid) for r in runs
                         if sid in self._context(r, page)["tasks"]), None)
            heading = task.title if task is not None else ""
            body = [sample_metric_table([(r.name, rows[r.run_dir].get(sid, {})) for r in runs],
                                        metrics)]
            badges = "".join(badge_html(rows[r.run_dir].get(sid)) for r in runs)
            body.append(trajectories_html(runs, sid))
            if task is not None:
                body.append(f'<p class="muted">arXiv {e(sid)}'
                            + (f" · cut-off {e(task.cutoff)}" if task.cutoff else "")
                            + (f" · {e(task.application_domain)}" if task.application_domain
                               else "") + "</p>")
            for r in runs:
                body.append(self._run_block(r, sid, rows[r.run_dir].get(sid) or {},
                                            generated[r.run_dir].get(sid), page))
            open_attr = " open" if i == 0 else ""
            blocks.append(f'<details class="sample" data-sample="{e(sid)}"{open_attr}><summary>'
                          f'<span class="sid">{e(sid)}</span> <span class="stitle">{e(heading)}'
                          f'</span>{badges}</summary><div class="sample-body">{"".join(body)}'
                          "</div></details>")
        return page.drilldown(out, blocks, ids, "surveys")

    def _run_block(self, run: ReportRun, sid: str, row: dict[str, Any],
                   record: dict[str, Any] | None, page: Page) -> str:
        report = (record or {}).get("report")
        parts = [f'<h5 class="run-name">{e(run.name)}</h5>']
        marks = LeakMarks(row)
        lists = self.reference_lists(run, report, page, sid, marks)
        if lists is None:
            parts.append('<p class="muted">The run\'s ground-truth folder is not readable: '
                         "reference lists not shown.</p>")
        else:
            scored = row.get("n_matched")
            note = ""
            if isinstance(scored, int) and scored != len(lists["matched"]):
                note = (f" (scored: {scored} matched — the scores used the LLM title "
                        "extractor or another match rule; the lists are the exact match "
                        "without it)")
            n_gt = len(lists["matched"]) + len(lists["missed"])
            parts.append(f'<p class="legend-line">{len(lists["matched"])} matched, '
                         f'{len(lists["missed"])} of the survey\'s {n_gt} references missed, '
                         f"{len(lists['extra'])} extra{e(note)}</p>")
            parts.append('<div class="ref-cols">')
            for key, title, cls in (("matched", "Matched (in the survey's bibliography)",
                                     "rel"), ("extra", "Extra (not in the bibliography)",
                                              "extra"),
                                    ("missed", "Missed (bibliography, not cited)", "missed")):
                items = lists[key]
                rules = lists.get(f"leak:{key}") or [""] * len(items)
                order = sorted(range(len(items)), key=lambda j: not rules[j])  # marked first
                shown = order[:LIST_LIMIT]
                more = (f'<li class="muted">… {len(items) - LIST_LIMIT} more</li>'
                        if len(items) > LIST_LIMIT else "")
                parts.append(f'<div class="ref-col {cls}" data-list="{key}"><h6>{e(title)} '
                             f"({len(items)})</h6><ul class='refs'>"
                             + "".join(f'<li class="leak" data-rule="{e(rules[j])}">'
                                       f"{e(items[j])}{tag_html(rules[j])}</li>" if rules[j]
                                       else f"<li>{e(items[j])}</li>" for j in shown)
                             + more + "</ul></div>")
            parts.append("</div>")
        task = self._context(run, page)["tasks"].get(sid)
        parts.append(findings_html(row, getattr(task, "title", None)))
        if row.get("statements") == "judged":
            parts.append(f'<p class="legend-line">Statements: {row.get("n_cited", 0)} cited '
                         f'pairs, {row.get("n_cited_matched", 0)} matched, '
                         f'{row.get("n_cited_unreachable", 0)} unreachable, '
                         f'{row.get("n_cited_unscored", 0)} unscored; '
                         f'{row.get("n_noncited", 0)} non-cited, '
                         f'{row.get("n_noncited_correct", 0)} correct, '
                         f'{row.get("n_noncited_incorrect", 0)} incorrect, '
                         f'{row.get("n_noncited_tie", 0)} ties.</p>')
        elif row.get("statements"):
            parts.append(f'<p class="muted">Statements: {e(row["statements"])}.</p>')
        if isinstance(report, str) and report.strip():
            more = (f"the first {EXCERPT_CHARS:,} of {len(report):,} characters"
                    if len(report) > EXCERPT_CHARS else f"{len(report):,} characters")
            parts.append(f'<details class="excerpt"><summary>{e(run.name)} — report '
                         f'({more})</summary><pre class="report">'
                         f"{e(report[:EXCERPT_CHARS])}</pre></details>")
        else:
            why = (record or {}).get("error") or row.get("error") or "not generated"
            parts.append(f'<p class="muted">No report ({e(why)}).</p>')
        return '<div class="run-block">' + "".join(parts) + "</div>"
