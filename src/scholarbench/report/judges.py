"""The report's judges panel, the same for every benchmark that scores with an LLM judge
(docs/judges.md, docs/reports.md).

Per judged run, one `Table`: who judged and, per judged measure, the panel's mean, each
judge's mean, α between the judges, each judge's spread over its repeats and `alpha_repeats`,
and the unscored counts; the notes name each judge (model id, temperature, samples K) with the
injection shift `scholarbench judge-check` measured for it, or say none was measured. A run
with one judge asked once says so: no agreement is measured there. Over several runs with a
panel, `rankings_table` says how each judge ranks the runs (Kendall τ-b between every two
judges, and whether the top run stays on top: `metrics.agreement.rank_agreement`).

Everything comes from the run's files, read the same way for every benchmark:
- manifest.json: `judge.panel` (label, model_id, temperature, seeds), `judge.samples`,
  `models.judges` / `models.judge` (and `models.vote_judges`, ReportBench's voters),
  `injection_check.<judge model id>`;
- summary.json: `judge_panel`, `judge_agreement`, `metrics.<measure>` (mean, n, n_unscored);
- scores.jsonl: `<measure>_unscored` per row, each judge's under `judges.<judge>`.

The judged measures of a run: the summary's `judge_panel` keys, then the benchmark's measures
declared `judge=True` (`Benchmark.measures`) that the run reports. As `Table`s, the terminal,
Markdown, LaTeX and HTML outputs show the same cells.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from scholarbench.metrics.agreement import PANEL_KEY, counted, per_judge_of, rank_agreement
from scholarbench.core.measure import Measure
from scholarbench.core.registry import REGISTRY
from scholarbench.report.sections.base import ReportRun, section_for
from scholarbench.report.tables import Row, Table, TableGroup

TITLE = "Judges"
NO_AGREEMENT = "one judge, one sample: no agreement measured"
HEADER = ("measure", "judge", "mean", "n", "unscored", "spread", "α repeats",
          "α between judges")
EXPLAIN = ("α: Krippendorff's α (1 = full agreement, 0 = what unrelated ratings give; below "
           "about 0.67 the judges disagree too much to trust the measure; undefined with under two "
           "items rated twice, or every rating equal). spread: within one "
           "judge, the mean over items of its repeats' standard deviation, in the measure's "
           "units. unscored: judge replies unusable after the repair turn, left out of the "
           "means. docs/judges.md")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(float(value))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Judge:
    """One judge of a run, as its manifest records it (any part may be unrecorded)."""
    label: str
    model_id: str | None
    temperature: float | None
    samples: int | None                         # None: not recorded (vote judges)
    seeds: tuple[Any, ...] = ()
    injection: dict[str, Any] | None = None     # manifest `injection_check.<model id>`


def _injection(manifest: Mapping[str, Any], model_id: str | None, name: str
               ) -> dict[str, Any] | None:
    """The judge-check entry of this judge: by its model id, else the one entry whose model
    name (after the last '|') is the judge's name."""
    checks = _dict(manifest.get("injection_check"))
    if model_id and isinstance(checks.get(model_id), dict):
        return checks[model_id]
    tails = [v for k, v in checks.items() if isinstance(v, dict)
             and str(k).rsplit("|", 1)[-1] == name]
    return tails[0] if len(tails) == 1 else None


