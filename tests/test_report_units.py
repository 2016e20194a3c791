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


def test_a_distribution_chart_has_a_fixed_size_whatever_the_sample_count():
    """Issue 37: a box-and-strip chart of 50,000 samples draws at most MAX_SAMPLE_MARKS dots,
    spread over the sorted values (the smallest and the largest among them), says how many it
    drew, and its box and mean still come from every sample."""
    from scholarbench.report.svg.base import MAX_SAMPLE_MARKS, spread_sample
    values = [i / 49_999 for i in range(50_000)]
    small = svg.box_strip([svg.StripGroup("run", values[:100])])
    big = svg.box_strip([svg.StripGroup("run", values, [str(i) for i in range(50_000)])])
    dots = re.findall(r'class="sample"[^>]*data-value="([^"]+)"', big)
    assert len(dots) == MAX_SAMPLE_MARKS
    assert min(map(float, dots)) == 0.0 and max(map(float, dots)) == 1.0
    assert f"n=50000, {MAX_SAMPLE_MARKS} dots" in big and "dots" not in small
    assert len(re.findall(r'class="sample"', small)) == 100       # under the cap: every one
    assert len(big) < 3 * len(small) + 20_000
    mean = re.search(r"<title>mean ([^<]+)</title>", big).group(1)
    assert mean == "50.00%"
    assert spread_sample(5, 3) == [0, 2, 4] and spread_sample(3, 10) == [0, 1, 2]


def test_a_scatter_thins_each_runs_sample_dots_and_keeps_every_mean():
    from scholarbench.report.svg.base import MAX_SAMPLE_MARKS
    points = [svg.Point(i / 999, (i * 7 % 1000) / 999, small=True, colour=c)
              for c in ("#000001", "#000002") for i in range(1000)]
    points += [svg.Point(0.5, 0.5, "run A", colour="#000001"),
               svg.Point(0.6, 0.4, "run B", colour="#000002"),
               svg.Point(0.3, 0.3, "paper", published=True)]
    markup = svg.scatter(points, x_label="x", y_label="y")
    assert len(re.findall(r'class="point sample"', markup)) == 2 * MAX_SAMPLE_MARKS
    assert len(re.findall(r'class="point (?:ours|published)"', markup)) == 3
    assert f"{2 * MAX_SAMPLE_MARKS} of 2000 sample dots drawn" in markup
    few = svg.scatter(points[:10] + points[-3:], x_label="x", y_label="y")
    assert "dots drawn" not in few and len(re.findall(r'class="point sample"', few)) == 10
