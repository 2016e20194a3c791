"""The table model every report section shares — `Table`, `Row`, `TableGroup`, the validated
run summary (`RunSummary`, `MetricSummary`, `JudgeInfo`) and summary readers — and its
renderers (`render_groups`: terminal, Markdown, LaTeX). Each benchmark's section
(`scholarbench.benchmarks.<name>.report`, or `report.sections.generic`) builds its tables with
them; the HTML report renders the same `Table` objects, so every format shows the same cells.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.core.rundir import read_json_file
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.errors import DataError
from scholarbench.report.formats import FORMATS
from scholarbench.report.summary_check import check_summary
from scholarbench.text.escape import latex, latex_comment, md, terminal

NULL = "—"
@dataclass(frozen=True)
class MetricSummary:
    mean: float | None   # over the samples where the metric is defined
    n: int               # samples with a value
    n_null: int          # samples where it is undefined (excluded from the mean)
    n_unscored: int = 0  # judge metrics: of n_null, the samples the judge failed on
    ci95: tuple[float, float] | None = None   # 95% bootstrap interval (core.measure)

    @property
    def half_width(self) -> float | None:
        """Half the interval's width (the ± of the tables), None without an interval."""
        return None if self.ci95 is None else (self.ci95[1] - self.ci95[0]) / 2


@dataclass(frozen=True)
class JudgeInfo:
    """Which judge produced a run's judge metrics (any part may be unknown in older runs)."""
    model: str | None      # the judge model's name as configured (e.g. "gpt-4o-mini")
    model_id: str | None   # the client's full model id ("BASE_URL|model")
    prompt: str | None     # the judge prompt's version (e.g. "taxobench_judge_v1")

    @property
    def model_name(self) -> str:
        return self.model or self.model_id or "an unrecorded model"

    @property
    def label(self) -> str:
        """'gpt-4o-mini, prompt taxobench_judge_v1'."""
        return f"{self.model_name}, prompt {self.prompt or 'not recorded'}"

    @property
    def is_paper_judge(self) -> bool:
        """Whether the model is GPT-4o (any dated snapshot), the judge of the paper's Table 7."""
        name = (self.model or (self.model_id or "").rsplit("|", 1)[-1]).strip().lower()
        return re.fullmatch(r"(openai/)?gpt-4o(-\d{4}-\d{2}-\d{2})?", name) is not None


@dataclass(frozen=True)
class RunSummary:
    run_dir: Path
    mode: str            # "deep-research" | "bottom-up"
    agent: str
    run_name: str | None
    n_samples: int
    n_missing: int
    n_malformed: int
    metrics: dict[str, MetricSummary]   # METRIC_KEYS, plus JUDGE_KEYS when the run was judged
    judge: JudgeInfo | None = None      # set when the run was judged

    @property
    def name(self) -> str:
        """The system name shown in the tables: the run's name, else the agent's."""
        return self.run_name or self.agent

    @property
    def judged(self) -> bool:
        """Whether the run was scored with the LLM judge (its summary has the judge keys)."""
        return "judge_avg" in self.metrics


# ---------------------------------------------------------------------------------------- loading

def read_json_object(path: Path, run_dir: Path) -> dict[str, Any]:
    if not path.exists() and not path.is_symlink():    # a FIFO is refused when read
        raise DataError(f"missing; {run_dir} is not a finished run directory"
                        + (" (score it with `scholarbench score RUN_DIR`)"
                           if path.name == "summary.json" else ""), file=str(path))
    data = read_json_file(path)       # a regular file, bounded; bad JSON is one line
    if path.name == "summary.json":
        check_summary(data, path)     # every section reads it: checked once, here
    return data


def _count(data: dict[str, Any], key: str, path: Path, prefix: str = "") -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DataError(f"expected a non-negative integer, got {value!r}", file=str(path),
                        field=prefix + key)
    return value


