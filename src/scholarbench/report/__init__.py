"""report: leaderboards (terminal, Markdown, CSV, LaTeX), the self-contained HTML report,
run comparisons with confidence intervals, TREC and BibTeX exports (docs/reports.md).

The public functions are loaded on first use, so `scholarbench --help` and commands that do not
report import none of the metric libraries."""
from scholarbench.lazy import lazy_getattr

_PUBLIC = {"compare_runs": "compare", "format_comparison": "compare",
           "export_bibtex": "exports", "export_tables": "exports", "export_trec": "exports",
           "leaderboard_text": "exports", "render_html_report": "html",
           "write_html_report": "html"}

__all__ = sorted(_PUBLIC)


__getattr__ = lazy_getattr(__name__, _PUBLIC)
