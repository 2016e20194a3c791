"""Bar charts: grouped vertical bars (a group per category, a bar per series) and horizontal
100% stacked bars (a bar per row, a segment per status)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from scholarbench.report.svg.base import (PALETTE, PUBLISHED_COLOUR, _Frame, _axes, _e, _finish,
                                          _hatch, _open, _range, _tick_label, _title, legend_room,
                                          nice_ticks)


@dataclass
class BarSeries:
    name: str
    values: Sequence[float | None]   # one per category
    colour: str = PALETTE[0]


@dataclass
class BarCategory:
    label: str
    published: bool = False


def grouped_bars(categories: Sequence[BarCategory], series: Sequence[BarSeries], *,
                 y_label: str, title: str = "", y_percent: bool = True,
                 y_range: tuple[float | None, float | None] = (None, None),
                 width: int | None = None, height: int = 320, kind: str = "bars") -> str:
    """One group of bars per category (e.g. per agent), one bar per series (e.g. ARI, ARI∩).
    Published categories are drawn hatched grey with a darker outline per series."""
    values = [v for s in series for v in s.values if v is not None]
    y_lo, y_hi = _range(values + [0.0], *y_range, pad=0.08)
    y_lo = min(0.0, min(values, default=0.0))
    if y_lo < 0 and -y_lo < 0.02 * (y_hi - y_lo):
        y_lo = 0.0          # a sliver below zero (ARI -0.07%) does not earn a negative axis
    y_ticks = nice_ticks(y_lo, y_hi)
    n = max(len(categories), 1)
    group_w = 18 * len(series) + 16
    width = width or max(360, 70 + n * group_w)
    entries = [(s.name, s.colour, "filled") for s in series]
    if any(c.published for c in categories):
        entries.append(("published", PUBLISHED_COLOUR, "hatched"))
    frame = _Frame(width, height, bottom=92, top=30 + legend_room(entries, width),
                   y_lo=y_ticks[0], y_hi=y_ticks[-1])
    parts = _open(width, height, title or y_label, kind)
    uid = _hatch(parts, (title, [c.label for c in categories],
                         [(s.name, list(s.values)) for s in series]))
    _title(parts, frame, title)
    _axes(parts, frame, None, y_ticks, "", y_label, False, y_percent)
    plot_w = width - frame.left - frame.right
    slot = plot_w / n
    bar_w = min(16.0, (slot - 10) / max(len(series), 1))
    zero = frame.y(0.0)
    for ci, cat in enumerate(categories):
        x_start = frame.left + ci * slot + (slot - bar_w * len(series)) / 2
        for si, s in enumerate(series):
            value = s.values[ci]
            if value is None:
                continue
            x = x_start + si * bar_w
            y = frame.y(max(value, frame.y_lo))
            top, h = min(y, zero), abs(zero - y)
            fill = f"url(#{uid})" if cat.published else s.colour
            stroke = s.colour
            parts.append(f'<rect class="bar{" published" if cat.published else " ours"}" '
                         f'x="{x:.1f}" y="{top:.1f}" width="{bar_w - 1:.1f}" '
                         f'height="{max(h, 0.5):.1f}" fill="{fill}" stroke="{stroke}" '
                         f'stroke-width="{1.2 if cat.published else 0}" '
                         f'data-series="{_e(s.name)}" data-category="{_e(cat.label)}" '
                         f'data-value="{value!r}"><title>{_e(cat.label)} — {_e(s.name)}: '
                         f"{_e(_tick_label(value, y_percent, 0.0001))}</title></rect>")
        cx = frame.left + ci * slot + slot / 2
        cy = height - frame.bottom + 10
        fill = "#777" if cat.published else "#111"
        parts.append(f'<text transform="translate({cx:.1f} {cy}) rotate(-35)" '
                     f'text-anchor="end" font-size="10.5" fill="{fill}">{_e(cat.label)}</text>')
    parts.append(f'<line x1="{frame.left}" x2="{width - frame.right}" y1="{zero:.1f}" '
                 f'y2="{zero:.1f}" stroke="#333"/>')
    return _finish(parts, frame, entries, hatch=uid)


@dataclass
class StackSegment:
    """One status of a stacked bar (e.g. "correct"): its name and fill; `hatched` draws it
    as a grey hatch (a status that is not a judgement, e.g. unscored)."""
    name: str
    colour: str
    hatched: bool = False


@dataclass
class StackRow:
    label: str
    counts: Sequence[int]     # one per segment
    published: bool = False


def stacked_bars(rows: Sequence[StackRow], segments: Sequence[StackSegment], *,
                 title: str = "", x_label: str = "share of checklist requirements",
                 width: int = 620, kind: str = "stacked") -> str:
    """Horizontal 100% stacked bars, one per row (e.g. per run), segments in order; each
    segment is labelled with its share when wide enough and carries its count in `data-count`
    and a tooltip. The total is printed at the bar's end."""
    label_w = min(220, max(90, 7 * max((len(r.label) for r in rows), default=8) + 12))
    entries = [(s.name, s.colour, "hatched" if s.hatched else "square") for s in segments]
    top = 30 + legend_room(entries, width, label_w)
    bar_h, gap = 20, 9
    height = top + len(rows) * (bar_h + gap) + 40
    frame = _Frame(width, height, left=label_w, right=64, top=top, bottom=40)
    parts = _open(width, height, title or x_label, kind)
    uid = _hatch(parts, (title, [(r.label, list(r.counts)) for r in rows]))
    _title(parts, frame, title)
    x0, x1 = frame.left, width - frame.right
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = x0 + tick * (x1 - x0)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{height - 36}" '
                     'stroke="#e6e6e6"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 22}" text-anchor="middle" '
                     f'fill="#444">{int(tick * 100)}%</text>')
    parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{height - 6}" text-anchor="middle" '
                 f'fill="#222">{_e(x_label)}</text>')
    for ri, row in enumerate(rows):
        y = top + ri * (bar_h + gap)
        total = sum(row.counts)
        label = row.label if len(row.label) <= 34 else row.label[:33] + "…"
        parts.append(f'<text x="{x0 - 8}" y="{y + bar_h / 2 + 4:.1f}" text-anchor="end" '
                     f'fill="{"#777" if row.published else "#111"}">{_e(label)}'
                     f"<title>{_e(row.label)}</title></text>")
        x = float(x0)
        for seg, count in zip(segments, row.counts):
            share = count / total if total else 0.0
            w = share * (x1 - x0)
            fill = f"url(#{uid})" if seg.hatched else seg.colour
            parts.append(f'<rect class="bar seg" x="{x:.1f}" y="{y}" width="{max(w, 0):.1f}" '
                         f'height="{bar_h}" fill="{fill}" stroke="#ffffff" stroke-width="0.6" '
                         f'data-row="{_e(row.label)}" data-segment="{_e(seg.name)}" '
                         f'data-count="{count}" data-share="{share!r}"><title>{_e(row.label)} '
                         f"— {_e(seg.name)}: {count} of {total} ({share * 100:.1f}%)</title>"
                         "</rect>")
            if w >= 34:
                ink = "#222" if seg.hatched else "#ffffff"
                parts.append(f'<text x="{x + w / 2:.1f}" y="{y + bar_h / 2 + 4:.1f}" '
                             f'text-anchor="middle" font-size="10.5" fill="{ink}">'
                             f"{share * 100:.1f}%</text>")
            x += w
        parts.append(f'<text x="{x1 + 6}" y="{y + bar_h / 2 + 4:.1f}" fill="#555" '
                     f'font-size="10.5">n={total:,}</text>')
    return _finish(parts, frame, entries, hatch=uid)
