"""HTML building blocks shared by the report's benchmark sections.

Everything that reaches the page passes through `e()` (`text.escape.html`: html.escape with
quotes, control and bidi characters removed): sample ids, topics, titles, labels and manifest
values are untrusted text. The drill-down uses `<details>`; past `DRILL_PAGE` samples it goes to
pages of its own next to the report (`Page.drilldown`), whose only script is the sample search
(ids come from a side file and are shown as text).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from scholarbench.injection.check import injection_summary_text
from scholarbench.injection.unflagged import flagged_note
from scholarbench.leakage.marks import badge_html
from scholarbench.report.tables import Table
from scholarbench.text.escape import html as html_text


e = html_text   # text.escape.html: escaped, controls and bidi removed


@dataclass
class Page:
    """Options and running numbers (figures, anchors) for one HTML report."""
    published: bool = True
    embedder: Any = None              # for tree-node label similarity; None = cache or strings
    max_samples: int | None = None    # drill-down: at most this many samples per mode
    tree_papers: bool = True          # list papers under the tree nodes
    figure_count: int = 0
    anchors: set[str] = field(default_factory=set)
    toc: list[tuple[int, str, str]] = field(default_factory=list)   # (level, anchor, text)
    cache: dict[Any, Any] = field(default_factory=dict)   # e.g. gold files read once per page
    side_folder: str | None = None    # where drill-down pages go, relative to the report
    report_name: str = "report.html"  # the report's file name (the side pages link back)
    side_pages: dict[str, tuple[str, str]] = field(default_factory=dict)  # file → (title, body)
    side_scripts: dict[str, str] = field(default_factory=dict)            # file → script

    def anchor(self, text: str) -> str:
        base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "s"
        anchor, i = base, 2
        while anchor in self.anchors:
            anchor, i = f"{base}-{i}", i + 1
        self.anchors.add(anchor)
        return anchor

    def heading(self, level: int, text: str, toc: bool = True) -> str:
        anchor = self.anchor(text)
        if toc:
            self.toc.append((level, anchor, text))
        return f'<h{level} id="{anchor}">{e(text)}</h{level}>'

    def figure(self, svg: str, caption: str, css: str = "") -> str:
        self.figure_count += 1
        return (f'<figure class="fig {css}" id="figure-{self.figure_count}">{svg}'
                f"<figcaption><b>Figure {self.figure_count}.</b> {e(caption)}</figcaption>"
                "</figure>")

    def figures(self, items: Sequence[tuple[str, str]], caption: str) -> str:
        """Several SVG panels under one numbered caption; items are (svg, panel label)."""
        self.figure_count += 1
        panels = "".join(f'<div class="panel">{svg}<div class="panel-label">{e(label)}</div>'
                         "</div>" for svg, label in items)
        return (f'<figure class="fig multi" id="figure-{self.figure_count}">'
                f'<div class="panels">{panels}</div><figcaption><b>Figure '
                f"{self.figure_count}.</b> {e(caption)}</figcaption></figure>")


    def drilldown(self, lead: Sequence[str], blocks: Sequence[str], ids: Sequence[str],
                  noun: str = "samples") -> str:
        """A section's drill-down: `lead` (its notes), then one `<details>` block per sample.
        Up to `DRILL_PAGE` samples, or when the report is rendered without side pages, inline;
        past it the report keeps its size whatever the sample count: the blocks go to pages of
        `DRILL_PAGE` samples in `side_folder`, and the report lists the pages (first and last
        id of each) with a search box that finds a sample id's page."""
        if self.side_folder is None or len(blocks) <= DRILL_PAGE:
            return "\n".join([*lead, *blocks])
        name = self.anchor(f"drill {noun}")
        under = self.toc[-1][2] if self.toc else noun      # the heading it sits under
        pages = [list(range(i, min(i + DRILL_PAGE, len(blocks))))
                 for i in range(0, len(blocks), DRILL_PAGE)]
        links = []
        for k, members in enumerate(pages, start=1):
            file = f"{name}-{k}.html"
            first, last = ids[members[0]], ids[members[-1]]
            span = str(first) if len(members) == 1 else f"{first} … {last}"
            nav = " · ".join(
                [f'<a href="../{e(self.report_name)}">back to the report</a>']
                + ([f'<a href="{name}-{k - 1}.html">previous</a>'] if k > 1 else [])
                + ([f'<a href="{name}-{k + 1}.html">next</a>'] if k < len(pages) else []))
            title = (f"{under}: {noun} {members[0] + 1}–{members[-1] + 1} of {len(blocks)} "
                     f"(page {k} of {len(pages)})")
            shown = [_opened(blocks[members[0]]), *(blocks[i] for i in members[1:])]
            self.side_pages[file] = (title, f'<p class="muted">{nav}</p>' + "\n".join(shown)
                                     + f'<p class="muted">{nav}</p>')
            links.append(f'<li><a href="{e(self.side_folder)}/{file}">page {k}</a> '
                         f'<span class="muted">{e(span)}</span></li>')
        index = {str(ids[i]): k for k, members in enumerate(pages, start=1) for i in members}
        script = f"{name}-index.js"
        self.side_scripts[script] = (f"window.SB_DRILL = window.SB_DRILL || {{}};\n"
                                     f"window.SB_DRILL[{json.dumps(name)}] = "
                                     f"{json.dumps(index, ensure_ascii=True)};\n")
        search = (f'<p class="drill-search"><label>Find a sample id: <input type="search" '
                  f'data-drill="{name}" data-folder="{e(self.side_folder)}" '
                  f'oninput="sbFind(this)"></label> <span class="drill-hit"></span></p>'
                  f'<script src="{e(self.side_folder)}/{script}"></script>')
        return "\n".join([*lead, f'<p class="muted">{len(blocks)} {e(noun)}: the drill-down '
                           f"is in {len(pages)} pages of {DRILL_PAGE} next to this report "
                           f"(<code>{e(self.side_folder)}/</code>).</p>", search,
                           '<ol class="drill-pages">' + "".join(links) + "</ol>"])


