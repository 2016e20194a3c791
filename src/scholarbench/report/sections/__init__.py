"""Per-benchmark report sections, dispatched on a run's manifest["benchmark"].

One module per benchmark (`taxobench`, `researcharena`; DeepSynth-Eval, ReportBench and SciNet
add `deepsynth_eval.py`, `reportbench.py`, `scinet.py`), each registering a `ReportSection`
subclass with `@register_section`; see `base.py` for what a section provides.
"""
from scholarbench.report.sections.base import (MetricDisplay, ReportRun, ReportSection,
                                               by_benchmark, load_report_run, load_report_runs,
                                               register_section, section_for)

__all__ = ["MetricDisplay", "ReportRun", "ReportSection", "by_benchmark", "load_report_run",
           "load_report_runs", "register_section", "section_for"]
