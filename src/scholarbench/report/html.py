"""`write_html_report`: one self-contained HTML file for finished runs of any benchmark.

The file needs no network and runs no script: CSS is inline, every plot is inline SVG
(`report.svg`), the drill-down opens with `<details>`. It holds, per benchmark present (sections
dispatched on manifest["benchmark"], `report.sections`): the leaderboards per mode with the
paper's published rows marked, the benchmark's figures, the per-sample drill-down (metric values,
flags, expert vs model trees), and for every run its metadata (models, judge, corpus, versions,
tokens, cost, unscored counts — whatever the manifest records). All text from runs is escaped.
"""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.status import LABELS, run_counts
from scholarbench.injection.unflagged import report_notes
from scholarbench.leakage.marks import LEAK_CSS
from scholarbench.leakage.unleaked import report_notes as leak_notes
from scholarbench.llm.secrets import redact
from scholarbench.report.htmlkit import FIND_SCRIPT, Page, e, table_html
from scholarbench.report.cost import TITLE as COST_TITLE, cost_chart, cost_table, groups_of
from scholarbench.report.epochs import epoch_groups
from scholarbench.report.judges import judge_groups
from scholarbench.report.tables import TableGroup
from scholarbench.report.sections.base import ReportRun, by_benchmark, load_report_runs
from scholarbench.report.suite import expand, overview_group

