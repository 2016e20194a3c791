"""The leaderboard's pages: plain HTML files in one folder, linked by relative paths, with the
report's styles and SVG plots inline — no script, no server, nothing fetched; they open from
disk and from any static host.

- `index.html`: every board (benchmark, sub-task, headline) with its leader, every submission
  with its verdict, and the ones listed apart with why;
- `<benchmark>-<sub-task>-<measure>.html`: the ranked table with the paper's published rows
  (marked), a second table of cost, flags and judges (both with `exports.KEYS` as the cells'
  `data-key` / `data-value`), the significant gaps, the cost plot with its Pareto front, and
  the judges' panel and agreement (`report.judges`);
- `submission-<name>.html`: its verdict, every check of `verify`, the code versions, its runs
  with their ranks and boards; a ranked one links its drill-down (`submission-<name>-report.html`:
  the report of its runs, `report.html`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.leaderboard.board import Board, Entry, Listed
from scholarbench.leaderboard.exports import KEYS, entry_values
from scholarbench.report.cost import cost_chart
from scholarbench.report.html import CSS
from scholarbench.report.htmlkit import dl, e, table_html
from scholarbench.report.judges import judge_groups
from scholarbench.report.tables import NULL, Row, Table

EXTRA_CSS = """
nav.crumbs { font-size: 13.5px; margin-bottom: 14px; }
table.plain { border-collapse: collapse; font-size: 13.5px; margin: 10px 0; }
table.plain th, table.plain td { padding: 3px 10px; text-align: left; vertical-align: top;
  border-bottom: 1px solid var(--soft); }