def _text(data: dict[str, Any], key: str, path: Path, optional: bool = False) -> str | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise DataError(f"expected a non-empty string, got {value!r}", file=str(path), field=key)
    return value


def _metric(summary: dict[str, Any], key: str, n_samples: int, path: Path) -> MetricSummary:
    """The checked entry of measure `key`. A run scored before the measure was declared has
    none (or null) and no value for it in its rows: no value, every counted sample undefined —
    shown "—". Lacking one the rows have (or with no rows to tell) is a damaged summary."""
    entry = summary["metrics"].get(key)
    field = f"metrics.{key}"
    if entry is None and _scored_before(path, key):
        return MetricSummary(None, 0, n_samples)
    if not isinstance(entry, dict):
        raise DataError(f"expected an object with mean, n, n_null, got {entry!r}",
                        file=str(path), field=field)
    mean = entry.get("mean")
    if mean is not None and (isinstance(mean, bool) or not isinstance(mean, (int, float))
                             or not math.isfinite(mean)):
        raise DataError(f"expected a finite number or null, got {mean!r}", file=str(path),
                        field=field + ".mean")
    n = _count(entry, "n", path, field + ".")
    n_null = _count(entry, "n_null", path, field + ".")
    epochs = summary.get("epochs")
    if isinstance(epochs, dict) and isinstance(epochs.get("n_samples"), int):
        # K epochs (core.epochs): a measure counts samples, each the mean of its counted
        # epochs; the statuses count rows (sample × epoch). A sample whose every epoch is
        # not counted is in neither, so the samples bound n + n_null.
        if n + n_null > epochs["n_samples"]:
            raise DataError(f"n ({n}) + n_null ({n_null}) exceeds the run's "
                            f"{epochs['n_samples']} samples", file=str(path), field=field)
    elif n + n_null != n_samples:
        raise DataError(f"n ({n}) + n_null ({n_null}) differs from n_samples ({n_samples})",
                        file=str(path), field=field)
    if (mean is None) != (n == 0):
        raise DataError(f"mean {mean!r} is inconsistent with n = {n}", file=str(path),
                        field=field)
    n_unscored = _count(entry, "n_unscored", path, field + ".") if "n_unscored" in entry else 0
    if n_unscored > n_null:
        raise DataError(f"n_unscored ({n_unscored}) exceeds n_null ({n_null}); unscored samples "
                        "are among those without a value", file=str(path), field=field)
    return MetricSummary(None if mean is None else float(mean), n, n_null, n_unscored,
                         read_interval(entry.get("ci95"), path, field + ".ci95"))


def _scored_before(summary_path: Path, key: str) -> bool:
    """Whether the run beside `summary_path` was scored before measure `key` existed: it has
    score rows and none holds a value for `key`."""
    rows = read_jsonl_tolerant(summary_path.parent / "scores.jsonl")    # [] when absent
    return bool(rows) and all(row.get(key) is None for row in rows)


def read_interval(value: Any, path: Path, field: str) -> tuple[float, float] | None:
    """A summary's `ci95` ([low, high] or null; absent in runs before intervals)."""
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            for x in value) and value[0] <= value[1]):
        raise DataError(f"expected [low, high] with low <= high, or null, got {value!r}",
                        file=str(path), field=field)
    return float(value[0]), float(value[1])


def _first_text(*values: object) -> str | None:
    return next((v for v in values if isinstance(v, str) and v), None)


@dataclass(frozen=True)
class Row:
    kind: str                  # "ours" | "separator" | "published"
    cells: tuple[str, ...]     # for a separator: (label,)
    values: tuple[float | None, ...] = ()   # the raw numbers behind the metric cells
    source: str | None = None  # ours: the run directory


@dataclass(frozen=True)
class Table:
    title: str
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...]
    keys: tuple[str, ...] = ()  # metric keys of the columns after the first two


@dataclass(frozen=True)
class TableGroup:
    """One heading's tables, e.g. "TaxoBench — Deep Research mode" and its three layouts."""
    title: str
    tables: tuple[Table, ...]
    benchmark: str = "taxobench"
    mode: str = ""