# The search box's script (once per report with paged drill-downs): a typed id's page, shown
# as a link; ids are set as text, never as markup.
FIND_SCRIPT = """<script>
function sbFind(box) {
  var index = (window.SB_DRILL || {})[box.dataset.drill] || {};
  var hit = box.parentNode.parentNode.querySelector('.drill-hit');
  var q = box.value.trim(); hit.textContent = '';
  if (!q) return;
  var page = index[q], found = [];
  if (page === undefined) {
    for (var id in index) { if (id.indexOf(q) !== -1) { found.push(id); if (found.length > 9) break; } }
  } else { found = [q]; }
  if (!found.length) { hit.textContent = 'no such sample id'; return; }
  found.forEach(function (id) {
    var a = document.createElement('a');
    a.href = box.dataset.folder + '/' + box.dataset.drill + '-' + index[id] + '.html';
    a.textContent = id + ' (page ' + index[id] + ')'; hit.appendChild(a);
    hit.appendChild(document.createTextNode(' '));
  });
}
</script>"""

def _opened(block: str) -> str:
    """A sample's `<details>` block opened (the first of each drill-down page)."""
    head, sep, rest = block.partition(">")
    return block if " open" in head else f"{head} open{sep}{rest}"


DRILL_PAGE = 100          # samples per drill-down page (and the most a report holds inline)


def drilldown_ids(runs: Sequence[Any], page: Page, noun: str = "samples"
                  ) -> tuple[dict[Any, dict[str, dict[str, Any]]], list[str], str]:
    """Each run's score rows by sample id, the sample ids in first-seen order (at most
    `page.max_samples`), and the note saying so when some were cut ('' otherwise)."""
    rows = {r.run_dir: {str(row.get("id")): row for row in r.scores} for r in runs}
    ids = list(dict.fromkeys(sid for r in runs for sid in rows[r.run_dir]))
    if page.max_samples is None or len(ids) <= page.max_samples:
        return rows, ids, ""
    ids = ids[: page.max_samples]
    return rows, ids, (f'<p class="muted">The first {len(ids)} {noun} are shown '
                       "(--max-samples).</p>")