def judges_of(run: ReportRun) -> list[Judge]:
    """The run's judges: the manifest's panel, else its one judge; [] when none is recorded.
    A benchmark judged through the engine's judge stage describes them in its summary's
    `judge` (the same fields, from the manifest's `judged.<item>`: TaxoBench)."""
    m = run.manifest
    judge = _dict(m.get("judge")) or _dict(run.raw_summary.get("judge"))
    models = _dict(m.get("models"))
    k = judge.get("samples") if isinstance(judge.get("samples"), int) else 1
    configs = {str(c.get("label") or c.get("model")): c for c in models.get("judges") or []
               if isinstance(c, dict)}
    panel = [p for p in judge.get("panel") or [] if isinstance(p, dict) and p.get("label")]
    if panel:
        out = []
        for p in panel:
            label = str(p["label"])
            config = configs.get(label, {})
            model_id = p.get("model_id") or config.get("model_id")
            temp = p.get("temperature", config.get("temperature"))
            out.append(Judge(label, model_id, temp if _number(temp) else None, k,
                             tuple(p.get("seeds") or ()),
                             _injection(m, model_id, str(config.get("model") or label))))
        return out
    engine = _engine_judges(m)
    if engine and not models.get("judge"):
        return engine
    one = _dict(models.get("judge"))
    model_id = one.get("model_id") or judge.get("model_id") or \
        (m.get("judge") if isinstance(m.get("judge"), str) else None)
    if not one and not model_id:
        return []
    out, labels = [], []
    voters = [v for v in models.get("vote_judges") or [] if isinstance(v, dict)]
    for i, c in enumerate([{**one, "model_id": model_id}, *voters]):
        name = str(c.get("model") or str(c.get("model_id")).rsplit("|", 1)[-1])
        label, n = name, 1
        while label in labels:
            n += 1
            label = f"{name}#{n}"
        labels.append(label)
        temp = c.get("temperature")
        out.append(Judge(label, c.get("model_id"), temp if _number(temp) else None,
                         k if i == 0 else None,
                         injection=_injection(m, c.get("model_id"), name)))
    return out


def _engine_judges(m: Mapping[str, Any]) -> list[Judge]:
    """The judges the engine's judge stage recorded (`judged.<item>`: label, model, base URL,
    temperature, each repeat's seed) of the run's first judged item."""
    for entry in _dict(m.get("judged")).values():
        judges = [j for j in _dict(entry).get("judges") or [] if isinstance(j, dict)]
        if not judges:
            continue
        k = entry.get("repeats") if isinstance(entry.get("repeats"), int) else 1
        out = []
        for j in judges:
            model_id = f"{j.get('base_url') or 'openai'}|{j.get('model')}"
            temp = j.get("temperature")
            out.append(Judge(str(j.get("label") or j.get("model")), model_id,
                             temp if _number(temp) else None, k, tuple(j.get("seeds") or ()),
                             _injection(m, model_id, str(j.get("model")))))
        return out
    return []


def _declared(benchmark: str, mode: str) -> list[str]:
    cls = REGISTRY.find("benchmark", benchmark)
    try:
        return [x.key for x in cls({}).measures(mode or None) if x.judge] if cls else []
    except Exception:       # a plug-in whose measures need options: none declared here
        return []


def judged_measures(run: ReportRun) -> list[str]:
    """The run's judge-scored measures (see the module docstring)."""
    out = [k for k in _dict(run.raw_summary.get("judge_panel"))]
    reported = run.summary.metrics
    out += [k for k in _declared(run.benchmark, run.mode) if k in reported and k not in out]
    return out


def _display(run: ReportRun, key: str) -> Measure:
    """The measure's display in its section; a percent printed without its sign there (under
    a "(%)" header, DeepSynth's) gets the sign back here, where no header says so."""
    shown = {d.key: d for d in section_for(run.benchmark).metrics(run.mode)}
    d = shown.get(key) or Measure(run.benchmark, key, label=key, decimals=3,
                                  bounds=(None, None))
    return replace(d, sign="%") if d.percent and not d.sign else d


def _unscored(run: ReportRun, key: str, judge: str | None = None) -> int | None:
    """Unscored judge replies on `key`: the rows' `<key>_unscored` (a judge's own under
    `judges.<judge>`), else (the whole run) the summary's `metrics.<key>.n_unscored`."""
    column, total, seen = f"{key}_unscored", 0, False
    for row in counted(run.scores):
        source = _dict(_dict(row.get(PANEL_KEY)).get(judge)) if judge else row
        if _number(source.get(column)):
            total, seen = total + int(source[column]), True
    if seen or judge:
        return total if seen else None
    n = _dict(_dict(run.raw_summary.get("metrics")).get(key)).get("n_unscored")
    return int(n) if _number(n) else None


def _repeats(entry: Mapping[str, Any]) -> int:
    return int(entry["repeats"]) if _number(entry.get("repeats")) else 0


def _alpha(value: Any, none: str = "undefined") -> str:
    return f"{value:.3f}" if _number(value) else none