_Row, _Table = Row, Table   # former private names


def _render_markdown(table: Table) -> list[str]:
    width = len(table.header)
    lines = [f"### {md(table.title)}", "",
             "| " + " | ".join(md(h) for h in table.header) + " |",
             "| --- | " + " | ".join(["---:"] * (width - 1)) + " |"]
    for row in table.rows:
        if row.kind == "separator":
            cells = [f"*{md(row.cells[0])}*"] + [""] * (width - 1)
        else:
            cells = [md(c) for c in row.cells]
        lines.append("| " + " | ".join(cells) + " |")
    if table.notes:
        lines.append("")
        lines.extend(f"- Note — {md(note)}" for note in table.notes)
    return lines


def _render_terminal(table: Table) -> list[str]:
    header = tuple(terminal(h) for h in table.header)
    shown = [(r.kind, tuple(terminal(c) for c in r.cells)) for r in table.rows]
    data = [cells for kind, cells in shown if kind != "separator"]
    widths = [max(len(row[i]) for row in [header, *data]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join([cells[0].ljust(widths[0])]
                         + [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    lines = [terminal(table.title), line(header), rule]
    for kind, cells in shown:
        lines.append(f"·· {cells[0]} ··" if kind == "separator" else line(cells))
    if table.notes:
        lines.extend(f"  note — {terminal(note)}" for note in table.notes)
    return lines


def latex_escape(text: str) -> str:
    """Plain text → LaTeX source that prints it (`text.escape.latex`)."""
    return latex(text)


def _render_latex(table: Table, heading: str = "") -> list[str]:
    """One booktabs `table` float (needs \\usepackage{booktabs}); published rows in italics."""
    width = len(table.header)
    caption = f"{heading}: {table.title}" if heading else table.title
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             rf"\caption{{{latex(caption)}}}",
             r"\begin{tabular}{l" + "r" * (width - 1) + "}", r"\toprule",
             " & ".join(latex(h) for h in table.header) + r" \\", r"\midrule"]
    for row in table.rows:
        if row.kind == "separator":
            lines.append(r"\midrule")
            lines.append(rf"\multicolumn{{{width}}}{{l}}{{\textit{{{latex(row.cells[0])}}}}}"
                         r" \\")
        elif row.kind == "published":
            lines.append(" & ".join(rf"\textit{{{latex(c)}}}" for c in row.cells)
                         + r" \\")
        else:
            lines.append(" & ".join(latex(c) for c in row.cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines.append(r"\par\smallskip{\footnotesize "
                     + r" \\ ".join("Note --- " + latex(n) for n in table.notes) + "}")
    lines.append(r"\end{table}")
    return lines




def render_groups(groups: Sequence[TableGroup], fmt: str = "terminal",
                  footnotes: Sequence[str] = ()) -> str:
    """Headed groups of tables as terminal text, GitHub Markdown or LaTeX (booktabs)."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)}, not {fmt!r}")
    out: list[str] = []
    for group in groups:
        if out:
            out.append("")
        if fmt == "markdown":
            out.extend([f"## {md(group.title)}", ""])
        elif fmt == "latex":
            out.extend([f"% {latex_comment(group.title)}", ""])
        else:
            title = terminal(group.title)
            out.extend([title, "=" * len(title), ""])
        for i, table in enumerate(group.tables):
            if i:
                out.append("")
            if fmt == "markdown":
                out.extend(_render_markdown(table))
            elif fmt == "latex":
                out.extend(_render_latex(table, group.title))
            else:
                out.extend(_render_terminal(table))
    for note in footnotes:
        if fmt == "markdown":
            out.extend(["", md(note)])
        elif fmt == "latex":
            out.extend(["", "% " + latex_comment(note)])
        else:
            out.extend(["", terminal(note)])
    return "\n".join(out)