def table_html(table: Table, heading: str = "",
               higher_is_better: dict[str, bool] | None = None) -> str:
    """A leaderboard `Table` (the same cells as the terminal/Markdown/LaTeX output). The best of
    our rows per column is bold when there are two or more of ours; published rows are marked."""
    keys = table.keys
    ours = [r for r in table.rows if r.kind == "ours"]
    best: dict[int, float] = {}
    if higher_is_better and len(ours) > 1:
        for i, key in enumerate(keys):
            values = [r.values[i] for r in ours if i < len(r.values) and r.values[i] is not None]
            if values and key in higher_is_better:
                best[i] = max(values) if higher_is_better[key] else min(values)
    width = len(table.header)
    out = [f'<div class="scroll"><table class="lb" data-title="{e(table.title)}">'
           f"<caption>{e(table.title)}</caption>"
           "<thead><tr>" + "".join(f'<th scope="col">{e(h)}</th>' for h in table.header)
           + "</tr></thead><tbody>"]
    for row in table.rows:
        if row.kind == "separator":
            out.append(f'<tr class="sep"><td colspan="{width}">{e(row.cells[0])}</td></tr>')
            continue
        cells = []
        for i, cell in enumerate(row.cells):
            if i == 0:
                name = cell
                badge = ""
                if row.kind == "published" and name.endswith(" (published)"):
                    name = name[: -len(" (published)")]
                    badge = ' <span class="badge">published</span>'
                cells.append(f'<th scope="row">{e(name)}{badge}</th>')
                continue
            k = i - 2
            attrs = ""
            if k >= 0 and k < len(keys):
                value = row.values[k] if k < len(row.values) else None
                raw = "" if value is None else repr(value)
                attrs = f' data-key="{e(keys[k])}" data-value="{raw}"'
                if row.kind == "ours" and k in best and value == best[k]:
                    cells.append(f'<td{attrs}><b>{_with_interval(cell)}</b></td>')
                    continue
            cells.append(f"<td{attrs}>{_with_interval(cell)}</td>")
        source = f' data-run="{e(row.source)}"' if row.source else ""
        out.append(f'<tr class="{row.kind}"{source}>' + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    if table.notes:
        out.append('<ul class="notes">' + "".join(f"<li>{e(n)}</li>" for n in table.notes)
                   + "</ul>")
    return "".join(out)


def dl(items: Sequence[tuple[str, str]]) -> str:
    """A definition list; values are already HTML."""
    return ('<dl class="facts">' + "".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in items)
            + "</dl>")


def _short(value: object, limit: int = 16) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _compact(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}"
                         for k, v in value.items())
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


# Manifest keys that may hold LLM usage, in the formats the llm layer may write.
_USAGE_KEYS = ("usage", "tokens", "token_usage", "llm_usage", "cost", "cost_usd")
_MODEL_KEYS = ("model", "models", "llm", "agent_model", "judge", "judges", "judge_model")


