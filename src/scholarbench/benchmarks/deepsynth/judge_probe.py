"""DeepSynth-Eval's side of `judge-check`: the checklist judge's Overall score of a report
with a probe appended (the judge reads the whole report, inside its quoted block)."""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.deepsynth.judge import judge_task
from scholarbench.benchmarks.deepsynth.loader import parse_task
from scholarbench.benchmarks.deepsynth.scores import score_task
from scholarbench.benchmarks.deepsynth.stages import report_status


def judge_with_probe(bench: Any, sample: Any, record: dict[str, Any],
                     probe: str | None, client: Any) -> float | None:
    if report_status(record) != "ok":
        return None
    report = record["report"] if probe is None else record["report"].rstrip() + "\n\n" + probe
    judged, _ = judge_task(client, sample.gold, report=report,
                           prompt=bench._opt("judge_prompt", "checklist_judge_v1"),
                           retries=bench._opt("judge_retries", 2))
    return score_task(parse_task(judged, require_prompts=False),
                      bench._variant()).dse_overall  # type: ignore[arg-type]
