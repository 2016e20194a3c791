"""The judges of each judged run, as tables the HTML, Markdown and terminal reports share.

Per run that used an LLM judge (its manifest names one under `models.judge` / `models.judges`):

- **who judged**: one row per judge — label, model id, temperature, the seeds of its repeats,
  its calls and tokens (the manifest's `usage.<stage>.<role>`, summed over stages), and the
  shift `judge-check` measured for that judge (manifest `injection_check.<model id>`), or
  "not measured";
- **how far they agree**: per judged measure a panel row (the measure's value, its n and
  undefined, Krippendorff's α between the judges) and one row per judge (its mean, its repeat
  spread and α across its repeats; summary.json's `judge_panel` / `judge_agreement`,
  docs/judges.md). A one-judge, one-sample run says so in a note instead of showing no α.

Over two or more runs of one benchmark and sub-task judged by the same panel, `rank_notes`
says how the ranking of the runs changes under each judge (`metrics.agreement.rank_agreement`:
Kendall τ between the judges' rankings, and whether every judge puts the same run on top).
Every number comes from the run's own files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scholarbench.report.tables import Row, Table, TableGroup

ONE_JUDGE_NOTE = ("one judge, one sample: no agreement measured (a panel: --judge repeated; "
                  "repeats: --judge-samples K; docs/judges.md)")


@dataclass(frozen=True)
class RunJudge:
    label: str
    model_id: str
    temperature: float | None
    seeds: tuple[int, ...]
    calls: int | None
    tokens: int | None
    injection: str | None      # judge-check's overall shift, in one phrase; None: not measured


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _usage(manifest: dict[str, Any], role: str) -> tuple[int | None, int | None]:
    """A usage role's calls and tokens summed over the run's stages (None: not recorded)."""
    calls = tokens = None
    for stage in _dict(manifest.get("usage")).values():
        entry = _dict(_dict(stage).get(role))
        if entry:
            calls = (calls or 0) + int(entry.get("calls") or 0)
            tokens = ((tokens or 0) + int(entry.get("prompt_tokens") or 0)
                      + int(entry.get("completion_tokens") or 0))
    return calls, tokens


def _injection(manifest: dict[str, Any], model_id: str) -> str | None:
    entry = _dict(_dict(manifest.get("injection_check")).get(model_id))
    if not entry:
        return None
    overall = _dict(entry.get("overall"))
    shift = _number(overall.get("mean_shift"))
    if shift is None:
        return f"{entry.get('measure', '?')}: no pair scored"
    return (f"{entry.get('measure', '?')} {shift:+.3f} "
            f"({100 * (_number(overall.get('share_moved')) or 0):.0f}% of {overall.get('n')} "
            "moved)")


def run_judges(manifest: dict[str, Any]) -> list[RunJudge]:
    """The run's judges, in panel order; [] when the run used no judge."""
    models = _dict(manifest.get("models"))
    entries = [j for j in models.get("judges") or [] if isinstance(j, dict)]
    if not entries and _dict(models.get("judge")):
        entries = [{**models["judge"], "usage_role": "judge"}]
    panel = {p.get("label"): p for p in _dict(manifest.get("judge")).get("panel") or []
             if isinstance(p, dict)}
    out = []
    for entry in entries:
        model_id = str(entry.get("model_id") or entry.get("model") or "?")
        label = str(entry.get("label") or entry.get("model") or model_id)
        seeds = tuple(_dict(panel.get(label)).get("seeds") or
                      ([entry["seed"]] if isinstance(entry.get("seed"), int) else []))
        calls, tokens = _usage(manifest, str(entry.get("usage_role") or "judge"))
        out.append(RunJudge(label, model_id, _number(entry.get("temperature")), seeds, calls,
                            tokens, _injection(manifest, model_id)))
    return out


def judged_measures(summary: dict[str, Any], declared: Sequence[str] = ()) -> list[str]:
    """The measures a panel scored (`judge_panel`), else the declared judge measures the
    summary has a value for."""
    panel = list(_dict(summary.get("judge_panel")))
    if panel:
        return panel
    metrics = _dict(summary.get("metrics"))
    return [k for k in declared if _dict(metrics.get(k)).get("n")]


def _fixed(value: Any, digits: int = 2) -> str:
    number = _number(value)
    return "—" if number is None else f"{number:.{digits}f}"


def _count(value: Any) -> str:
    return "—" if value is None else str(value)


def judges_table(name: str, judges: Sequence[RunJudge], source: str | None = None) -> Table:
    rows = tuple(Row("ours", (j.label, j.model_id, _fixed(j.temperature),
                              ", ".join(map(str, j.seeds)) or "—", _count(j.calls),
                              _count(j.tokens), j.injection or "not measured"), source=source)
                 for j in judges)
    return Table(f"{name}: judges", ("judge", "model id", "temperature", "seeds (repeats)",
                                     "calls", "tokens", "injection shift (judge-check)"),
                 rows, ())


