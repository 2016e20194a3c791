"""Small static SVG charts for the HTML report: scatter, grouped bars, box-and-strip, lines.

Hand-written SVG rather than a plotting library: the report stays one file with no script and no
extra dependency, every mark carries a `<title>` tooltip (system, sample id, value), and tests can
read the marks back (`data-*` attributes). Every text that reaches the SVG is escaped here.
Colours are the Okabe–Ito colour-blind-safe palette; published points and bars are grey and
hollow or hatched, ours filled.

Modules: `base` (palette, frame, axes, legend: what every chart shares), `points` (scatter),
`bars` (grouped and stacked bars), `boxes` (box-and-strip), `linechart` (lines). The charts and
their records are re-exported here: `from scholarbench.report import svg; svg.scatter(...)`.
"""
from __future__ import annotations

from scholarbench.report.svg.bars import (BarCategory, BarSeries, StackRow, StackSegment,
                                          grouped_bars, stacked_bars)
from scholarbench.report.svg.base import (PALETTE, PUBLISHED_COLOUR, colour, legend_room,
                                          nice_ticks)
from scholarbench.report.svg.boxes import StripGroup, box_strip
from scholarbench.report.svg.linechart import LineSeries, lines
from scholarbench.report.svg.points import Point, scatter

__all__ = ["PALETTE", "PUBLISHED_COLOUR", "BarCategory", "BarSeries", "LineSeries", "Point",
           "StackRow", "StackSegment", "StripGroup", "box_strip", "colour", "grouped_bars",
           "legend_room", "lines", "nice_ticks", "scatter", "stacked_bars"]
