"""Box-and-strip charts: per group a box (quartiles, median, whiskers), the samples as dots
(at most `base.MAX_SAMPLE_MARKS`, spread over the sorted values, the count shown) and the mean
as a diamond."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from scholarbench.report.svg.base import (PALETTE, _Frame, _axes, _clamp, _e, _finish, _open,
                                          _range, _tick_label, _title, nice_ticks,
                                          MAX_SAMPLE_MARKS, spread_sample)


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
            order = sorted(range(len(g.values)), key=lambda i: g.values[i])
            shown = [order[k] for k in spread_sample(len(order))]
            for i in sorted(shown):
                v = g.values[i]
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
        drawn = min(len(vals), MAX_SAMPLE_MARKS)
        sub = f"n={len(vals)}" + (f", {g.n_null} undef." if g.n_null else "") + \
            (f", {drawn} dots" if drawn < len(vals) else "")
        parts.append(f'<text x="{cx:.1f}" y="{height - frame.bottom + 30}" '
                     f'text-anchor="middle" font-size="9.5" fill="#666">{_e(sub)}</text>')
    return _finish(parts, frame)
