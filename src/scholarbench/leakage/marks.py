"""The leakage audit in the HTML drill-downs (docs/leakage.md, docs/reports.md): a sample row's
`suspected leak` badge with its counts, a mark on each returned or cited item the audit
counted (a visible class and a short label naming the rule), and a block listing every
finding — the counted references and, for a report, the quoted title and the abstract's
verbatim spans.

Everything is read from the score row: `suspected_leak` (the counts), `leaked_items` (which
references were counted, `audit.findings`) and `leaked_spans`. Rows of older runs carry the
counts only; they get the badge and the counts, and no item is marked.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from scholarbench.data.identifiers import parse_id
from scholarbench.leakage.audit import id_keys
from scholarbench.text.escape import html as html_text
from scholarbench.text.normalize import normalize_title

RULES = {"survey": "the survey itself", "after_cutoff": "after the cut-off",
         "excluded": "excluded by the task's rule"}
COUNT_WORDS = {"survey": "survey", "after_cutoff": "after cut-off", "excluded": "excluded",
               "title_quoted": "title quoted", "abstract_words": "abstract words"}

LEAK_CSS = """
.leak-badge { font: 600 10.5px/1 "Helvetica Neue", Arial, sans-serif; color: #fff;
  background: #b3261e; border-radius: 3px; padding: 2px 5px; margin-left: 6px;
  white-space: nowrap; vertical-align: 1px; }
.leak-tag { font: 600 10px/1 "Helvetica Neue", Arial, sans-serif; color: #b3261e;
  border: 1px solid #b3261e; border-radius: 3px; padding: 1px 4px; margin-left: 5px;
  white-space: nowrap; vertical-align: 1px; }
li.leak, .paper.leak { background: #fdecea; outline: 1px solid #f2b8b5; }
.leak-findings { border-left: 3px solid #b3261e; background: #fdf6f5; padding: 4px 10px;
  margin: 6px 0 8px; font-size: 12.5px; }
.leak-findings ul { margin: 2px 0; padding-left: 18px; }
.leak-findings q { font-style: italic; }
"""


_e = html_text   # text.escape.html: escaped, controls and bidi removed


def counts_text(counts: Mapping[str, Any]) -> str:
    """'survey 1, after cut-off 2' (the non-zero counts, in the audit's order)."""
    return ", ".join(f"{COUNT_WORDS.get(k, k)} {v}" for k, v in counts.items() if v)


def badge_html(row: Mapping[str, Any] | None) -> str:
    """The `suspected leak` badge with the row's counts; '' for an unflagged row."""
    counts = (row or {}).get("suspected_leak")
    if not isinstance(counts, dict) or not counts:
        return ""
    return (f'<span class="leak-badge" data-leak="{_e(counts_text(counts))}" title="flagged '
            'by the leakage audit (docs/leakage.md); the scores are unchanged">suspected leak: '
            f"{_e(counts_text(counts))}</span>")


def tag_html(rule: str) -> str:
    """The short label an item the audit counted carries."""
    return (f'<span class="leak-tag" data-rule="{_e(rule)}">leak: '
            f"{_e(RULES.get(rule, rule))}</span>")


class LeakMarks:
    """Which items of one sample's answer the audit counted, from its score row."""

    def __init__(self, row: Mapping[str, Any] | None):
        raw = (row or {}).get("leaked_items")
        self.items = [i for i in raw if isinstance(i, dict) and i.get("rule")] \
            if isinstance(raw, list) else []
        self._refs: dict[str, str] = {}
        self._titles: dict[str, str] = {}
        self._ids: dict[str, str] = {}
        for item in self.items:
            rule = str(item["rule"])
            ref = str(item.get("ref") or "")
            self._refs.setdefault(ref, rule)
            named = [ref] if parse_id(ref).kind == "title" and not ref.startswith(
                ("#", "unresolved:")) else []         # a title as written, not a position
            for title in [*named, *(item.get("titles") or [])]:
                if norm := normalize_title(str(title)):
                    self._titles.setdefault(norm, rule)
            own = [] if named or ref.startswith(("#", "unresolved:")) else [ref]
            for key in id_keys([*own, *(str(i) for i in item.get("ids") or [])]):
                self._ids.setdefault(key, rule)

    def __bool__(self) -> bool:
        return bool(self.items)

    def rule_for(self, ref: str | None = None, titles: Iterable[str] = (),
                 ids: Iterable[str] = ()) -> str | None:
        """The rule an answer item was counted under, or None: matched by the reference as
        written, then by a normalised title, then by an id."""
        if ref is not None and str(ref) in self._refs:
            return self._refs[str(ref)]
        for title in titles:
            if (norm := normalize_title(str(title or ""))) and norm in self._titles:
                return self._titles[norm]
        for key in id_keys([str(i) for i in ids]):
            if key in self._ids:
                return self._ids[key]
        return None

    def by_title(self) -> dict[str, str]:
        """normalised title → rule, for a renderer that only sees titles (a taxonomy tree)."""
        return dict(self._titles)


def _item_text(item: Mapping[str, Any]) -> str:
    ref = str(item.get("label") or item.get("ref") or "")
    titles = [str(t) for t in item.get("titles") or [] if t]
    if titles and normalize_title(titles[0]) not in normalize_title(ref):
        return f"{ref} — {titles[0]}"
    return ref


def findings_html(row: Mapping[str, Any] | None, survey_title: str | None = None) -> str:
    """Every finding of a flagged row ('' when not flagged): the counted references with
    their rule, the quoted title and the abstract's verbatim spans."""
    row = row or {}
    counts = row.get("suspected_leak")
    if not isinstance(counts, dict) or not counts:
        return ""
    marks = LeakMarks(row)
    lines = []
    for item in marks.items:
        lines.append(f'<li class="leak" data-rule="{_e(item["rule"])}">{_e(_item_text(item))}'
                     f"{tag_html(str(item['rule']))}</li>")
    if not marks and any(counts.get(k) for k in RULES):
        lines.append('<li class="muted">this run\'s score rows record the counts only (scored '
                     "before the audit listed the items): no item is marked</li>")
    if n := counts.get("title_quoted"):
        lines.append(f'<li class="leak" data-rule="title_quoted">the report quotes the '
                     f"survey's title {_e(n)}×"
                     + (f": <q>{_e(survey_title)}</q>" if survey_title else "")
                     + '<span class="leak-tag" data-rule="title_quoted">leak: title quoted'
                     "</span></li>")
    if n := counts.get("abstract_words"):
        spans = [s for s in row.get("leaked_spans") or [] if isinstance(s, str)]
        shown = "".join(f"<li><q>{_e(s)}</q></li>" for s in spans)
        lines.append(f'<li class="leak" data-rule="abstract_words">{_e(n)} words of the report '
                     "lie in runs of 12+ words verbatim from the survey's abstract"
                     '<span class="leak-tag" data-rule="abstract_words">leak: abstract copied'
                     "</span>" + (f"<ul class='spans'>{shown}</ul>" if shown else "")
                     + "</li>")
    return (f'<div class="leak-findings" data-leak="{_e(counts_text(counts))}">'
            "<b>Suspected leak</b> — the leakage audit (docs/leakage.md) counted:"
            f"<ul>{''.join(lines)}</ul></div>")


__all__ = ["COUNT_WORDS", "LEAK_CSS", "RULES", "LeakMarks", "badge_html", "counts_text",
           "findings_html", "tag_html"]
