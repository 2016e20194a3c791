"""`score deepsynth --judged F --out S.jsonl`: re-score a file already judged in the upstream
format (``eval_result`` per sub-group, as upstream ``evaluate.py`` writes it; upstream
``score.py`` output is accepted too).

S.jsonl gets one line per task, in file order::

    {"task_id": 1, "dse_overall": 0.39862…, "dse_general": 0.27474…, "dse_constraint": 0.70833…,
     "n_correct": 43, "n_incorrect": 17, "n_not_mentioned": 23, "n_unscored": 0}

(null where a score is undefined; with ``variant="upstream"`` the three score keys carry
``(upstream=1)``). The rules are in :mod:`scholarbench.benchmarks.deepsynth.scores`. The output
file is replaced atomically; scoring is deterministic, so a rerun rewrites it whole. The prompts are
not needed to score, so a strict group without ``detailed_prompt`` is accepted here.

The summary is made as a run's is: each task's row as a run's scores.jsonl holds it
(`judged_rows`: the line above plus its counts, variant and status) goes through
`core.summarise.summarise` — status counts, every measure with its 95% interval, and
`scores.aggregate_rows`' means and counts (a judged file has no reports, judge calls, writer or
oracle to count).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.benchmark import SUBTASK, DeepSynthBenchmark
from scholarbench.data.trec import write_lines_atomic
from scholarbench.benchmarks.deepsynth.loader import load_tasks
from scholarbench.benchmarks.deepsynth.measures import BASE_KEYS
from scholarbench.benchmarks.deepsynth.scores import (DSE_PRECISION, TaskScore, Variant,
                                                      metric_key, score_task)
from scholarbench.core.summarise import summarise


JUDGED_FILE = "judged-file"     # the summary's agent: the reports were judged elsewhere


def judged_rows(scores: Sequence[TaskScore], variant: str) -> list[dict[str, Any]]:
    """What a run's scores.jsonl row holds of each task (its scores, counts, variant and
    status), for `core.summarise` — the summary of `score deepsynth` is a run's."""
    return [{**s.row(), **s.counts(), "variant": variant, "status": s.status} for s in scores]


def score_deepsynth_judged(judged_path: str | Path, out_path: str | Path,
                           variant: Variant = "paper") -> dict[str, Any]:
    """Score every task of ``judged_path``, write one line per task to ``out_path`` and return
    the summary: `core.summarise.summarise` over the tasks' rows (the run path's: status
    counts, the measures with their ``ci95``, `scores.aggregate_rows`' means and counts) plus
    the file names and ``n_requirements``."""
    tasks = load_tasks(judged_path, require_prompts=False)
    scores = [score_task(t, variant) for t in tasks]
    out_path = Path(out_path)
    write_lines_atomic(out_path, (json.dumps(s.row(), ensure_ascii=False) for s in scores))
    manifest = {"benchmark": "deepsynth", "mode": SUBTASK, "agent": JUDGED_FILE,
                "judged": str(judged_path), "options": {"variant": variant}}
    summary = summarise(DeepSynthBenchmark({"variant": variant}), judged_rows(scores, variant),
                        manifest, warn=False)
    summary.update(judged=str(judged_path), out=str(out_path),
                   n_requirements=sum(t.n_requirements for t in tasks))
    return summary


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f}%"


def format_summary(summary: dict[str, Any]) -> str:
    """Terminal text: the four means (×100, as the paper prints them) with their 95% interval
    and undefined counts, then the label counts and why items went unscored."""
    variant = summary["variant"]
    rules = "paper rules" if variant == "paper" else "upstream score.py rules"
    lines = [f"deepsynth ({rules}): {summary['n_tasks']} tasks, "
             f"{summary['n_groups']} groups ({summary['n_groups_undefined']} without a scored "
             f"item), {summary['n_empty_sub_groups']} empty sub-groups"]
    for base in BASE_KEYS:
        key = metric_key(base, variant)
        value = summary["means"][key]
        if base == DSE_PRECISION:
            note = (f"  ({summary['n_correct']} correct / "
                    f"{summary['n_correct'] + summary['n_incorrect']} mentioned, micro)")
        else:
            undefined = summary["n_undefined"][key]
            note = (f"  ({undefined} task{'' if undefined == 1 else 's'} undefined, excluded)"
                    if undefined else "")
        ci = ((summary.get("metrics") or {}).get(key) or {}).get("ci95")
        interval = f"  [95% CI {_pct(ci[0])}, {_pct(ci[1])}]" if ci else ""
        lines.append(f"  {key:<26} {_pct(value):>8}{interval}{note}")
    reasons = ", ".join(f"{k} {v}" for k, v in summary["unscored_reasons"].items())
    lines.append(f"  items: {summary['n_correct']} correct, {summary['n_incorrect']} incorrect, "
                 f"{summary['n_not_mentioned']} not mentioned, {summary['n_unscored']} unscored"
                 + (f" ({reasons})" if reasons else ""))
    return "\n".join(lines)


__all__ = ["JUDGED_FILE", "format_summary", "judged_rows", "score_deepsynth_judged"]
