"""Small static SVG charts for the HTML report: scatter, grouped bars, box-and-strip, lines.

Hand-written SVG rather than a plotting library: the report stays one file with no script and no
extra dependency, every mark carries a `<title>` tooltip (system, sample id, value), and tests can
read the marks back (`data-*` attributes). Every text that reaches the SVG is escaped here.
Colours are the Okabe–Ito colour-blind-safe palette; published points and bars are grey and
hollow or hatched, ours filled.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from html import escape
from typing import Sequence

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C6D1F",
           "#000000")
PUBLISHED_COLOUR = "#8a8a8a"
FONT = "font-family=\"'Helvetica Neue', Helvetica, Arial, sans-serif\""


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (steps 1, 2, 2.5 or 5 × 10^k)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    start = math.floor(lo / step + 1e-9) * step
    ticks = []
    value = start
    while value <= hi + step * 1e-6:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < hi - 1e-12:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _tick_label(value: float, percent: bool, step: float) -> str:
    if percent:
        decimals = 0 if step * 100 >= 1 else 1
        return f"{value * 100:.{decimals}f}%"
    decimals = 0 if step >= 1 else (1 if step >= 0.1 else 2)
    return f"{value:.{decimals}f}"


def _step(ticks: Sequence[float]) -> float:
    return (ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0


def _clamp(lo: float, hi: float, clamp: tuple[float | None, float | None]
           ) -> tuple[float, float]:
    """(lo, hi) kept inside `clamp` (either end None: that end is free)."""
    if clamp[0] is not None:
        lo = max(lo, clamp[0])
    if clamp[1] is not None:
        hi = min(hi, clamp[1])
    return lo, hi


@dataclass
class _Frame:
    """Plot area geometry and linear scales."""
    width: int
    height: int
    left: int = 58
    right: int = 16
    top: int = 30
    bottom: int = 46
    x_lo: float = 0.0
    x_hi: float = 1.0
    y_lo: float = 0.0
    y_hi: float = 1.0

    def x(self, value: float) -> float:
        span = self.x_hi - self.x_lo or 1.0
        return self.left + (value - self.x_lo) / span * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        span = self.y_hi - self.y_lo or 1.0
        return self.height - self.bottom - (value - self.y_lo) / span * (
            self.height - self.top - self.bottom)


def _open(width: int, height: int, title: str, kind: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="{_e(kind)}" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'{FONT} font-size="11">',
            f"<title>{_e(title)}</title>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']


def _title(parts: list[str], frame: _Frame, title: str) -> None:
    if title:
        parts.append(f'<text x="{frame.left}" y="16" font-size="12" font-weight="600" '
                     f'fill="#222">{_e(title)}</text>')


def _axes(parts: list[str], frame: _Frame, x_ticks: Sequence[float] | None,
          y_ticks: Sequence[float], x_label: str, y_label: str, x_percent: bool,
          y_percent: bool, grid: bool = True) -> None:
    x0, x1 = frame.left, frame.width - frame.right
    y0, y1 = frame.top, frame.height - frame.bottom
    y_step = _step(y_ticks)
    for tick in y_ticks:
        y = frame.y(tick)
        if grid:
            parts.append(f'<line x1="{x0}" x2="{x1}" y1="{y:.1f}" y2="{y:.1f}" '
                         'stroke="#e6e6e6" stroke-width="1"/>')
        parts.append(f'<text x="{x0 - 6}" y="{y + 3.5:.1f}" text-anchor="end" fill="#444">'
                     f"{_e(_tick_label(tick, y_percent, y_step))}</text>")
    if x_ticks is not None:
        x_step = _step(x_ticks)
        for tick in x_ticks:
            x = frame.x(tick)
            if grid:
                parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y0}" y2="{y1}" '
                             'stroke="#f0f0f0" stroke-width="1"/>')
            parts.append(f'<text x="{x:.1f}" y="{y1 + 15}" text-anchor="middle" fill="#444">'
                         f"{_e(_tick_label(tick, x_percent, x_step))}</text>")
    parts.append(f'<line x1="{x0}" x2="{x1}" y1="{y1}" y2="{y1}" stroke="#333"/>')
    parts.append(f'<line x1="{x0}" x2="{x0}" y1="{y0}" y2="{y1}" stroke="#333"/>')
    if x_label:
        parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{frame.height - 8}" '
                     f'text-anchor="middle" fill="#222">{_e(x_label)}</text>')
    if y_label:
        cy = (y0 + y1) / 2
        parts.append(f'<text transform="translate(14 {cy:.1f}) rotate(-90)" '
                     f'text-anchor="middle" fill="#222">{_e(y_label)}</text>')


def _range(values: Sequence[float], lo: float | None, hi: float | None,
           pad: float = 0.05) -> tuple[float, float]:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if lo is None or hi is None:
        if not finite:
            return (lo if lo is not None else 0.0, hi if hi is not None else 1.0)
        a, b = min(finite), max(finite)
        span = (b - a) or (abs(b) or 1.0)
        lo = a - pad * span if lo is None else lo
        hi = b + pad * span if hi is None else hi
    return lo, hi


def _legend(parts: list[str], frame: _Frame, entries: Sequence[tuple[str, str, str]],
            hatch: str = "") -> None:
    """entries: (label, colour, "filled" | "hollow" | "hatched" | "line"), in a row between the
    title and the plot area (the frame reserves the room: `legend_room`)."""
    if not entries:
        return
    x = float(frame.left)
    rows = (legend_room(entries, frame.width, frame.left) - 4) // 14
    y = frame.top - 13 - 14 * (rows - 1)     # the rows end just above the plot area
    for label, col, style in entries:
        width = len(label) * 6.0 + 26
        if x + width > frame.width - 4 and x > frame.left:
            x = float(frame.left)
            y += 14
        sx = x + 5
        if style == "line":
            parts.append(f'<line x1="{sx - 5:.1f}" x2="{sx + 5:.1f}" y1="{y}" y2="{y}" '
                         f'stroke="{col}" stroke-width="2"/>')
        elif style == "hatched":
            parts.append(f'<rect x="{sx - 5:.1f}" y="{y - 5}" width="10" height="10" '
                         f'fill="url(#{hatch})" stroke="{col}"/>')
        elif style == "square":
            parts.append(f'<rect x="{sx - 5:.1f}" y="{y - 5}" width="10" height="10" '
                         f'fill="{col}"/>')
        else:
            fill = col if style == "filled" else "#ffffff"
            parts.append(f'<circle cx="{sx:.1f}" cy="{y}" r="4" fill="{fill}" '
                         f'stroke="{col}" stroke-width="1.5"/>')
        parts.append(f'<text x="{sx + 9:.1f}" y="{y + 3.5}" fill="#222">{_e(label)}</text>')
        x += width


def _finish(parts: list[str], frame: _Frame, legend: Sequence[tuple[str, str, str]] = (),
            hatch: str = "") -> str:
    """The chart's SVG text: its marks, then the legend, closed."""
    _legend(parts, frame, legend, hatch)
    parts.append("</svg>")
    return "\n".join(parts)


