"""What every benchmark's report section provides, and the registry keyed on manifest["benchmark"].

A section is looked up by the run's `manifest["benchmark"]` in the one registry (kind
"section"): `section_for("taxobench")` finds what `scholarbench.benchmarks.taxobench.report`
registered with `@register_section`. A new benchmark registers its section in its own package
(or gets the generic one) and nothing shared changes: the terminal/Markdown/LaTeX/CSV tables,
the HTML report, `compare` and the exports all dispatch through this registry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from scholarbench.core.measure import Measure
from scholarbench.core.migrate import check_format
from scholarbench.core.registry import REGISTRY
from scholarbench.core.score_rows import read_score_rows
from scholarbench.data.jsonl import read_jsonl_tolerant
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.report import svg
from scholarbench.report.htmlkit import metadata_html
from scholarbench.report.tables import (MetricSummary, Row, RunSummary, TableGroup, _metric,
                                        read_interval, read_json_object)

if TYPE_CHECKING:  # pragma: no cover
    from scholarbench.report.htmlkit import Page

def strip_group(run: "ReportRun", key: str, colour: str,
                values: dict[str, dict[str, Any]] | None = None) -> "svg.StripGroup":
    """One run's per-sample values of `key` for a distribution plot (nulls counted apart);
    `values` defaults to every sample of the run."""
    values = run.sample_values((key,)) if values is None else values
    defined = [(sid, v[key]) for sid, v in values.items() if v[key] is not None]
    return svg.StripGroup(run.name, [v for _, v in defined], [sid for sid, _ in defined], colour,
                          n_null=len(values) - len(defined))


def metric_rows(runs: Sequence["ReportRun"], keys: Sequence[str],
                display: dict[str, Measure]) -> list[Row]:
    """Leaderboard rows of our runs: name, sample count, then each measure's mean as it prints
    (a measure the run's summary lacks — an older run — as "—")."""
    rows = []
    for r in runs:
        values = tuple(r.summary.metrics[k].mean if k in r.summary.metrics else None
                       for k in keys)
        cells = tuple(display[k].format_with_interval(v, r.interval(k))
                      for k, v in zip(keys, values))
        rows.append(Row("ours", (r.name, f"n={r.summary.n_samples}") + cells,
                        values, str(r.run_dir)))
    return rows


def undeclared(benchmark: str, key: str) -> Measure:
    """A summary's key no measure declares: printed by its key, no direction, open range."""
    return Measure(benchmark, key, label=key, direction="none", bounds=(None, None))


def plural(count: int, word: str) -> str:
    """'1 task', '2,500 tasks'."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def optional_number(value: object, path: Path, field: str) -> float | None:
    """A number or null from a summary, else a DataError naming file and field."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"expected a number or null, got {value!r}", file=str(path),
                        field=field)
    return float(value)


def count_field(raw: dict[str, Any], key: str, path: Path, *, prefix: str = "",
                missing_ok: bool = False) -> int:
    """A non-negative integer count from a summary, else a DataError naming file and field
    (`prefix` names the enclosing keys; `missing_ok` reads an absent key as 0)."""
    value = raw.get(key, 0 if missing_ok else None)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DataError(f"expected a non-negative integer, got {value!r}", file=str(path),
                        field=prefix + key)
    return value


