"""What every chart shares: the palette, escaping, tick values and labels, the plot frame and its
scales, the SVG opening, title, axes, legend, hatch pattern and closing. The underscored names
are for this package's chart modules only."""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Sequence

from scholarbench.text.escape import html as html_text

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C6D1F",
           "#000000")
PUBLISHED_COLOUR = "#8a8a8a"
FONT = "font-family=\"'Helvetica Neue', Helvetica, Arial, sans-serif\""


# At most this many per-sample marks (dots) in one group of a chart: a chart's size is bounded
# whatever the number of samples (its box, mean and counts still use every sample).
MAX_SAMPLE_MARKS = 240


def spread_sample(n: int, cap: int = MAX_SAMPLE_MARKS) -> list[int]:
    """Indices of at most `cap` of `n` items, evenly spaced and including the first and last,
    so the marks of items sorted by value still cover the whole range (deterministic)."""
    if n <= cap:
        return list(range(n))
    if cap <= 1:
        return [0][:cap]
    return sorted({round(i * (n - 1) / (cap - 1)) for i in range(cap)})


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


_e = html_text   # text.escape.html: escaped, controls and bidi removed


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


def _decimals(step: float) -> int:
    """The fewest decimals (≤ 3) that print every multiple of `step` exactly, so ticks
    0, 2.5, 5, 7.5, 10 do not round to 0, 2, 5, 8, 10."""
    for d in range(3):
        if abs(round(step, d) - step) <= 1e-9 * max(1.0, abs(step)):
            return d
    return 3


def _tick_label(value: float, percent: bool, step: float) -> str:
    if percent:
        return f"{value * 100:.{_decimals(step * 100)}f}%"
    return f"{value:.{_decimals(step)}f}"


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


def _hatch(parts: list[str], content: object) -> str:
    """Adds the grey hatch pattern and returns its id, unique to the chart's `content`: several
    charts in one page never clash, and the same input gives the same SVG."""
    uid = "hatch-" + hashlib.sha1(repr(content).encode()).hexdigest()[:10]
    parts.append(f'<defs><pattern id="{uid}" patternUnits="userSpaceOnUse" width="5" height="5" '
                 'patternTransform="rotate(45)"><rect width="5" height="5" fill="#ffffff"/>'
                 '<line x1="0" y1="0" x2="0" y2="5" stroke="#9a9a9a" stroke-width="2"/>'
                 '</pattern></defs>')
    return uid
