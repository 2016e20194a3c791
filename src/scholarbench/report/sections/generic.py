"""The report section of a benchmark that brings none of its own: one leaderboard per sub-task
from summary.json's measures (means, with undefined and unscored counts as notes), incomplete
runs marked, and a CSV of the same numbers. A benchmark package replaces it by registering its
own section (`@register_section`)."""
from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.measure import Measure
from scholarbench.core.registry import REGISTRY
from scholarbench.report.htmlkit import table_html
from scholarbench.report.sections.base import (ReportRun, ReportSection, metric_rows,
                                               read_json_object, undeclared)
from scholarbench.report.tables import MetricSummary, RunSummary, Table, TableGroup
from scholarbench.text.escape import csv_row


class GenericSection(ReportSection):
    order = 1000

    def __init__(self, benchmark: str, title: str = "") -> None:
        self.benchmark, self.title = benchmark, title or benchmark
        self._keys: dict[str, list[str]] = {}

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        raw = read_json_object(run_dir / "summary.json", run_dir)
        status = raw.get("status") or {}
        metrics = {k: MetricSummary(v.get("mean"), int(v.get("n", 0)), int(v.get("n_null", 0)))
                   for k, v in (raw.get("metrics") or {}).items() if isinstance(v, dict)}
        mode = str(manifest.get("mode") or "")
        keys = self._keys.setdefault(mode, [])
        keys.extend(k for k in metrics if k not in keys)
        summary = RunSummary(run_dir, mode, str(manifest.get("agent")), manifest.get("run_name"),
                             int(raw.get("n_samples", 0)), int(status.get("missing", 0)),
                             int(status.get("malformed", 0)), metrics)
        return ReportRun(run_dir, self.benchmark, mode, summary, manifest, raw)

    def metrics(self, mode: str) -> list[Measure]:
        """The run summaries' measures as the benchmark declares them (`Benchmark.measures`:
        label, direction, percent, decimals), else by their keys (no direction, open range)."""
        declared = self._declared(mode)
        out = []
        for key in self._keys.get(mode, []):
            m = declared.get(key)
            out.append(undeclared(self.benchmark, key) if m is None
                       else replace(m, label=m.label or key))
        return out

    def _declared(self, mode: str) -> dict[str, Any]:
        # every measure registered under the benchmark's name (`add_measures`: those an option
        # turns on too, such as a judged one), then what it declares for the mode
        out = {m.key: m for key, m in REGISTRY.items("measure")
               if key.startswith(f"{self.benchmark}/")}
        cls = REGISTRY.find("benchmark", self.benchmark)
        if cls is None:
            return out
        try:
            return {**out, **{m.key: m for m in cls({}).measures(mode or None)}}
        except Exception:       # a plug-in whose measures need options: those registered
            return out

    def _modes(self, runs: Sequence[ReportRun]) -> list[str]:
        return list(dict.fromkeys(r.mode for r in runs))

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        out = []
        for mode in self._modes(runs):
            mine = [r for r in runs if r.mode == mode]
            keys = [m.key for m in self.metrics(mode)]
            display = {m.key: m for m in self.metrics(mode)}
            notes = tuple(f"{r.name}: incomplete ({r.raw_summary.get('status', {}).get('error', 0)}"
                          " errored samples)" for r in mine if r.raw_summary.get("complete") is False)
            table = Table(self.mode_title(mode),
                          ("system", "samples", *(display[k].header() for k in keys)),
                          tuple(metric_rows(mine, keys, display)), notes, tuple(keys))
            out.append(TableGroup(self.mode_title(mode), (table,), self.benchmark, mode))
        return out

    def csv(self, runs: Sequence[ReportRun]) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(["benchmark", "mode", "run", "metric", "mean", "n", "n_null"])
        for r in runs:
            for key, m in r.summary.metrics.items():
                writer.writerow(csv_row([self.benchmark, r.mode, r.name, key, m.mean, m.n,
                                         m.n_null]))
        return buf.getvalue()

    def html(self, runs: Sequence[ReportRun], page: Any) -> str:
        parts = [page.heading(2, self.title)]
        for group in self.groups(runs, page.published):
            parts.extend(table_html(t) for t in group.tables)
        return "".join(parts)