def legend_room(entries: Sequence[tuple[str, str, str]], width: int, left: int = 58) -> int:
    """Pixels the legend rows need above the plot area."""
    if not entries:
        return 0
    rows, x = 1, float(left)
    for label, _, _ in entries:
        w = len(label) * 6.0 + 26
        if x + w > width - 4 and x > left:
            rows, x = rows + 1, float(left)
        x += w
    return 14 * rows + 4


@dataclass
class Point:
    x: float
    y: float
    label: str = ""           # printed beside the point ("" = none)
    colour: str = PALETTE[0]
    published: bool = False   # hollow grey marker
    tooltip: str = ""
    small: bool = False       # a per-sample dot under the per-run means
    data: dict[str, str] = field(default_factory=dict)


def scatter(points: Sequence[Point], *, x_label: str, y_label: str, title: str = "",
            x_range: tuple[float | None, float | None] = (None, None),
            y_range: tuple[float | None, float | None] = (None, None),
            x_percent: bool = True, y_percent: bool = True, diagonal: bool = False,
            note: str = "", legend: Sequence[tuple[str, str, str]] = (),
            width: int = 420, height: int = 330, kind: str = "scatter",
            clamp: tuple[float | None, float | None] = (None, None)) -> str:
    """A scatter plot; `diagonal` draws y = x (e.g. homogeneity = completeness) and gives both
    axes the same range; `clamp` keeps the padded axes inside the metrics' range."""
    xs = [p.x for p in points]
    ys = [p.y for p in points]
    x_lo, x_hi = _range(xs + ([*ys] if diagonal else []), *x_range)
    y_lo, y_hi = _range(ys + ([*xs] if diagonal else []), *y_range)
    x_lo, x_hi = _clamp(x_lo, x_hi, clamp)
    y_lo, y_hi = _clamp(y_lo, y_hi, clamp)
    x_ticks, y_ticks = nice_ticks(x_lo, x_hi), nice_ticks(y_lo, y_hi)
    frame = _Frame(width, height, bottom=46 + (14 if note else 0),
                   top=30 + legend_room(legend, width),
                   x_lo=min(x_ticks[0], x_lo), x_hi=max(x_ticks[-1], x_hi),
                   y_lo=min(y_ticks[0], y_lo), y_hi=max(y_ticks[-1], y_hi))
    parts = _open(width, height, title or f"{y_label} vs {x_label}", kind)
    _title(parts, frame, title)
    _axes(parts, frame, x_ticks, y_ticks, x_label, y_label, x_percent, y_percent)
    if diagonal:
        lo = max(frame.x_lo, frame.y_lo)
        hi = min(frame.x_hi, frame.y_hi)
        parts.append(f'<line class="diagonal" x1="{frame.x(lo):.1f}" y1="{frame.y(lo):.1f}" '
                     f'x2="{frame.x(hi):.1f}" y2="{frame.y(hi):.1f}" stroke="#999" '
                     'stroke-dasharray="4 3"/>')
    # samples, then published, then our means on top
    for p in sorted(points, key=lambda p: (not p.small, not p.published)):
        cx, cy = frame.x(p.x), frame.y(p.y)
        attrs = "".join(f' data-{_e(k)}="{_e(v)}"' for k, v in p.data.items())
        if p.published:
            mark = (f'<circle class="point published" cx="{cx:.1f}" cy="{cy:.1f}" r="4" '
                    f'fill="#ffffff" stroke="{PUBLISHED_COLOUR}" stroke-width="1.4"{attrs}>')
        elif p.small:
            mark = (f'<circle class="point sample" cx="{cx:.1f}" cy="{cy:.1f}" r="2.4" '
                    f'fill="{p.colour}" fill-opacity="0.35"{attrs}>')
        else:
            mark = (f'<circle class="point ours" cx="{cx:.1f}" cy="{cy:.1f}" r="4.5" '
                    f'fill="{p.colour}" fill-opacity="0.85" stroke="#ffffff" '
                    f'stroke-width="0.8"{attrs}>')
        parts.append(mark + f"<title>{_e(p.tooltip or p.label)}</title></circle>")
    parts.extend(_labels(points, frame))
    if note:
        parts.append(f'<text x="{frame.left}" y="{height - 26}" font-size="10.5" '
                     f'fill="#333">{_e(note)}</text>')
    return _finish(parts, frame, legend)