CSS = """
:root { --ink:#1b1b1b; --muted:#666; --rule:#222; --soft:#e5e5e5; --bg:#ffffff;
  --matched:#1a7f37; --renamed:#b35900; --missing:#c62828; --extra:#1f5fbf; }
* { box-sizing: border-box; }
body { margin:0; background:#f4f4f2; color:var(--ink);
  font: 15px/1.5 Charter, "Bitstream Charter", "Sitka Text", Cambria, "DejaVu Serif", Georgia, serif; }
main { max-width: 1180px; margin: 0 auto; background: var(--bg); padding: 36px 56px 64px;
  box-shadow: 0 0 0 1px #e2e2de; }
h1 { font-size: 26px; margin: 0 0 4px; font-weight: 600; letter-spacing: -0.01em; }
h2 { font-size: 21px; margin: 40px 0 8px; padding-top: 12px; border-top: 2px solid var(--rule); }
h3 { font-size: 17px; margin: 28px 0 6px; }
h4 { font-size: 14px; margin: 22px 0 6px; text-transform: uppercase; letter-spacing: .06em;
  color: #444; font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; }
h5 { font-size: 13px; margin: 0 0 6px; font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; }
p.sub, .muted { color: var(--muted); }
code, pre { font: 12px/1.45 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; word-break: break-word; background:#fafaf8; padding: 10px;
  border: 1px solid var(--soft); max-height: 420px; overflow: auto; }
nav.toc { font-size: 13.5px; columns: 2; column-gap: 40px; margin: 18px 0 8px;
  padding: 12px 18px; background: #fafaf8; border: 1px solid var(--soft); }
nav.toc a { color: var(--ink); text-decoration: none; } nav.toc a:hover { text-decoration: underline; }
nav.toc .l3 { padding-left: 16px; } nav.toc .l4 { padding-left: 32px; color: var(--muted); }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
div.scroll { max-width: 100%; overflow-x: auto; }
table.lb { margin: 14px 0 4px; font-size: 13.5px; min-width: 60%; }
table.lb caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 4px; }
table.lb thead tr { border-top: 2px solid var(--rule); border-bottom: 1px solid var(--rule); }
table.lb tbody tr:last-child { border-bottom: 2px solid var(--rule); }
table.lb th, table.lb td { padding: 3px 10px; text-align: right; white-space: nowrap; }
table.lb th:first-child, table.lb td:first-child { text-align: left; }
table.lb thead th { font-weight: 600; white-space: normal; vertical-align: bottom; }
table.lb tbody th { font-weight: normal; }
table.lb tr.ours th { font-weight: 600; }
table.lb tr.published { color: #6b6b6b; font-style: italic; }
table.lb tr.sep td { text-align: left; font-size: 12px; color: var(--muted); font-style: italic;
  border-top: 1px solid #bbb; padding-top: 5px; }
.ci { font-size: 0.8em; color: var(--muted); white-space: nowrap; }
.badge { font: 10px/1 "Helvetica Neue", Arial, sans-serif; font-style: normal; color: #555;
  border: 1px solid #bbb; border-radius: 3px; padding: 1px 4px; vertical-align: 1px; }
ul.notes { font-size: 12.5px; color: #444; margin: 2px 0 10px; padding-left: 18px;
  overflow-wrap: anywhere; }
section.suite table.lb td:nth-last-child(-n+2) { text-align: left; }
section.judges table.lb { min-width: 0; }
section.judges table.lb td:nth-child(2), section.judges table.lb th:nth-child(2) {
  text-align: left; }
section.judges ul.notes { max-width: 1000px; }
p.footnote { font-size: 12.5px; color: var(--muted); margin-top: 8px; }
.figures { margin-top: 6px; }
figure.fig { margin: 18px 0 24px; }
figure.fig .panels { display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: flex-end; }
figure.fig .panel-label { display: none; }
figcaption { font-size: 13px; color: #333; max-width: 900px; margin-top: 4px; }
svg.chart { display: block; max-width: 100%; height: auto; }
details.sample { border-top: 1px solid var(--soft); padding: 6px 0; }
details.sample > summary { cursor: pointer; list-style-position: outside; }
details.sample .sid { font-family: "DejaVu Sans Mono", monospace; font-size: 12.5px;
  background: #f0f0ec; padding: 1px 5px; border-radius: 3px; }
details.sample .stitle { font-weight: 600; }
details.sample .sbits { display: block; font-size: 12.5px; color: var(--muted); margin-left: 18px; }
.sample-body { padding: 6px 0 8px 18px; }
.sample-body p { font-size: 12.5px; margin: 6px 0; }
table.sample-metrics { font-size: 11.5px; margin: 6px 0 10px; display: block; overflow-x: auto;
  max-width: 100%; }
table.sample-metrics th, table.sample-metrics td { padding: 2px 6px; text-align: right;
  border-bottom: 1px solid var(--soft); white-space: nowrap; }
table.sample-metrics th:first-child { text-align: left; }
table.sample-metrics thead th { border-bottom: 1px solid var(--rule); font-weight: 600; }
table.sample-metrics td.flags { text-align: left; color: var(--missing); white-space: normal;
  min-width: 280px; overflow-wrap: anywhere; }
details.tree-details { margin: 6px 0; } details.tree-details > summary { cursor: pointer;
  font-family: "Helvetica Neue", Arial, sans-serif; font-size: 13px; }
.tree-summary { font-size: 12.5px; margin: 6px 0; }
.tree-cols { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
.tree-col { border: 1px solid var(--soft); padding: 8px 10px; background: #fcfcfb; min-width: 0; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 14px; }
ul.tree { padding-left: 0; font: 12.5px/1.45 "Helvetica Neue", Helvetica, Arial, sans-serif; }
ul.tree ul.children { border-left: 1px dotted #bbb; margin-left: 5px; }
li.node > .label { padding: 0 3px; border-radius: 2px; }
.node .sym { display: inline-block; width: 13px; font-weight: 700; text-align: center; }
.st-root > .label { font-weight: 700; }
.st-matched > .sym, .st-matched > .label { color: var(--matched); }
.st-renamed > .sym, .st-renamed > .label { color: var(--renamed); }
.st-missing > .sym, .st-missing > .label { color: var(--missing); }
.st-missing > .label { text-decoration: line-through; text-decoration-thickness: 1px; }
.st-extra > .sym, .st-extra > .label { color: var(--extra); }
.st-extra > .label { font-style: italic; }
.tag { font-size: 10.5px; margin-left: 6px; padding: 0 4px; border-radius: 3px;
  border: 1px solid currentColor; white-space: nowrap; }
.tag-renamed { color: var(--renamed); } .tag-singleton { color: #777; }
ul.papers { padding-left: 18px; color: #555; font-size: 11.5px; }
.paper .psym { display: inline-block; width: 12px; }
.paper.placed .psym, .paper.expert .psym { color: var(--matched); }
li.paper.lost { color: #a84848; } li.paper.other { color: #888; }
.paper.lost .psym { color: var(--missing); }
.tree-legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font: 12px "Helvetica Neue", Arial,
  sans-serif; margin: 8px 0 12px; padding: 6px 10px; background: #fafaf8; border: 1px solid var(--soft); }
.tree-legend .sym { font-weight: 700; margin-right: 3px; }
.tree-legend .st-missing > .label { text-decoration: line-through; }
.judge { margin: 8px 0 4px; }
table.judge-scores { font-size: 12px; margin: 4px 0 8px; width: 100%; }
table.judge-scores th, table.judge-scores td { padding: 2px 8px; text-align: left;
  vertical-align: top; border-bottom: 1px solid var(--soft); }
table.judge-scores thead th { border-bottom: 1px solid var(--rule); }
table.judge-scores tbody th { white-space: nowrap; font-weight: 600; }
table.judge-scores td.score { text-align: right; white-space: nowrap;
  font-variant-numeric: tabular-nums; }
table.judge-scores td.reasoning { white-space: pre-wrap; word-break: break-word; color: #333;
  width: 100%; }
p.judge-unscored { color: var(--missing); }
table.runs { font-size: 13px; margin: 8px 0; width: 100%; }
table.runs th, table.runs td { padding: 3px 10px; text-align: left; border-bottom: 1px solid var(--soft);
  vertical-align: top; }
table.runs td:nth-child(-n+5), table.runs td:nth-child(7) { white-space: nowrap; }
table.runs td:last-child code { font-size: 11px; word-break: break-all; }
table.runs div.why { font-size: 12px; color: var(--muted); min-width: 260px;
  overflow-wrap: anywhere; }
table.runs thead th { border-top: 2px solid var(--rule); border-bottom: 1px solid var(--rule); }
details.run { border-top: 1px solid var(--soft); padding: 6px 0; }
details.run > summary { cursor: pointer; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: 170px 1fr; gap: 2px 14px; font-size: 13px;
  margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; word-break: break-word; }
ol.ranked { font-size: 12px; padding-left: 28px; margin: 4px 0 10px; }
ol.ranked li.rel { color: var(--matched); } ol.ranked li.nonrel { color: #777; }
.legend-line { font-size: 12.5px; color: #444; }
table.judge-labels { font-size: 11.5px; width: 100%; margin: 4px 0 8px; }
table.judge-labels th, table.judge-labels td { padding: 2px 8px; text-align: left;
  vertical-align: top; border-bottom: 1px solid var(--soft); }
table.judge-labels thead th { border-bottom: 1px solid var(--rule); }
table.judge-labels td:first-child { white-space: nowrap; color: #555; }
table.judge-labels td.label { white-space: nowrap; font-weight: 600; }
tr.st-correct td.label { color: var(--matched); }
tr.st-incorrect td.label { color: var(--missing); }
tr.st-not-mentioned td.label { color: #777; } tr.st-unscored td.label { color: var(--renamed); }
table.sample-metrics.groups th:first-child { max-width: 260px; white-space: normal; }
details.labels, details.excerpt { margin: 4px 0 8px; }
details.labels > summary, details.excerpt > summary { cursor: pointer;
  font: 13px "Helvetica Neue", Arial, sans-serif; }
pre.report { max-height: 300px; font-size: 11.5px; }
.flag { color: var(--missing); font-weight: normal; }
.run-block { margin: 8px 0 14px; }
h5.run-name { margin: 10px 0 2px; }
.ref-cols { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; margin: 4px 0 8px; }
.ref-col { border: 1px solid var(--soft); background: #fcfcfb; padding: 6px 10px; min-width: 0; }
.ref-col h6 { margin: 0 0 4px; font: 600 12px "Helvetica Neue", Arial, sans-serif; }
.ref-col.rel h6 { color: var(--matched); } .ref-col.extra h6 { color: var(--extra); }
.ref-col.missed h6 { color: var(--missing); }
ul.refs { margin: 0; padding-left: 16px; font-size: 11.5px; line-height: 1.4; }
.section-placeholder { border: 1px dashed #bbb; padding: 8px 12px; color: var(--muted); }
footer { margin-top: 48px; font-size: 12px; color: var(--muted); border-top: 1px solid var(--soft);
  padding-top: 10px; }
@media (max-width: 900px) { main { padding: 20px; }
  .tree-cols, .ref-cols { grid-template-columns: 1fr; }
  nav.toc { columns: 1; } }
@media print { body { background: #fff; } main { box-shadow: none; max-width: none; padding: 0; } }
"""
CSS += LEAK_CSS          # the leakage audit's marks (leakage/marks.py)
CSS += ("ol.drill-pages { columns: 3; font-size: 13px; }\n"
        ".drill-hit a { margin-right: 10px; }\n")


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("scholarbench")
    except Exception:  # pragma: no cover - not installed as a distribution
        return "unknown"


