"""report: leaderboards (terminal, Markdown, CSV, LaTeX), the self-contained HTML report,
run comparisons with confidence intervals, TREC and BibTeX exports (docs/reports.md)."""
from scholarbench.report.compare import compare_runs, format_comparison
from scholarbench.report.exports import (export_bibtex, export_tables, export_trec,
                                         leaderboard_text)
from scholarbench.report.html import render_html_report, write_html_report

__all__ = ["compare_runs", "format_comparison", "export_bibtex", "export_tables", "export_trec",
           "leaderboard_text", "render_html_report", "write_html_report"]