def _labels(points: Sequence[Point], frame: _Frame) -> list[str]:
    """Point labels placed right, left, above or below their point, whichever first overlaps
    no other label and stays inside the plot; ours are placed before published ones, and a
    label with no free place is left out (the point's tooltip still names it)."""
    placed: list[tuple[float, float, float, float]] = []
    out = []
    x_min, x_max = frame.left, frame.width - frame.right + 10
    y_min, y_max = frame.top - 4, frame.height - frame.bottom + 4
    for p in sorted((p for p in points if p.label), key=lambda p: p.published):
        size = 9.5 if p.published else 10.5
        w, h = len(p.label) * size * 0.56, size
        cx, cy = frame.x(p.x), frame.y(p.y)
        for anchor, x0, y0 in (("start", cx + 7, cy - h / 2), ("end", cx - 7 - w, cy - h / 2),
                               ("middle", cx - w / 2, cy - 7 - h), ("middle", cx - w / 2, cy + 7)):
            box = (x0, y0, x0 + w, y0 + h)
            inside = x0 >= x_min and box[2] <= x_max and y0 >= y_min and box[3] <= y_max
            if inside and not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3]
                                  and b[1] < box[3] for b in placed):
                placed.append(box)
                tx = {"start": x0, "end": x0 + w, "middle": x0 + w / 2}[anchor]
                fill = "#777" if p.published else "#111"
                out.append(f'<text class="point-label" x="{tx:.1f}" y="{y0 + h - 1.5:.1f}" '
                           f'text-anchor="{anchor}" font-size="{size}" fill="{fill}">'
                           f"{_e(p.label)}</text>")
                break
    return out