def usage_rows(manifest: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's chat-model usage per role (manifest "llm_usage") as one metadata row."""
    usage = manifest.get("llm_usage") or {}
    if not isinstance(usage, dict) or not usage:
        return []
    return [("tokens per role", e("; ".join(
        f"{role}: {u.get('prompt_tokens', 0):,} in / {u.get('completion_tokens', 0):,} "
        f"out, {u.get('calls', 0)} calls"
        + (f", ${u['cost_usd']:.4f}" if u.get("cost_usd") else "")
        for role, u in usage.items() if isinstance(u, dict))))]


def metadata_html(run, extra: Sequence[tuple[str, str]] = ()) -> str:
    """What produced the run, from whatever its manifest and summary hold (older runs lack
    some keys: those rows are left out), then the whole manifest as JSON."""
    m, s = run.manifest, run.raw_summary
    items: list[tuple[str, str]] = [("run directory", f"<code>{e(run.run_dir)}</code>"),
                                    ("benchmark / mode", e(f"{run.benchmark} / {run.mode}")),
                                    ("agent", e(m.get("agent") or s.get("agent") or "—"))]
    if m.get("run_name"):
        items.append(("run name", e(m["run_name"])))
    if m.get("agent_config"):
        items.append(("agent config", f"<code>{e(_compact(m['agent_config']))}</code>"))
    for key in _MODEL_KEYS:
        if m.get(key):
            items.append((key.replace("_", " "), e(_compact(m[key]))))
    if m.get("created"):
        items.append(("created", e(m["created"])))
    if m.get("command"):
        items.append(("command", f"<code>scholarbench {e(_compact(m['command']))}</code>"))
    data = m.get("data")
    if isinstance(data, dict):
        bits = [f"{k}: {_short(v, 80) if k != 'sha256' else _short(v)}" for k, v in data.items()
                if isinstance(v, (str, int, float)) and k not in ("grading",)]
        items.append(("data", e("; ".join(bits))))
    corpus = m.get("corpus")
    if isinstance(corpus, dict):
        bits = [f"path: {corpus.get('path', '—')}"]
        if corpus.get("sha256"):
            bits.append(f"papers sha256: {_short(corpus['sha256'])}")
        files = corpus.get("files")
        if isinstance(files, dict) and isinstance(files.get("papers.parquet"), dict):
            bits.append(f"{files['papers.parquet'].get('rows', '?'):,} papers"
                        if isinstance(files['papers.parquet'].get('rows'), int) else "")
        items.append(("corpus", e("; ".join(b for b in bits if b))))
    if "embedder" in m:
        items.append(("embedder", e(m["embedder"] or "none")))
    for key in _USAGE_KEYS:
        for source in (m, s):
            if source.get(key) is not None:
                items.append((key.replace("_", " "), f"<code>{e(_compact(source[key]))}</code>"))
                break
    tools = m.get("tools")
    if isinstance(tools, dict) and tools.get("calls") is not None:
        by_tool = tools.get("by_tool") if isinstance(tools.get("by_tool"), dict) else {}
        items.append(("tool calls", e(
            f"{tools['calls']} calls ({tools.get('errors', 0)} errors) over "
            f"{tools.get('samples_with_calls', '?')} of {tools.get('samples', '?')} samples"
            + (": " + ", ".join(f"{k} {v}" for k, v in by_tool.items()) if by_tool else ""))))
    checks = m.get("injection_check")
    if isinstance(checks, dict):
        for judge, entry in checks.items():
            if isinstance(entry, dict):
                items.append((f"judge injection check ({judge})",
                              e(injection_summary_text(entry))))
    counts = [f"{s.get('n_samples', '?')} samples"]
    if "n_scored" in s:
        counts.append(f"{s['n_scored']} scored")
    for key in ("n_missing", "n_malformed"):
        if key in s:
            counts.append(f"{s[key]} {key[2:]}")
    if s.get("n_suspected_injection"):
        note = flagged_note(s)
        counts.append(f"{s['n_suspected_injection']} with text aimed at the judge "
                      "(suspected injection" + (f"; {note}" if note else "") + ")")
    if n_oversized := (s.get("status") or {}).get("oversized"):
        limits = m.get("output_limits") if isinstance(m.get("output_limits"), dict) else {}
        counts.append(f"{n_oversized} oversized"
                      + (f" (limits: {_compact(limits)})" if limits else ""))
    unscorable = s.get("n_unscorable")
    if isinstance(unscorable, dict):
        counts.append("unscorable: " + (", ".join(f"{v} {k}" for k, v in unscorable.items())
                                        or "none"))
    if "n_unscored" in s:
        counts.append(f"{s['n_unscored']} unscored (judge)")
    items.append(("samples", e("; ".join(counts))))
    items.extend(extra)
    if isinstance(m.get("embedding_cache"), dict):
        items.append(("embedding cache", e(_compact(m["embedding_cache"]))))
    if isinstance(m.get("scoring"), dict):
        items.append(("scoring", e(_compact(m["scoring"]))))
    if isinstance(m.get("versions"), dict):
        items.append(("versions", e(" · ".join(f"{k} {v}" for k, v in m["versions"].items()))))
    raw = json.dumps(m, indent=2, ensure_ascii=False, default=str)
    return (dl(items) + f'<details class="raw"><summary>manifest.json</summary><pre>{e(raw)}'
            "</pre></details>")


def sample_metric_table(rows: Sequence[tuple[str, dict[str, Any]]],
                        metrics: Sequence[Any]) -> str:
    """One row per run for one sample: every metric, then flags (missing, malformed, error)."""
    head = "".join(f"<th>{e(m.header())}</th>" for m in metrics)
    out = [f'<table class="sample-metrics"><thead><tr><th>run</th>{head}<th>flags</th></tr>'
           "</thead><tbody>"]
    for name, row in rows:
        cells = []
        status = str(row.get("status") or "scored")     # scores.jsonl's (core.status)
        for m in metrics:
            value = row.get(m.key)
            value = value if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and status != "error" else None           # an errored sample has no result
            cells.append(f'<td data-key="{e(m.key)}" data-value="'
                         f'{"" if value is None else repr(value)}">{e(m.format(value))}</td>')
        kind = next((k for k in ("missing", "malformed") if status == k or row.get(k)), None)
        word = kind or ("error" if status in ("scored", "error") else status)
        flags = [kind] if kind and not (row.get("error") and status != "oversized") else []
        if row.get("unscorable"):
            flags.append(f"unscorable: {row['unscorable']}")
        if row.get("judge_unscored"):
            flags.append(f"judge unscored: {row['judge_unscored']}")
        if row.get("suspected_injection"):
            flags.append("suspected injection: " + ", ".join(map(str,
                                                                  row["suspected_injection"])))
        if status == "oversized":
            flags.append(str(row.get("error") or "oversized"))
        elif row.get("error"):                   # the status word, then its text
            flags.append(f"{word}: {row['error']}")
        if not row:
            flags.append("no row for this sample")
        out.append(f"<tr><th>{e(name)}</th>{''.join(cells)}<td class='flags'>"
                   f"{e('; '.join(flags))}{badge_html(row)}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _with_interval(cell: str) -> str:
    """A cell's text, its ' ±h' (half the 95% interval's width) in a quieter span."""
    mean, sep, half = cell.partition(" ±")
    if not sep:
        return e(cell)
    return (f"{e(mean)}<span class=\"ci\" title=\"± half the 95% bootstrap interval\">"
            f" ±{e(half)}</span>")
