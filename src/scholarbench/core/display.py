"""How a measure prints: its cell (decimals, ×100 with a sign), its ± interval and its header
arrow. `core.measure.Measure` carries the fields (label, direction, percent, decimals, sign,
bounds) and inherits these methods, so every table, report section, `compare` and the Judges
table print a measure one way; a direction of "none" (a count, a size) draws no arrow and has
no "best" value anywhere.
"""
from __future__ import annotations

from typing import Iterable, Protocol

MISSING = "—"            # an undefined mean, or a measure an older run lacks
ARROWS = {"higher": "↑", "lower": "↓", "none": ""}


def arrow(direction: str) -> str:
    """"↑" for higher-is-better, "↓" for lower, "" for a measure without a direction."""
    return ARROWS[direction]


class _Shown(Protocol):
    key: str
    label: str
    direction: str
    percent: bool
    decimals: int
    sign: str


class Display:
    """The printing methods of a measure (mixed into `Measure`; reads its display fields)."""

    def format(self: _Shown, value: float | None) -> str:
        if value is None:
            return MISSING
        text = (f"{value * 100:.{self.decimals}f}{self.sign}" if self.percent
                else f"{value:.{self.decimals}f}")
        if text.startswith("-") and float(text.rstrip(self.sign or "%")) == 0:
            text = text[1:]
        return text

    def format_with_interval(self: _Shown, value: float | None,
                             ci95: tuple[float, float] | None) -> str:
        """The mean as `format` prints it, then ± half its 95% interval's width (in the same
        unit) when the run has one."""
        text = Display.format(self, value)
        half = None if ci95 is None else (ci95[1] - ci95[0]) / 2
        if value is None or half is None:
            return text
        width = (f"{half * 100:.{self.decimals}f}" if self.percent
                 else f"{half:.{self.decimals}f}")
        return f"{text} ±{width}"

    def header(self: _Shown) -> str:
        """The label with the direction's arrow (none for direction "none")."""
        return self.label + arrow(self.direction)

    @property
    def higher_is_better(self: _Shown) -> bool | None:
        """True / False; None for a measure without a direction."""
        return None if self.direction == "none" else self.direction == "higher"

    @property
    def directional(self: _Shown) -> bool:
        return self.direction != "none"


def best_directions(measures: Iterable[_Shown]) -> dict[str, bool]:
    """key → higher is better, for the measures that have a best value (the HTML tables bold
    it); a measure with direction "none" is left out."""
    return {m.key: m.direction == "higher" for m in measures if m.direction != "none"}


__all__ = ["ARROWS", "Display", "MISSING", "arrow", "best_directions"]
