"""DeepSynth-Eval's side of `judge-check`: the checklist judge's Overall score of a report
with a probe appended (the judge reads the whole report, inside its quoted block)."""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.deepsynth.scores import score_task
from scholarbench.benchmarks.deepsynth.loader import parse_task


def judge_with_probe(bench: Any, sample: Any, record: dict[str, Any],
                     probe: str | None) -> float | None:
    from scholarbench.benchmarks.deepsynth.stages import judge_task, judged_record, report_status
    if report_status(record) != "ok":
        return None
    if probe is not None:
        record = {**record, "report": record["report"].rstrip() + "\n\n" + probe}
    line = judge_task(bench.models.judge(), sample.gold, record,
                      prompt=bench._opt("judge_prompt", "checklist_judge_v1"),
                      retries=bench._opt("judge_retries", 2))
    judged = parse_task(judged_record(sample.gold, line, record), require_prompts=False)
    return score_task(judged, bench._variant()).dse_overall  # type: ignore[arg-type]