def agreement_table(name: str, summary: dict[str, Any], measures: Sequence[str],
                    judges: Sequence[RunJudge], source: str | None = None) -> Table:
    """Per measure: the panel row, then one row per judge."""
    metrics = _dict(summary.get("metrics"))
    panel, agreement = _dict(summary.get("judge_panel")), _dict(summary.get("judge_agreement"))
    rows: list[Row] = []
    for key in measures:
        entry, alpha = _dict(metrics.get(key)), _dict(agreement.get(key))
        rows.append(Row("ours", (key, "panel" if len(judges) > 1 else judges[0].label,
                                 _fixed(entry.get("mean")), _count(entry.get("n")),
                                 _count(entry.get("n_null")), _fixed(alpha.get("alpha"), 3),
                                 "", ""),
                        (_number(entry.get("mean")),), source=source))
        for label, per in _dict(panel.get(key)).items():
            per = _dict(per)
            rows.append(Row("ours", ("", label, _fixed(per.get("mean")), _count(per.get("n")),
                                     _count(per.get("n_null")), "", _fixed(per.get("spread")),
                                     _fixed(per.get("alpha_repeats"), 3)),
                            (_number(per.get("mean")),), source=source))
    header = ("measure", "judge", "mean", "n", "undefined", "α between judges",
              "repeat spread", "α repeats")
    if len(judges) == 1 and not panel:          # nothing to agree with: the values alone
        return Table(f"{name}: judged measures", header[:5],
                     tuple(Row(r.kind, r.cells[:5], r.values, r.source) for r in rows),
                     (ONE_JUDGE_NOTE,), keys=("mean",))
    notes = ("α between judges: Krippendorff's α over the samples (interval level for "
             "scales, nominal for labels); spread: a judge's mean standard deviation across "
             "its repeats; α repeats: its agreement with itself (docs/judges.md)",)
    return Table(f"{name}: agreement", header, tuple(rows), notes, keys=("mean",))


def rank_notes(runs: Sequence[Any]) -> list[str]:
    """Over runs of one benchmark and sub-task: per panel-judged measure, Kendall τ between
    the judges' rankings of the runs and whether the top run stays on top."""
    from scholarbench.metrics.agreement import per_judge_of, rank_agreement
    groups: dict[tuple[str, str], list[Any]] = {}
    for run in runs:
        groups.setdefault((run.benchmark, run.mode), []).append(run)
    notes = []
    for (benchmark, mode), members in groups.items():
        keys = dict.fromkeys(k for r in members for k in _dict(r.raw_summary.get("judge_panel")))
        for key in keys:
            per_run = {r.name: means for r in members
                       if (means := per_judge_of(r.raw_summary, key))}
            if len(per_run) < 2 or len({j for m in per_run.values() for j in m}) < 2:
                continue
            ranks = rank_agreement(per_run)
            taus = "; ".join(f"τ {pair} {_fixed(t['tau'])}"
                             for pair, t in ranks["kendall_tau"].items())
            top = (f"every judge puts {ranks['top_run']} on top" if ranks["top_stays"]
                   else "the judges do not agree on the top run")
            notes.append(f"{benchmark} {mode} {key}: the judges' rankings of "
                         f"{len(per_run)} runs: {taus}; {top}")
    return notes


def declared_judge_measures(run: Any) -> list[str]:
    """The benchmark's declared judge-scored measures for the run's sub-task (none when the
    benchmark cannot be built from the manifest's options)."""
    try:
        from scholarbench.core.engine import benchmark_class
        bench = benchmark_class(run.benchmark)(run.manifest.get("options") or {})
        return [m.key for m in bench.measures(run.mode) if getattr(m, "judge", False)]
    except Exception:          # a foreign or older run: the panel's keys only
        return []


def run_tables(run: Any) -> tuple[Table, ...]:
    """The two tables of one judged run; () when the run used no judge."""
    judges = run_judges(run.manifest)
    if not judges:
        return ()
    source = str(run.run_dir)
    measures = judged_measures(run.raw_summary, declared_judge_measures(run))
    tables = [judges_table(run.name, judges, source)]
    if measures:
        tables.append(agreement_table(run.name, run.raw_summary, measures, judges, source))
    return tuple(tables)


def judges_groups(runs: Sequence[Any]) -> list[TableGroup]:
    """One "Judges" group with every judged run's tables; [] when no run was judged."""
    tables = tuple(t for run in runs for t in run_tables(run))
    return [TableGroup("Judges", tables, benchmark="judges")] if tables else []