@dataclass
class ReportRun:
    """One finished run as the report sees it: validated means (`summary`), the raw manifest and
    summary.json (keys may be absent in older runs), and the per-sample rows on demand."""
    run_dir: Path
    benchmark: str
    mode: str
    summary: RunSummary
    manifest: dict[str, Any]
    raw_summary: dict[str, Any]
    id_key: str = "id"         # the sample id's key in scores.jsonl (task_id, arxiv_id, …)

    @property
    def name(self) -> str:
        return self.summary.name

    def interval(self, key: str) -> tuple[float, float] | None:
        """The 95% interval of measure `key`: the section's own reading, else summary.json's
        `metrics.<key>.ci95` (None in runs from before intervals, or where the summary's value
        is not one the engine could resample)."""
        own = self.summary.metrics.get(key)
        if own is not None and own.ci95 is not None:
            return own.ci95
        entry = (self.raw_summary.get("metrics") or {}).get(key)
        if not isinstance(entry, dict):
            return None
        return read_interval(entry.get("ci95"), self.run_dir / "summary.json",
                             f"metrics.{key}.ci95")

    @cached_property
    def scores(self) -> list[dict[str, Any]]:
        """scores.jsonl, one row per sample, each checked as `aggregate` checks it
        (`core.score_rows`: a bad row is one error naming file, line and field); [] when
        absent. Every row carries its sample id under "id" too (copied from `id_key`), so the drill-downs,
        `compare` and the exports pair samples the same way for every benchmark."""
        path = self.run_dir / "scores.jsonl"
        if not path.exists() and not path.is_symlink():
            return []
        rows = read_score_rows(path, self.id_key, self._units())   # checked as aggregate does
        if self.id_key != "id":
            rows = [{**r, "id": r.get(self.id_key)} if "id" not in r else r for r in rows]
        return rows

    def _units(self) -> dict[str, str]:
        """measure key -> unit of the benchmark's declared measures ({} when unknown)."""
        cls = REGISTRY.find("benchmark", self.benchmark)
        try:
            return {m.key: m.unit for m in cls({}).measures(self.mode or None)} if cls else {}
        except Exception:       # a plug-in whose measures need options: ids and types only
            return {}

    @cached_property
    def trajectories(self) -> dict[str, dict[str, Any]]:
        """tools.jsonl: sample id → its latest line (the agent's tool calls); {} without tools."""
        out: dict[str, dict[str, Any]] = {}
        for line in read_jsonl_tolerant(self.run_dir / "tools.jsonl"):
            if isinstance(line, dict) and "id" in line:
                out[str(line["id"])] = line
        return out

    @cached_property
    def transcripts(self) -> dict[str, dict[str, Any]]:
        """transcripts.jsonl: sample id → its latest line (the agent's chat calls and own
        steps, `llm.transcript`); {} for runs without."""
        return {str(line[self.id_key]): line
                for line in read_jsonl_tolerant(self.run_dir / "transcripts.jsonl")
                if isinstance(line, dict) and self.id_key in line}

    @cached_property
    def judge_exchanges(self) -> dict[str, list[dict[str, Any]]]:
        """Every judge.<item>.jsonl record that kept its exchange: sample id → the records
        (item, judge, repeat, exchange), in file order."""
        out: dict[str, list[dict[str, Any]]] = {}
        for path in sorted(self.run_dir.glob("judge.*.jsonl")):
            item = path.name[len("judge."):-len(".jsonl")]
            for line in read_jsonl_tolerant(path):
                if isinstance(line, dict) and isinstance(line.get("exchange"), dict):
                    out.setdefault(str(line.get(self.id_key)), []).append({**line,
                                                                           "item": item})
        return out

    def sample_values(self, keys: Sequence[str]) -> dict[str, dict[str, float | None]]:
        """sample id → metric → value (None when undefined or unscorable)."""
        out: dict[str, dict[str, float | None]] = {}
        for row in self.scores:
            values = {}
            for key in keys:
                value = row.get(key)
                values[key] = (float(value) if isinstance(value, (int, float))
                               and not isinstance(value, bool) and math.isfinite(value)
                               else None)
            out[str(row.get("id"))] = values
        return out


