"""The ranked tables of a leaderboard: one `Board` per benchmark, sub-task and headline measure.

Only a submission whose `verify` verdict is `verified` is ranked (`Listed.ranked`); one
verified with differences or refused is listed apart with why. A ranked submission's runs are
extracted (from members whose sha256 matched) into a work folder and read as the report reads
a run (`ReportRun`), so every number comes from the same code as `scholarbench report`:

- the headline: the benchmark's first `headline` measure for the sub-task under the run's own
  options (as `core.suite.run_entry` picks it; a summary without one: its first measure), its
  mean and 95% interval (summary.json `metrics.<key>.ci95`);
- the gap to the entry below, on the tasks both scored (`significance.paired_gap`);
- cost per sample and the Pareto front (`report.cost`);
- the judges of the panel and their agreement (summary `judge_panel`, `judge_agreement`);
- leak and injection flags and the headline mean without the flagged samples (summary
  `n_suspected_leak` / `without_leaked`, `n_suspected_injection` / `without_flagged`);
- the paper's published rows for the headline measure, from the benchmark's report section.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.lookup import benchmark_class
from scholarbench.errors import ScholarbenchError
from scholarbench.leaderboard.significance import Gap, paired_gap
from scholarbench.report.cost import pareto, points_of
from scholarbench.report.sections.base import ReportRun, load_report_run, section_for
from scholarbench.submission import VERIFIED, Submission, read_submission
from scholarbench.submission.archive import extract, read_archive


@dataclass
class Listed:
    """One submission as the site lists it; `runs`: its extracted runs (ranked ones only)."""
    slug: str
    path: Path
    submission: Submission | None
    ranked: bool
    why: list[str] = field(default_factory=list)       # not ranked: why
    runs: dict[str, ReportRun] = field(default_factory=dict)   # run folder → run

    @property
    def verdict(self) -> str:
        v = self.submission.verification if self.submission is not None else None
        return v.verdict if v is not None else "unreadable"


@dataclass(frozen=True)
class Published:
    """A row of the paper's table for the board's measure (transcribed, never verified)."""
    system: str
    value: float
    cell: str
    table: str


@dataclass
class Entry:
    """One ranked run."""
    rank: int
    submission: str
    run: str
    agent: str
    score: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    gap: Gap | None                 # over the entry below (None: the last)
    cost_per_sample: float | None
    pareto: bool | None             # None: no cost known
    n_suspected_leak: int | None
    mean_without_leaked: float | None
    n_suspected_injection: int | None
    mean_without_flagged: float | None
    judges: tuple[str, ...]
    alpha: float | None             # the judges' agreement on the first judged measure
    report_run: ReportRun = field(repr=False, compare=False)   # the run, as the report reads it


@dataclass
class Board:
    benchmark: str
    mode: str
    key: str
    label: str
    higher_better: bool
    cost_axis: str                  # "usd" (dollars per sample) or "tokens" (per sample)
    entries: list[Entry] = field(default_factory=list)
    published: list[Published] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return slugify(f"{self.benchmark}-{self.mode}" + ("" if self.key == "" else
                                                         f"-{self.key}"))

    @property
    def runs(self) -> list[ReportRun]:
        return [e.report_run for e in self.entries]


def slugify(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "x"


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def read_listed(paths: Sequence[Path], work: Path, data: str | None = None) -> list[Listed]:
    """Each submission read and verified; a verified one's runs extracted under `work`."""
    out: list[Listed] = []
    seen: set[str] = set()
    for path in paths:
        if not path.is_file():
            raise ScholarbenchError(f"{path}: no such submission file")
        slug, i = slugify(_stem(path)), 2
        while slug in seen:
            slug, i = f"{slugify(_stem(path))}-{i}", i + 1
        seen.add(slug)
        try:
            sub = read_submission(path, verify=True, data=data)
        except ScholarbenchError as exc:
            out.append(Listed(slug, path, None, False, [str(exc)]))
            continue
        verification = sub.verification
        ranked = verification is not None and verification.verdict == VERIFIED
        listed = Listed(slug, path, sub, ranked,
                        [] if ranked or verification is None else verification.reasons)
        if ranked:
            files = read_archive(path).files
            for run in sub.runs:
                final = work / slugify(f"{slug}--{run.dir.replace('/', '--')}")
                staging = work / ".staging" / final.name
                extract(files, [n for n in files if n.startswith(f"{run.dir}/")], staging)
                # under its entry's name: the cost plot labels a run by its folder's name
                staging.joinpath(*run.dir.split("/")).rename(final)
                listed.runs[run.dir] = load_report_run(final)
        out.append(listed)
    return out


