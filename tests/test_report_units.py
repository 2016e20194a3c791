"""Units and axes a new user reads (issue 35): axis ticks print exactly (SciNet's 0–10 box
plots read 0.0, 2.5, 5.0, 7.5, 10.0 — not 0, 2, 5, 8, 10), and the Judges table prints a percent
measure with its sign (DeepSynth's section prints it bare under a "(%)" header)."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from scholarbench.report import svg
from scholarbench.report.svg.base import _tick_label


def _y_labels(markup: str) -> list[str]:
    return re.findall(r'text-anchor="end" fill="#444">([^<]*)</text>', markup)


def test_scinet_box_plot_ticks_on_0_to_10_are_exact():
    from scholarbench.benchmarks.scinet.report_display import COLUMNS
    d = COLUMNS["novelty_sos"]
    assert d.bounds == (0.0, 10.0)
    group = svg.StripGroup("run", [1.0, 4.0, 9.5])
    markup = svg.box_strip([group], title=d.label, y_percent=False, clamp=d.bounds,
                           y_range=d.bounds)
    assert _y_labels(markup) == ["0.0", "2.5", "5.0", "7.5", "10.0"]


@pytest.mark.parametrize("value,percent,step,expected", [
    (7.5, False, 2.5, "7.5"), (10.0, False, 2.5, "10.0"), (0.25, False, 0.25, "0.25"),
    (0.4, False, 0.2, "0.4"), (4.0, False, 2.0, "4"), (0.075, True, 0.025, "7.5%"),
    (0.5, True, 0.25, "50%"), (0.002, True, 0.001, "0.2%")])
def test_tick_labels_carry_the_decimals_their_step_needs(value, percent, step, expected):
    assert _tick_label(value, percent, step) == expected


def test_judges_table_prints_deepsynth_percent_with_its_sign():
    from scholarbench.benchmarks.deepsynth.display import COLUMNS
    from scholarbench.report.judges import _display
    run = SimpleNamespace(benchmark="deepsynth", mode="e2e")
    shown = _display(run, "dse_overall")
    assert shown.format(0.4523) == "45.2%"
    assert COLUMNS["dse_overall"].format(0.4523) == "45.2"       # its own table: "(%)" header
    # a measure printed as a fraction stays a fraction
    scinet = _display(SimpleNamespace(benchmark="scinet", mode="pair"), "cite_acc")
    assert "%" not in scinet.format(0.5)