@dataclass
class BarSeries:
    name: str
    values: Sequence[float | None]   # one per category
    colour: str = PALETTE[0]


@dataclass
class BarCategory:
    label: str
    published: bool = False


def _hatch(parts: list[str], content: object) -> str:
    """Adds the grey hatch pattern and returns its id, unique to the chart's `content`: several
    charts in one page never clash, and the same input gives the same SVG."""
    uid = "hatch-" + hashlib.sha1(repr(content).encode()).hexdigest()[:10]
    parts.append(f'<defs><pattern id="{uid}" patternUnits="userSpaceOnUse" width="5" height="5" '
                 'patternTransform="rotate(45)"><rect width="5" height="5" fill="#ffffff"/>'
                 '<line x1="0" y1="0" x2="0" y2="5" stroke="#9a9a9a" stroke-width="2"/>'
                 '</pattern></defs>')
    return uid


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


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclass
class StripGroup:
    name: str
    values: Sequence[float]            # defined values only
    ids: Sequence[str] = ()            # sample ids, for tooltips
    colour: str = PALETTE[0]
    n_null: int = 0


def box_strip(groups: Sequence[StripGroup], *, y_label: str = "", title: str = "",
              y_percent: bool = True,
              y_range: tuple[float | None, float | None] = (None, None),
              clamp: tuple[float | None, float | None] = (None, None),
              width: int | None = None, height: int = 250, kind: str = "distribution") -> str:
    """Per group: a box (quartiles, median; whiskers to min/max) and every sample as a dot
    (deterministic jitter), the mean as a diamond; undefined samples counted under the name.
    `clamp` keeps the padded axis inside the metric's range (e.g. [0, 1])."""
    values = [v for g in groups for v in g.values]
    y_lo, y_hi = _range(values, *y_range)
    y_lo, y_hi = _clamp(y_lo, y_hi, clamp)
    if y_hi <= y_lo:
        y_hi = y_lo + 1.0
    y_ticks = [t for t in nice_ticks(y_lo, y_hi, 4)
               if (clamp[0] is None or t >= clamp[0] - 1e-9)
               and (clamp[1] is None or t <= clamp[1] + 1e-9)] or [y_lo, y_hi]
    n = max(len(groups), 1)
    width = width or max(200, 64 + n * 74)
    frame = _Frame(width, height, bottom=58, y_lo=min(y_ticks[0], y_lo),
                   y_hi=max(y_ticks[-1], y_hi))
    parts = _open(width, height, title or y_label, kind)
    _title(parts, frame, title)
    _axes(parts, frame, None, y_ticks, "", y_label, False, y_percent)
    slot = (width - frame.left - frame.right) / n
    for gi, g in enumerate(groups):
        cx = frame.left + slot * (gi + 0.5)
        vals = sorted(g.values)
        if vals:
            q1, med, q3 = (_quantile(vals, q) for q in (0.25, 0.5, 0.75))
            bw = min(34.0, slot * 0.5)
            parts.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{frame.y(vals[0]):.1f}" '
                         f'y2="{frame.y(vals[-1]):.1f}" stroke="#555"/>')
            parts.append(f'<rect class="box" x="{cx - bw / 2:.1f}" y="{frame.y(q3):.1f}" '
                         f'width="{bw:.1f}" height="{max(frame.y(q1) - frame.y(q3), 0.5):.1f}" '
                         f'fill="{g.colour}" fill-opacity="0.15" stroke="{g.colour}"/>')
            parts.append(f'<line x1="{cx - bw / 2:.1f}" x2="{cx + bw / 2:.1f}" '
                         f'y1="{frame.y(med):.1f}" y2="{frame.y(med):.1f}" '
                         f'stroke="{g.colour}" stroke-width="2"/>')
            for i, v in enumerate(g.values):
                jitter = ((i * 0.618034) % 1.0 - 0.5) * min(26.0, slot * 0.4)
                sid = g.ids[i] if i < len(g.ids) else ""
                parts.append(f'<circle class="sample" cx="{cx + jitter:.1f}" '
                             f'cy="{frame.y(v):.1f}" r="2.6" fill="{g.colour}" '
                             f'fill-opacity="0.75" data-sample="{_e(sid)}" '
                             f'data-value="{v!r}"><title>{_e(g.name)} · sample {_e(sid)}: '
                             f"{_e(_tick_label(v, y_percent, 0.0001))}</title></circle>")
            mean = sum(vals) / len(vals)
            my = frame.y(mean)
            parts.append(f'<path class="mean" d="M{cx + bw / 2 + 6:.1f} {my:.1f} '
                         f'l4 -4 l4 4 l-4 4 z" fill="#111"><title>mean '
                         f"{_e(_tick_label(mean, y_percent, 0.0001))}</title></path>")
        label = g.name if len(g.name) <= 18 else g.name[:17] + "…"
        parts.append(f'<text x="{cx:.1f}" y="{height - frame.bottom + 16}" '
                     f'text-anchor="middle" fill="#111">{_e(label)}<title>{_e(g.name)}'
                     "</title></text>")
        sub = f"n={len(vals)}" + (f", {g.n_null} undef." if g.n_null else "")
        parts.append(f'<text x="{cx:.1f}" y="{height - frame.bottom + 30}" '
                     f'text-anchor="middle" font-size="9.5" fill="#666">{_e(sub)}</text>')
    return _finish(parts, frame)