def _runs_table(runs: Sequence[ReportRun], anchors: dict[Path, str]) -> str:
    """One row per run; its samples by status (`core.status.run_counts`: the same counts as
    summary.json, eval.json and the eval table) with each status's top reason."""
    rows = []
    for r in runs:
        s = r.raw_summary
        counts = run_counts(r.run_dir, r.benchmark)
        extra = [f"{n} {LABELS.get(k, k)}" for k, n in counts.counts.items() if n]
        if s.get("n_suspected_injection"):
            extra.append(f"{s['n_suspected_injection']} suspected injection")
        if s.get("n_suspected_leak"):
            extra.append(f"{s['n_suspected_leak']} suspected leak")
        why = counts.top_reasons()
        rows.append(f'<tr data-run="{e(r.run_dir)}"><td><a href="#{anchors[r.run_dir]}">'
                    f"{e(r.name)}</a></td><td>{e(r.benchmark)}</td><td>{e(r.mode)}</td>"
                    f"<td>{e(r.manifest.get('agent') or '')}</td>"
                    f"<td>{e(r.summary.n_samples)}</td><td>{e('; '.join(extra) or '—')}"
                    + (f'<div class="why">{e(why)}</div>' if why else "") + "</td>"
                    f"<td>{e(str(r.manifest.get('created', ''))[:19].replace('T', ' '))}</td>"
                    f"<td><code>{e(r.run_dir)}</code></td></tr>")
    return ('<div class="scroll"><table class="runs"><thead><tr><th>run</th><th>benchmark</th>'
            "<th>mode</th><th>agent</th><th>samples</th><th>samples by status (top reasons)</th>"
            "<th>created (UTC)</th><th>directory</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div>")


