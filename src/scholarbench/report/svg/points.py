"""Scatter plots: points with tooltips and `data-*` attributes, labels placed where they overlap
nothing."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from scholarbench.report.svg.base import (PALETTE, PUBLISHED_COLOUR, _Frame, _axes, _clamp, _e,
                                          _finish, _open, _range, _title, legend_room, nice_ticks,
                                          spread_sample)


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
            clamp: tuple[float | None, float | None] = (None, None),
            front: Sequence[tuple[float, float]] = ()) -> str:
    """A scatter plot; `diagonal` draws y = x (e.g. homogeneity = completeness) and gives both
    axes the same range; `clamp` keeps the padded axes inside the metrics' range. Per-sample
    dots (`small`) beyond `base.MAX_SAMPLE_MARKS` per colour are thinned to that many, spread
    over their order along x, and the note says so. `front`: a line through these points in
    order, drawn as steps under the points (a Pareto front)."""
    points, thinned = _thin_samples(points)
    if thinned:
        note = (note + "; " if note else "") + thinned
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
    if len(front) > 1:
        steps = [front[0]] + [q for a, b in zip(front, front[1:]) for q in ((b[0], a[1]), b)]
        coords = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in steps)
        parts.append(f'<polyline class="front" points="{coords}" fill="none" stroke="#555" '
                     'stroke-width="1.2" stroke-dasharray="5 3"/>')
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


def _thin_samples(points: Sequence[Point]) -> tuple[list[Point], str]:
    """The points with at most `MAX_SAMPLE_MARKS` per-sample dots of each colour (a run), and
    a note of how many are drawn ("" when none was left out)."""
    by_colour: dict[str, list[Point]] = {}
    for p in points:
        if p.small:
            by_colour.setdefault(p.colour, []).append(p)
    keep: set[int] = set()
    total = drawn = 0
    for dots in by_colour.values():
        dots = sorted(dots, key=lambda p: (p.x, p.y))
        chosen = spread_sample(len(dots))
        keep.update(id(dots[k]) for k in chosen)
        total, drawn = total + len(dots), drawn + len(chosen)
    out = [p for p in points if not p.small or id(p) in keep]
    return out, (f"{drawn} of {total} sample dots drawn" if drawn < total else "")


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