table.plain thead th { border-bottom: 1px solid var(--rule); }
.v-ok, .v-verified { color: #1a7f37; } .v-differs, .v-verified-with-differences { color: #b35900; }
.v-refused, .v-unreadable { color: #c62828; font-weight: 600; } .v-info, .v-skipped { color: #666; }
ul.diffs { margin: 2px 0; padding-left: 18px; font-size: 12.5px; color: #444; }
"""


def document(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{CSS}{EXTRA_CSS}</style></head><body><main>"
            + body + "</main></body></html>\n")


def _num(value: Any, digits: int = 4) -> str:
    if value is None:
        return NULL
    return str(value) if isinstance(value, int) else f"{value:.{digits}f}"


def _verdict(text: str) -> str:
    return f'<span class="v-{e(text.replace(" ", "-"))}">{e(text)}</span>'


def _cost(board: Board, entry: Entry) -> str:
    x = entry.cost_per_sample
    if x is None:
        return NULL
    cell = f"${x:.4f}" if board.cost_axis == "usd" else f"{x:,.0f} tok"
    return cell + (" (front)" if entry.pareto else "")


RANK_KEYS = KEYS[:7]        # score, its interval, n, the gap to the next and its interval
MORE_KEYS = KEYS[7:]        # cost, leak and injection flags, the judges' agreement


def _cells(board: Board, entry: Entry, keys: Sequence[str]) -> tuple[list[str], list[Any]]:
    values = entry_values(entry)
    gap = entry.gap
    cells = []
    for key in keys:
        if key == "gap":
            cells.append(NULL if gap is None or gap.diff is None else
                         f"{gap.diff:+.4f}" + (" *" if gap.significant else ""))
        elif key == "cost_per_sample":
            cells.append(_cost(board, entry))
        elif key == "alpha":
            cells.append(_num(entry.alpha, 3) + (f" ({', '.join(entry.judges)})"
                                                 if entry.judges else ""))
        else:
            cells.append(_num(values[key]))
    return cells, [values[k] for k in keys]


def _entry_rows(board: Board, keys: tuple[str, ...]) -> list[Row]:
    """One row per ranked entry: its rank, submission and run, agent, then `keys`' cells."""
    rows = []
    for entry in board.entries:
        cells, values = _cells(board, entry, keys)
        rows.append(Row("ours", (f"{entry.rank}. {entry.submission} · {entry.run}",
                                 entry.agent, *cells), tuple(values),
                        source=f"{entry.submission}/{entry.run}"))
    return rows


def board_table(board: Board) -> Table:
    """The ranked table: one row per entry, then the paper's published rows after a rule."""
    header = ("entry", "agent", f"{board.label} (mean)", "95% low", "95% high", "n",
              "gap to next", "gap 95% low", "gap 95% high")
    rows = _entry_rows(board, RANK_KEYS)
    if board.published:
        rows.append(Row("separator", ("Published in the paper (on the same scale as ours): "
                                      "its own data, agents and scoring; transcribed, not "
                                      "verified, not ranked",)))
        for p in board.published:
            rows.append(Row("published", (f"{p.system} (published)", "paper", _num(p.value),
                                          *[NULL] * (len(RANK_KEYS) - 1)),
                            (p.value, *[None] * (len(RANK_KEYS) - 1))))
    notes = (f"Ranked by {board.label} ({'higher' if board.higher_better else 'lower'} is "
             "better); 95% interval: the summary's bootstrap interval of the mean.",
             "Gap to next: the mean advantage over the entry below on the tasks both scored, "
             "with its 95% paired bootstrap interval (10,000 resamples, seed 0); * the "
             "interval excludes 0 (significant).")
    return Table(f"{board.benchmark} {board.mode} — ranked by {board.label}", header,
                 tuple(rows), notes, RANK_KEYS)


def more_table(board: Board) -> Table:
    """Beside each entry's score: cost, leak and injection flags, the judges' agreement."""
    header = ("entry", "agent", "cost per sample" + (" ($)" if board.cost_axis == "usd"
                                                     else " (tokens)"),
              "suspected leak", f"{board.label} without leaked", "suspected injection",
              f"{board.label} without flagged", "judges' α (judges)")
    rows = _entry_rows(board, MORE_KEYS)
    notes = ("Cost: every model call the run made, per sample (docs/cost.md); (front): on the "
             "Pareto front of the plot below.",
             "Without leaked / without flagged: the mean without the samples suspected of "
             "leakage / injection (docs/leakage.md, docs/injection.md); — when none is "
             "flagged.",
             "Judges' α: Krippendorff's α between the panel's judges on the first measure "
             "with one (— with one judge).")
    return Table(f"{board.benchmark} {board.mode} — cost, flags and judges", header,
                 tuple(rows), notes, MORE_KEYS)


def board_page(board: Board, title: str) -> str:
    body = [f'<nav class="crumbs"><a href="index.html">{e(title)}</a> › '
            f"{e(board.benchmark)} {e(board.mode)}</nav>",
            f"<h1>{e(board.benchmark)} — {e(board.mode)}</h1>",
            f'<p class="sub">{len(board.entries)} verified run'
            f"{'' if len(board.entries) == 1 else 's'} ranked by {e(board.label)}</p>",
            table_html(board_table(board)), table_html(more_table(board))]
    significant = [f"{a.submission} · {a.run} over {b.submission} · {b.run}: "
                   f"{a.gap.diff:+.4f} [{a.gap.ci_low:.4f}, {a.gap.ci_high:.4f}] on "
                   f"{a.gap.n_pairs} shared tasks"
                   for a, b in zip(board.entries, board.entries[1:])
                   if a.gap is not None and a.gap.significant]
    body.append("<h2>Significant gaps</h2>" + (
        "<ul>" + "".join(f"<li>{e(s)}</li>" for s in significant) + "</ul>" if significant
        else '<p class="muted">No adjacent gap is significant (or only one entry).</p>'))
    body.append("<h2>Entries</h2><ul>" + "".join(
        f'<li><a href="submission-{e(x.submission)}.html">{e(x.submission)}</a> · '
        f"{e(x.run)} ({e(x.agent)})</li>" for x in board.entries) + "</ul>")
    chart = cost_chart(board.runs)
    if chart:
        body.append('<h2>Cost</h2><figure class="fig">' + chart + "<figcaption>Headline "
                    "against cost per sample; blue: on the Pareto front (no other entry costs "
                    "at most as much and scores at least as well, one strictly), joined by a "
                    "line when there are several. Points are labelled submission--run."
                    "</figcaption></figure>")
    groups = judge_groups(board.runs)
    if groups:
        body.append('<section class="judges"><h2>Judges</h2>'
                    + "".join(table_html(t) for t in groups[0].tables) + "</section>")
    return document(f"{title} — {board.benchmark} {board.mode}", "\n".join(body))


def _checks(listed: Listed) -> str:
    v = listed.submission.verification if listed.submission is not None else None
    if v is None:
        return f'<p class="muted">{e("; ".join(listed.why))}</p>'
    rows = []
    for c in v.checks:
        diffs = ("<ul class=\"diffs\">" + "".join(f"<li>{e(d)}</li>" for d in c.differences[:50])
                 + (f"<li>… and {len(c.differences) - 50} more</li>"
                    if len(c.differences) > 50 else "") + "</ul>") if c.differences else ""
        rows.append(f"<tr><td>{_verdict(c.verdict)}</td><td>{e(c.scope)}</td>"
                    f"<td>{e(c.name)}</td><td>{e(c.detail)}{diffs}</td></tr>")
    return ('<div class="scroll"><table class="plain checks"><thead><tr><th>verdict</th>'
            "<th>on</th><th>check</th><th>found</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div>")


def submission_page(listed: Listed, boards: Sequence[Board], title: str,
                    report: str | None) -> str:
    sub = listed.submission
    where = {(x.submission, x.run): (b, x) for b in boards for x in b.entries}
    runs = []
    for run in (sub.runs if sub is not None else []):
        found = where.get((listed.slug, run.dir))
        rank = (f'rank {found[1].rank} on <a href="{e(found[0].slug)}.html">'
                f"{e(found[0].benchmark)} {e(found[0].mode)}</a>" if found else
                "not ranked")
        runs.append(f"<tr><td>{e(run.dir)}</td><td>{e(run.benchmark)}</td><td>{e(run.mode)}"
                    f"</td><td>{e(run.agent or '')}</td><td>{rank}</td></tr>")
    versions = dl([(k, e(v)) for k, v in (sub.versions if sub is not None else {}).items()])
    body = [f'<nav class="crumbs"><a href="index.html">{e(title)}</a> › {e(listed.slug)}</nav>',
            f"<h1>{e(listed.slug)}</h1>",
            f'<p class="sub">{e(listed.path.name)} · verdict {_verdict(listed.verdict)}'
            + ("" if listed.ranked else " · listed apart, not ranked") + "</p>"]
    if listed.why:
        body.append("<p>Why not ranked:</p><ul>" + "".join(f"<li>{e(w)}</li>"
                                                           for w in listed.why) + "</ul>")
    if report:
        body.append(f'<p><a href="{e(report)}">Drill-down: the report of these runs</a> '
                    "(every sample's answer and scores).</p>")
    body += ["<h2>Runs</h2>" + ('<table class="plain"><thead><tr><th>run</th><th>benchmark'
                                "</th><th>sub-task</th><th>agent</th><th>leaderboard</th></tr>"
                                "</thead><tbody>" + "".join(runs) + "</tbody></table>"
                                if runs else '<p class="muted">No run could be read.</p>'),
             "<h2>Checks</h2>" + _checks(listed),
             "<h2>Code versions (packing side)</h2>" + (versions if sub and sub.versions
                                                         else f"<p>{NULL}</p>")]
    return document(f"{title} — {listed.slug}", "\n".join(body))


def index_page(boards: Sequence[Board], listed: Sequence[Listed], title: str,
               generated: str, version: str) -> str:
    rows = []
    for b in boards:
        top = b.entries[0] if b.entries else None
        leader = (f"{e(top.submission)} · {e(top.run)} ({_num(top.score)})" if top else NULL)
        rows.append(f'<tr><td><a href="{e(b.slug)}.html">{e(b.benchmark)}</a></td>'
                    f"<td>{e(b.mode)}</td><td>{e(b.label)}</td><td>{len(b.entries)}</td>"
                    f"<td>{leader}</td></tr>")
    subs = [f'<tr><td><a href="submission-{e(s.slug)}.html">{e(s.slug)}</a></td>'
            f"<td>{e(s.path.name)}</td><td>{_verdict(s.verdict)}</td>"
            f"<td>{'ranked' if s.ranked else 'listed apart'}</td></tr>" for s in listed]
    apart = [f'<li><a href="submission-{e(s.slug)}.html">{e(s.slug)}</a>: '
             f"{_verdict(s.verdict)} — {e('; '.join(s.why) or 'no reason recorded')}</li>"
             for s in listed if not s.ranked]
    body = [f"<h1>{e(title)}</h1>",
            f'<p class="sub">{len(boards)} leaderboard{"" if len(boards) == 1 else "s"} · '
            f"{sum(s.ranked for s in listed)} of {len(listed)} submissions verified and "
            f"ranked · generated {e(generated)} by scholarbench {e(version)}</p>",
            "<p>Only submissions that <code>scholarbench verify</code> found verified are "
            "ranked; the rest are listed apart with why. Data: "
            '<a href="leaderboard.json">leaderboard.json</a>, '
            '<a href="leaderboard.csv">leaderboard.csv</a>.</p>',
            "<h2>Leaderboards</h2>" + ('<table class="plain boards"><thead><tr><th>benchmark'
                                       "</th><th>sub-task</th><th>ranked by</th><th>entries"
                                       "</th><th>leader</th></tr></thead><tbody>"
                                       + "".join(rows) + "</tbody></table>" if rows else
                                       '<p class="muted">No verified run to rank.</p>'),
            "<h2>Submissions</h2>" + ('<table class="plain subs"><thead><tr><th>submission'
                                      "</th><th>file</th><th>verdict</th><th>listed</th></tr>"
                                      "</thead><tbody>" + "".join(subs) + "</tbody></table>")]
    if apart:
        body.append('<h2>Listed apart (not ranked)</h2><ul class="apart">' + "".join(apart)
                    + "</ul>")
    return document(title, "\n".join(body))


def write_page(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


__all__ = ["board_page", "board_table", "more_table", "document", "index_page", "submission_page",
           "write_page"]