def _group_html(groups: Sequence[TableGroup], css: str, page: Page) -> list[str]:
    """One section of a report part made of a single table group (the judges panel and
    rankings, `report.judges`; the epochs of K > 1 runs, `report.epochs`); none: nothing."""
    if not groups:
        return []
    out = [f'<section class="{css}">', page.heading(2, groups[0].title)]
    out.extend(table_html(t) for t in groups[0].tables)
    return out + ["</section>"]


def _cost_html(runs: Sequence[ReportRun], page: Page) -> list[str]:
    """Per benchmark and sub-task with costs: score against cost per sample with the Pareto
    front, and the table (`report.cost`)."""
    groups = groups_of(runs)
    if not groups:
        return []
    out = ['<section class="cost">', page.heading(2, COST_TITLE)]
    for group in groups:
        out.append(f'<div class="charts">{cost_chart(group)}</div>')
        out.append(table_html(cost_table(group)))
    return out + ["</section>"]


def render_html_report(runs: Sequence[ReportRun], *, published: bool = True,
                       title: str = "scholarbench report", embedder: Any = None,
                       max_samples: int | None = None, tree_papers: bool = True,
                       overview: Sequence[TableGroup] = (), page: Page | None = None) -> str:
    """The report as one HTML string (see the module docstring); `overview`: the suite
    overviews of eval suite directories (`report.suite`), shown first. `page`: one with a
    `side_folder` pages long drill-downs (`Page.drilldown`; `write_html_report` writes them);
    without, every drill-down is inline."""
    page = page or Page()
    page.published, page.embedder, page.max_samples = published, embedder, max_samples
    page.tree_papers = tree_papers
    body: list[str] = []
    for group in overview:
        body.append(page.heading(2, group.title))
        body.extend(f'<section class="suite">{table_html(t)}</section>' for t in group.tables)
    body.append(page.heading(2, "Runs"))
    anchors = {r.run_dir: page.anchor(f"run {r.run_dir.name}") for r in runs}
    body.append(_runs_table(runs, anchors))
    body.extend(f'<p class="muted">{e(note)}</p>' for note in report_notes(runs)
                + leak_notes(runs))
    grouped = by_benchmark(runs)
    for section, section_runs in grouped:
        body.append(f'<section class="benchmark" data-benchmark="{e(section.benchmark)}">')
        body.append(section.html(section_runs, page))
        body.append("</section>")
    body.extend(_group_html(judge_groups(runs), "judges", page))
    body.extend(_group_html(epoch_groups(runs), "epochs", page))
    body.extend(_cost_html(runs, page))
    body.append(page.heading(2, "Run metadata"))
    for section, section_runs in grouped:
        for r in section_runs:
            body.append(f'<details class="run" id="{anchors[r.run_dir]}"><summary>{e(r.name)} '
                        f'<span class="muted">({e(r.benchmark)}, {e(r.mode)})</span></summary>'
                        f"{section.run_metadata(r)}</details>")
    toc = "".join(f'<div class="l{level}"><a href="#{anchor}">{e(text)}</a></div>'
                  for level, anchor, text in page.toc)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    benchmarks = ", ".join(s.title for s, _ in grouped) or "none"
    head = (f"<header><h1>{e(title)}</h1><p class=\"sub\">{len(runs)} run"
            f"{'' if len(runs) == 1 else 's'} · {e(benchmarks)} · generated {e(created)} by "
            f"scholarbench {e(_version())}</p></header>")
    footer = ("<footer>Published rows are transcribed from each benchmark's paper and were "
              "measured on the paper's full data with its agents' outputs; ours on the samples "
              "listed. Undefined values (—) are excluded from means and counted beside them. "
              "Differences between two runs with confidence intervals: <code>scholarbench "
              "compare RUN_A RUN_B</code>.</footer>")
    find = FIND_SCRIPT if page.side_scripts else ""
    return _document(title, f"{head}<nav class=\"toc\">{toc}</nav>" + "\n".join(body)
                     + footer + find)


