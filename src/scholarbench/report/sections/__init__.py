"""Report sections, dispatched on a run's manifest["benchmark"] through the one registry.

Each benchmark package registers its `ReportSection` (`@register_section`, in its `report`
module, or a factory); see `base.py` for what a section provides. A benchmark that brings none
gets `generic.GenericSection` (one leaderboard per sub-task from summary.json). Report order:
TaxoBench (10), ResearchArena (20), DeepSynth-Eval (30), ReportBench (40), SciNet (50), others.
"""
from scholarbench.report.sections.base import (ReportRun, ReportSection, by_benchmark,
                                               load_report_run, load_report_runs,
                                               register_section, section_for)

__all__ = ["ReportRun", "ReportSection", "by_benchmark", "load_report_run",
           "load_report_runs", "register_section", "section_for"]