def headline(run: ReportRun) -> tuple[str, bool, str]:
    """(key, higher is better, label) of the run's headline measure (module docstring)."""
    keys: tuple[str, ...] = ()
    measures: dict[str, Any] = {}
    try:        # under the run's options: SciNet's and DeepSynth's depend on its variant
        bench = benchmark_class(run.benchmark)(run.manifest.get("options") or {})
        keys = tuple(bench.headline.get(run.mode, ()))
        measures = {m.key: m for m in bench.measures(run.mode)}
    except ScholarbenchError:
        pass
    metrics = run.raw_summary.get("metrics") or {}
    key = next((k for k in keys if k in metrics), None) or next(iter(metrics), "")
    measure = measures.get(key)
    lower = getattr(measure, "direction", "higher") == "lower"
    return key, not lower, getattr(measure, "label", None) or key


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _mean_of(block: Any, key: str) -> float | None:
    metrics = block.get("metrics") if isinstance(block, dict) else None
    entry = metrics.get(key) if isinstance(metrics, dict) else None
    return _number(entry.get("mean")) if isinstance(entry, dict) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _judges(summary: dict[str, Any]) -> tuple[tuple[str, ...], float | None]:
    panel = summary.get("judge_panel") if isinstance(summary.get("judge_panel"), dict) else {}
    names: list[str] = []
    for judges in panel.values():
        names += [j for j in (judges if isinstance(judges, dict) else {}) if j not in names]
    agreement = summary.get("judge_agreement")
    alpha = None
    if isinstance(agreement, dict):
        alpha = next((_number(a.get("alpha")) for a in agreement.values()
                      if isinstance(a, dict) and _number(a.get("alpha")) is not None), None)
    return tuple(names), alpha


def _published(run: ReportRun, key: str) -> list[Published]:
    """The paper's rows for `key` in the benchmark's report tables (as `report.suite`)."""
    out: list[Published] = []
    seen: set[tuple[str, float]] = set()
    for group in section_for(run.benchmark).groups([run], True):
        for table in group.tables:
            if key not in table.keys:
                continue
            k = table.keys.index(key)
            for row in table.rows:
                if row.kind != "published" or k >= len(row.values) or row.values[k] is None:
                    continue
                name = row.cells[0].removesuffix(" (published)")
                if (name, row.values[k]) not in seen:
                    seen.add((name, row.values[k]))
                    out.append(Published(name, float(row.values[k]), row.cells[k + 2],
                                         table.title))
    return out


def build_boards(listed: Sequence[Listed]) -> list[Board]:
    """The ranked runs of every verified submission, one board per benchmark, sub-task and
    headline measure, in the order first seen."""
    grouped: dict[tuple[str, str, str], list[tuple[Listed, str, ReportRun]]] = {}
    heads: dict[tuple[str, str, str], tuple[bool, str]] = {}
    for sub in listed:
        for folder, run in sub.runs.items():
            key, higher, label = headline(run)
            grouped.setdefault((run.benchmark, run.mode, key), []).append((sub, folder, run))
            heads[(run.benchmark, run.mode, key)] = (higher, label)
    return [_board(b, m, k, *heads[(b, m, k)], members)
            for (b, m, k), members in grouped.items()]


def _board(benchmark: str, mode: str, key: str, higher: bool, label: str,
           members: list[tuple[Listed, str, ReportRun]]) -> Board:
    def score(run: ReportRun) -> float | None:
        return _mean_of(run.raw_summary, key)

    def order(member: tuple[Listed, str, ReportRun]) -> tuple[bool, float]:
        s = score(member[2])
        return s is None, 0.0 if s is None else (-s if higher else s)
    members = sorted(members, key=order)
    points, axis = points_of([m[2] for m in members])
    front = {id(p.run) for p in pareto(points)}
    x_of = {id(p.run): p.x for p in points}
    board = Board(benchmark, mode, key, label, higher, axis)
    values = [run.sample_values([key]) for _, _, run in members]
    unscorable = [{str(r.get("id")) for r in run.scores if r.get("unscorable")}
                  for _, _, run in members]
    for i, (sub, folder, run) in enumerate(members):
        s = score(run)
        rank = i + 1
        if i and s is not None and s == score(members[i - 1][2]):
            rank = board.entries[-1].rank          # a tie shares its rank
        gap = None
        if i + 1 < len(members):
            upper = {t: v[key] for t, v in values[i].items() if t not in unscorable[i]}
            lower = {t: v[key] for t, v in values[i + 1].items() if t not in unscorable[i + 1]}
            gap = paired_gap(upper, lower, higher_better=higher)
        interval = run.interval(key)
        entry = (run.raw_summary.get("metrics") or {}).get(key)
        judges, alpha = _judges(run.raw_summary)
        x = x_of.get(id(run))
        board.entries.append(Entry(
            rank, sub.slug, folder, str(run.manifest.get("agent") or
                                        run.raw_summary.get("agent") or ""),
            s, interval[0] if interval else None, interval[1] if interval else None,
            _count(entry.get("n")) if isinstance(entry, dict) else None, gap, x,
            None if x is None else id(run) in front,
            _count(run.raw_summary.get("n_suspected_leak")),
            _mean_of(run.raw_summary.get("without_leaked"), key),
            _count(run.raw_summary.get("n_suspected_injection")),
            _mean_of(run.raw_summary.get("without_flagged"), key),
            judges, alpha, run))
    if members:
        board.published = _published(members[0][2], key)
    return board


__all__ = ["Board", "Entry", "Listed", "Published", "build_boards", "headline", "read_listed",
           "slugify"]