def _document(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>"
            + body + "</main></body></html>\n")


def write_html_report(run_dirs: Sequence[Path | str], out_path: Path | str,
                      published: bool = True, *, title: str = "scholarbench report",
                      embedder: Any = None, max_samples: int | None = None,
                      tree_papers: bool = True) -> Path:
    """Load the finished runs (an eval suite directory: its runs, after its overview), write
    the report to `out_path` (atomically); returns the path.

    `embedder` (optional) computes tree-node label similarity; without it the run's stored
    embeddings are used when they cover every label, else a string similarity (treeview)."""
    dirs, suites = expand([Path(d) for d in run_dirs])
    runs = load_report_runs(dirs)
    out = Path(out_path)
    page = side_page(out)
    text = redact(render_html_report(runs, published=published, title=title, embedder=embedder,
                                     max_samples=max_samples, tree_papers=tree_papers,
                                     overview=[overview_group(s, runs) for s in suites],
                                     page=page),
                  prose=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_side_files(out, page, title)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out


def side_page(report: Path) -> Page:
    """The page of a report written to `report`: long drill-downs go to pages in
    `<stem>_files/` beside it (`Page.drilldown`)."""
    return Page(side_folder=f"{report.stem}_files", report_name=report.name)


def write_side_files(report: Path, page: Page, title: str) -> None:
    """The paged drill-downs (`Page.drilldown`) into the report's side folder, after removing
    the pages an earlier report wrote there (`drill-*` files only: nothing else in the folder
    is touched); no folder when every drill-down was inline."""
    folder = report.parent / str(page.side_folder)
    if folder.is_dir():
        for old in folder.glob("drill-*"):
            if old.is_file() and old.suffix in (".html", ".js"):
                old.unlink()
        if not any(folder.iterdir()):
            folder.rmdir()
    if not page.side_pages:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for name, (heading, body) in page.side_pages.items():
        text = _document(f"{title} — {heading}", f"<h2>{e(heading)}</h2>{body}")
        (folder / name).write_text(redact(text, prose=True), encoding="utf-8")
    for name, script in page.side_scripts.items():
        (folder / name).write_text(redact(script, prose=True), encoding="utf-8")