@dataclass
class LineSeries:
    name: str
    xs: Sequence[float]
    ys: Sequence[float]
    colour: str = PALETTE[0]


def lines(series: Sequence[LineSeries], *, x_label: str, y_label: str, title: str = "",
          y_percent: bool = True, x_percent: bool = False, log_x: bool = False,
          y_range: tuple[float | None, float | None] = (0.0, None),
          width: int = 420, height: int = 300, kind: str = "lines") -> str:
    """Line chart (e.g. mean Recall@K against K); `log_x` plots log10(x) with 1-2-5 ticks."""
    def tx(v: float) -> float:
        return math.log10(v) if log_x else v
    xs = [tx(x) for s in series for x in s.xs]
    ys = [y for s in series for y in s.ys]
    x_lo, x_hi = _range(xs, None, None, pad=0.0)
    y_lo, y_hi = _range(ys, *y_range)
    y_ticks = nice_ticks(y_lo, y_hi)
    entries = [(s.name, s.colour, "line") for s in series]
    frame = _Frame(width, height, top=30 + legend_room(entries, width), x_lo=x_lo, x_hi=x_hi,
                   y_lo=min(y_ticks[0], y_lo), y_hi=max(y_ticks[-1], y_hi))
    parts = _open(width, height, title or y_label, kind)
    _title(parts, frame, title)
    _axes(parts, frame, None, y_ticks, x_label, y_label, x_percent, y_percent)
    if log_x:
        raw_lo, raw_hi = 10 ** x_lo, 10 ** x_hi
        ticks = [m * 10 ** k for k in range(int(math.floor(x_lo)), int(math.ceil(x_hi)) + 1)
                 for m in (1, 2, 5) if raw_lo - 1e-9 <= m * 10 ** k <= raw_hi + 1e-9]
    else:
        ticks = nice_ticks(x_lo, x_hi)
    for t in ticks:
        x = frame.x(tx(t))
        parts.append(f'<text x="{x:.1f}" y="{height - frame.bottom + 15}" text-anchor="middle" '
                     f'fill="#444">{_e(_num(t))}</text>')
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{height - frame.bottom}" '
                     f'y2="{height - frame.bottom + 4}" stroke="#333"/>')
    for s in series:
        if not s.xs:
            continue
        d = " ".join(f"{'M' if i == 0 else 'L'}{frame.x(tx(x)):.1f} {frame.y(y):.1f}"
                     for i, (x, y) in enumerate(zip(s.xs, s.ys)))
        parts.append(f'<path class="line" d="{d}" fill="none" stroke="{s.colour}" '
                     f'stroke-width="2" data-series="{_e(s.name)}"><title>{_e(s.name)}</title>'
                     "</path>")
    return _finish(parts, frame, entries)


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
