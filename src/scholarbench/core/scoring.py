"""Scoring a run: the one loop that turns answers into score rows, the engine's (DESIGN.md
"Judging is the engine's").

A benchmark says what to compute — its cross-sample `stages`, the `judged_items` the judge
stage asks (`core.judge_stage`), `prepare_scoring` and `score_sample` — and this module runs
them: every judged item's verdicts first, then one `score_sample` per sample, so every sample
has exactly one row (never skipped). The run's models and `--quiet` reach the benchmark through
its `ScoreContext`, not through state set on the benchmark. `settle_rows` then gives each row
its one status and reason; the engine (`score`, `run`) and the Inspect scorer
(`inspect_tasks.scorer`, one sample at a time) both score this way.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.core import refs
from scholarbench.core.benchmark import Benchmark, Sample, ScoreContext
from scholarbench.core.epochs import mark
from scholarbench.core.judge_stage import judge_stage
from scholarbench.core.status import reason_of, sample_status
from scholarbench.injection.detect import flag_injections

# a row's keys the engine fills when the benchmark leaves them unset (`core.engine`)
ENGINE_FILLED = ("reason", "unresolved", "n_refs")


def score_samples(bench: Benchmark, samples: Sequence[Sample],
                  generated: dict[str, dict[str, Any]], manifest: dict[str, Any],
                  run_dir: Any, models: Any, *, progress: bool = True
                  ) -> list[dict[str, Any]]:
    """Every sample's score row: the benchmark's `stages`, the judge stage of each of its
    `judged_items` (every judge of `models`' panel, K times), `prepare_scoring`, then
    `score_sample` one sample at a time."""
    files = bench.stages(samples, generated, run_dir)
    verdicts: dict[str, Any] = {}          # in order: an item may need those before it
    for item in bench.judged_items(manifest.get("mode")):
        verdicts[item.name] = judge_stage(run_dir, item, samples, generated, models,
                                          id_key=bench.id_key, progress=progress,
                                          earlier=verdicts)
    ctx = ScoreContext(manifest, {f: run_dir.stage(f, bench.id_key).records for f in files},
                       verdicts, run_dir=run_dir, models=models, progress=progress)
    bench.prepare_scoring(samples, generated, ctx)
    rows = []
    for sample in samples:
        row = bench.score_sample(sample, generated.get(sample.id), ctx)
        row = row.model_dump(mode="json") if hasattr(row, "model_dump") else dict(row)
        for key in ENGINE_FILLED:
            if row.get(key) is None:
                row.pop(key, None)
        if str(row.get(bench.id_key)) != sample.id:   # the engine's key wins (an epoch's
            row[bench.id_key] = sample.id             # `ID#e` over the task's own id)
        rows.append(mark(row, sample))        # and which epoch (`core.epochs`)
    return rows


def settle_rows(bench: Benchmark, rows: list[dict[str, Any]],
                generated: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Finish `score_samples`' rows in place as every output reads them: each row's
    unresolved references (`core.refs`), its one status and the reason for it (`core.status`:
    an errored or oversized answer's error, …), and the injection flags; returns the errored
    samples' count per reason."""
    refs.attach(rows, generated, bench.id_key)
    errors: dict[str, int] = {}
    for row in rows:
        rec = generated.get(str(row[bench.id_key]))
        if rec is not None and rec.get("status") in ("error", "oversized"):
            row["error"] = rec.get("error")
            row.pop("missing", None)      # counted under its own status, not as missing
        status = sample_status(row, rec)      # one status in every file (core.status); a
        if status != "scored" or row.get("status") is None:   # scored sub-status stays
            row["status"] = status
        if row["status"] == "error":
            reason = str(row.get("error") or "error").split(":")[0][:80]
            errors[reason] = errors.get(reason, 0) + 1
        if (why := reason_of(row["status"], row, rec)) is not None:
            row["reason"] = why       # scores.jsonl explains itself (core.summarise)
    flag_injections(rows, generated, bench.id_key)
    return errors


__all__ = ["score_samples", "settle_rows"]
