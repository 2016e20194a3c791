"""Per-benchmark report sections, dispatched on a run's manifest["benchmark"].

One module per benchmark, named after manifest["benchmark"] (`taxobench`, `researcharena`,
`deepsynth`, `reportbench`, `scinet`), each registering a `ReportSection` subclass with
`@register_section`; see `base.py` for what a section provides. Report order: TaxoBench (10),
ResearchArena (20), DeepSynth-Eval (30), ReportBench (40), SciNet (50).
"""
from scholarbench.report.sections.base import (MetricDisplay, ReportRun, ReportSection,
                                               by_benchmark, load_report_run, load_report_runs,
                                               register_section, section_for)

__all__ = ["MetricDisplay", "ReportRun", "ReportSection", "by_benchmark", "load_report_run",
           "load_report_runs", "register_section", "section_for"]
