"""Line charts (e.g. mean Recall@K against K), optionally on a log x axis."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from scholarbench.report.svg.base import (PALETTE, _Frame, _axes, _e, _finish, _num, _open, _range,
                                          _title, legend_room, nice_ticks)


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