def _count(value: Any) -> str:
    return f"{int(value):,}" if _number(value) else "—"


def injection_text(entry: Mapping[str, Any] | None) -> str:
    """The judge-check figures of one judge in a few words."""
    if not entry:
        return "none measured (scholarbench judge-check)"
    o = _dict(entry.get("overall"))
    if not _number(o.get("mean_shift")):
        return f"judge-check scored no pair ({o.get('n_unscored', 0)} unscored)"
    moved = o.get("share_moved")
    return (f"{entry.get('measure')} {o['mean_shift']:+.3f} over {o.get('n')} pairs"
            + (f" ({100 * moved:.0f}% moved)" if _number(moved) else "") + ", judge-check")


def _judge_note(j: Judge) -> str:
    seeds = f" (seeds {', '.join(map(str, j.seeds))})" if j.seeds and (j.samples or 0) > 1 \
        else ""
    temp = "not recorded" if j.temperature is None else f"{j.temperature:g}"
    samples = ("samples per item not recorded" if j.samples is None else
               f"{j.samples} sample{'' if j.samples == 1 else 's'} per item")
    return (f"{j.label}: model id {j.model_id or 'not recorded'}, temperature {temp}, "
            f"{samples}{seeds}; injection shift: {injection_text(j.injection)}")


def judge_table(run: ReportRun, explain: bool = True) -> Table | None:
    """The run's judges panel (see the module docstring); None when no judge scored it.
    `explain`: with a panel, end with what α, spread and unscored mean."""
    keys = judged_measures(run)
    if not keys:
        return None
    panel = _dict(run.raw_summary.get("judge_panel"))
    judges = judges_of(run)
    known = {j.label for j in judges}
    for entries in panel.values():        # a panel judge the manifest does not name
        for label, e in _dict(entries).items():
            if label not in known and isinstance(e, dict):
                known.add(label)
                judges.append(Judge(label, None, None, _repeats(e) or 1))
    agreement = _dict(run.raw_summary.get("judge_agreement"))
    rows: list[Row] = []
    for key in keys:
        d, name, own = _display(run, key), key, run.summary.metrics.get(key)
        per_judge = {j: e for j, e in _dict(panel.get(key)).items() if isinstance(e, dict)}
        mean = own.mean if own else None
        if not per_judge:
            label = judges[0].label if len(judges) == 1 else \
                f"{len(judges)} judges" if judges else "not recorded"
            rows.append(Row("ours", (name, label, d.format(mean), _count(own.n if own else None),
                                     _count(_unscored(run, key)), "—", "—", "—"),
                            (mean,), str(run.run_dir)))
            continue
        a = _dict(agreement.get(key))
        n_judges = len(per_judge)
        rows.append(Row("ours", (name, f"panel ({n_judges} judge{'' if n_judges == 1 else 's'})",
                                 d.format(mean), _count(own.n if own else None),
                                 _count(_unscored(run, key)), "", "",
                                 _alpha(a.get("alpha")) if n_judges > 1 else "—"),
                        (mean,), str(run.run_dir)))
        for label, e in per_judge.items():
            value = e.get("mean") if _number(e.get("mean")) else None
            spread = e.get("spread") if _number(e.get("spread")) else None
            repeated = _repeats(e) > 1
            rows.append(Row("ours", ("", label, d.format(value), _count(e.get("n")),
                                     _count(_unscored(run, key, label)),
                                     d.format(spread) if repeated else "—",
                                     _alpha(e.get("alpha_repeats")) if repeated else "—", ""),
                            (value,), str(run.run_dir)))
    notes = [_judge_note(j) for j in judges] or ["the judge is not recorded in the manifest"]
    k = max((j.samples or 1 for j in judges), default=1)
    n_panel = max((len(_dict(v)) for v in panel.values()), default=0)
    if not panel and len(judges) <= 1 and k < 2:
        notes.append(f"{NO_AGREEMENT} (no second judge and no repeat to compare with: read "
                     "small gaps between runs as ties)")
    elif not panel:
        notes.append(f"{len(judges)} judge(s) recorded, but the summary holds no agreement "
                     "between them (no `judge_panel`): no agreement measured")
    else:
        if n_panel < 2:
            notes.append("one judge: no agreement between judges measured, only its repeats")
        if k < 2:
            notes.append("one sample per judge: no within-judge spread measured")
        elif any(j.temperature == 0 for j in judges):
            notes.append("at temperature 0 the repeats measure only the endpoint's "
                         "nondeterminism")
        if explain:
            notes.append(EXPLAIN)
    return Table(f"{TITLE} — {run.name} ({run.benchmark} {run.mode})", HEADER, tuple(rows),
                 tuple(notes))