class ReportSection:
    """Base class; a benchmark overrides what differs. See the module docstring."""
    benchmark = ""
    title = ""
    order = 100                       # position in the report (TaxoBench first)
    modes: tuple[str, ...] = ()
    mode_titles: dict[str, str] = {}

    def load(self, run_dir: Path, manifest: dict[str, Any]) -> ReportRun:
        raise NotImplementedError

    def metrics(self, mode: str) -> list[Measure]:
        """Every metric of the mode, primary ones first."""
        raise NotImplementedError

    def paired_metrics(self, mode: str) -> list[Measure]:
        """The metrics `compare` pairs per sample: those with a per-sample value in
        scores.jsonl (a pooled metric, e.g. DeepSynth-Eval's micro precision, has none)."""
        return self.metrics(mode)

    def groups(self, runs: Sequence[ReportRun], published: bool = True) -> list[TableGroup]:
        raise NotImplementedError

    def footnotes(self, runs: Sequence[ReportRun], published: bool = True) -> list[str]:
        return []

    def csv(self, runs: Sequence[ReportRun]) -> str:
        raise NotImplementedError

    def html(self, runs: Sequence[ReportRun], page: "Page") -> str:
        raise NotImplementedError

    def run_metadata(self, run: ReportRun) -> str:
        """The run's metadata block in the HTML report (a section may add facts)."""
        return metadata_html(run)

    def mode_title(self, mode: str) -> str:
        return f"{self.title} — {self.mode_titles.get(mode, mode)}"


def register_section(cls: type[ReportSection]) -> type[ReportSection]:
    """Register a section class in the one registry (kind "section"), under its benchmark."""
    return REGISTRY.add("section", cls.benchmark, cls)


_INSTANCES: dict[str, ReportSection] = {}


def section_for(benchmark: str) -> ReportSection:
    """The report section its package registered (a class or a factory), else the generic one
    for a registered benchmark."""
    if benchmark not in _INSTANCES:
        cls = REGISTRY.find("section", benchmark)
        if cls is None:
            engine = REGISTRY.find("benchmark", benchmark)
            if engine is None:
                raise ScholarbenchError(f"no report section for benchmark {benchmark!r} (its "
                                        "package registers one with @register_section)")
            # deferred: a top-level import would close an import cycle
            from scholarbench.report.sections.generic import GenericSection
            _INSTANCES[benchmark] = GenericSection(benchmark, getattr(engine, "title", ""))
            return _INSTANCES[benchmark]
        _INSTANCES[benchmark] = cls()
    return _INSTANCES[benchmark]


# ------------------------------------------------------------------------------------- loading


def load_report_run(run_dir: Path | str) -> ReportRun:
    """One finished run of any benchmark with a report section."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ScholarbenchError(f"{run_dir}: not a directory (expected a finished run directory)")
    manifest = read_json_object(run_dir / "manifest.json", run_dir)
    benchmark = manifest.get("benchmark")
    if not isinstance(benchmark, str) or not benchmark:
        raise DataError(f"expected the benchmark's name, got {benchmark!r}",
                        file=str(run_dir / "manifest.json"), field="benchmark")
    section = section_for(benchmark)
    check_format(manifest, run_dir / "manifest.json")      # 99, [3], "" or none: one line
    return section.load(run_dir, manifest)


def load_report_runs(run_dirs: Sequence[Path | str]) -> list[ReportRun]:
    return [load_report_run(d) for d in run_dirs]


def by_benchmark(runs: Sequence[ReportRun]) -> list[tuple[ReportSection, list[ReportRun]]]:
    """Runs grouped per benchmark, sections in report order, runs in the order given."""
    groups: dict[str, list[ReportRun]] = {}
    for run in runs:
        groups.setdefault(run.benchmark, []).append(run)
    sections = sorted((section_for(b) for b in groups), key=lambda s: (s.order, s.benchmark))
    return [(s, groups[s.benchmark]) for s in sections]


def metric_summaries(summary: dict[str, Any], keys: Sequence[str], n_expected: int,
                     path: Path) -> dict[str, MetricSummary]:
    """Validated {mean, n, n_null} per key (n + n_null must equal `n_expected`)."""
    if not isinstance(summary.get("metrics"), dict):
        raise DataError(f"expected an object, got {summary.get('metrics')!r}", file=str(path),
                        field="metrics")
    return {key: _metric(summary, key, n_expected, path) for key in keys}