def _unique_names(runs: Sequence[ReportRun]) -> dict[str, ReportRun]:
    out: dict[str, ReportRun] = {}
    for r in runs:
        name = r.name if r.name not in out else f"{r.name} [{r.run_dir.name}]"
        out[name] = r
    return out


def rank_runs(runs: Mapping[str, ReportRun], key: str) -> dict[str, Any] | None:
    """`rank_agreement` of the runs' per-judge means of `key` (their summaries'
    `judge_panel`), over the runs that have them; None under two runs or two judges."""
    means = {name: per_judge_of(r.raw_summary, key) for name, r in runs.items()}
    means = {name: m for name, m in means.items() if m}
    if len(means) < 2 or len({j for m in means.values() for j in m}) < 2:
        return None
    return rank_agreement(means)


def tau_text(tau: float | None) -> str:
    return "undefined" if tau is None else f"{tau:.2f}"


def top_text(ranks: Mapping[str, Any], esc: Callable[[object], str] = str) -> str:
    """Whether the top run stays on top; run names and judge labels through `esc` (the
    report's tables escape the whole note themselves)."""
    if ranks["top_stays"]:
        return f"every judge puts {esc(ranks['top_run'])} on top"
    tops = ", ".join(f"{esc(j)} {esc(run) if run is not None else '(a tie)'}"
                     for j, run in ranks["top_by_judge"].items())
    return f"the top run changes with the judge (top by judge: {tops})"


def rankings_table(runs: Sequence[ReportRun]) -> Table | None:
    """Per (benchmark, mode, judged measure) over the runs whose panel rated it (two or
    more): Kendall τ-b between every two judges' rankings of the runs, and the top run."""
    groups: dict[tuple[str, str, str], list[ReportRun]] = {}
    for r in runs:
        for key in _dict(r.raw_summary.get("judge_panel")):
            groups.setdefault((r.benchmark, r.mode, key), []).append(r)
    rows, notes = [], []
    for (bench, mode, key), group in groups.items():
        ranks = rank_runs(_unique_names(group), key)
        if ranks is None:
            continue
        name = f"{key}, {bench} {mode}"
        for i, (pair, t) in enumerate(ranks["kendall_tau"].items()):
            rows.append(Row("ours", (name if i == 0 else "", pair, str(t["n_runs"]),
                                     tau_text(t["tau"]),
                                     ("yes" if ranks["top_stays"] else "no") if i == 0 else ""),
                            (t["tau"],)))
        notes.append(f"{name}: {top_text(ranks)}")
    if not rows:
        return None
    notes.append("Kendall τ-b between two judges' orderings of the runs by their means "
                 "(1 = the same order, −1 = reversed; undefined with ties only); a ranking "
                 "that changes with the judge is not a finding about the agents.")
    return Table("Judges' rankings of the runs", ("measure", "judges", "runs", "Kendall τ-b",
                                                  "top run stays on top"),
                 tuple(rows), tuple(notes))


def judge_groups(runs: Sequence[ReportRun]) -> list[TableGroup]:
    """The judges panel of every judged run, then the judges' rankings: one group, or none."""
    tables: list[Table] = []
    for run in runs:
        table = judge_table(run, explain=not any(EXPLAIN in t.notes for t in tables))
        tables += [table] if table is not None else []
    ranking = rankings_table(runs)
    if ranking is not None:
        tables.append(ranking)
    return [TableGroup(TITLE, tuple(tables), "judges", "")] if tables else []


__all__ = ["Judge", "NO_AGREEMENT", "judge_groups", "judge_table", "judged_measures",
           "judges_of", "injection_text", "rank_runs", "rankings_table", "tau_text", "top_text"]
