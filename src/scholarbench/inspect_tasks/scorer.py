"""Our scoring as an Inspect scorer: one `Score` per sample, equal to the row `scholarbench
score` writes for the same answer.

`score_reply` is the engine's path, one sample at a time: the solver's final reply becomes the
sample's generate record as `scholarbench run --agent endpoint` makes it (`reply.ReplyAgent`
through `core.solving.solve_one`: parsed, checked against the output limits and the family's
schema), then `core.scoring.score_samples` (the benchmark's `prepare_scoring` and
`score_sample`) and `settle_rows` (status, reason, unresolved references, injection flags) in
the task's scratch run directory.

The `Score`'s value is a dict: every per-sample measure of the sub-task (`Benchmark.measures`
without an aggregator of its own, so no pooled measure) keyed by its printed name, NaN where the
row holds none (Inspect's "not scored": left out of the mean, as our summary leaves undefined
values out). Its metadata has the row's `status` and `reason`, the rest of the row and the
generate record; `explanation` is the reason, `answer` the reply's start. The metric is a plain
`mean` per measure; our intervals, pooled measures and judged measures stay `scholarbench`'s.
"""
from __future__ import annotations

import math
from typing import Any

import anyio
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from scholarbench.core.agent import AgentContext
from scholarbench.core.columns import is_number
from scholarbench.core.limits import scored_as_missing
from scholarbench.core.models import Models
from scholarbench.core.scoring import score_samples, settle_rows
from scholarbench.core.solving import solve_one
from scholarbench.core.writing import TRANSCRIPT_KEY
from scholarbench.export.inspect_log import preview
from scholarbench.export.task_inputs import plain
from scholarbench.inspect_tasks.dataset import TaskData
from scholarbench.inspect_tasks.reply import ReplyAgent

ROW_OWN = ("status", "reason")


def measure_keys(data: TaskData) -> list[str]:
    """The sub-task's per-sample measures: declared, not pooled, not a judge's."""
    return [m.key for m in data.bench.measures(data.subtask)
            if m.aggregator is None and not m.judge]


def score_reply(data: TaskData, sample_id: str, text: str
                ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(score row, generate record) of `text` as sample `sample_id`'s answer (module
    docstring); one sample at a time (the benchmark and the scratch run are shared)."""
    bench, sample = data.bench, data.samples[sample_id]
    with data.lock:
        ctx = AgentContext(benchmark=bench.name, subtask=data.subtask)
        record = solve_one(bench, ReplyAgent(text), sample, ctx)
        record.pop(TRANSCRIPT_KEY, None)
        generated = {sample.id: record}
        rows = score_samples(bench, [sample], scored_as_missing(generated), data.manifest,
                             data.run, Models(), progress=False)    # no judge: refused
        settle_rows(bench, rows, generated)
    return rows[0], record


def row_score(row: dict[str, Any], record: dict[str, Any], keys: list[str], id_key: str,
              text: str) -> Score:
    """The row as one Inspect `Score` (module docstring)."""
    value: dict[str, float] = {k: float(row[k]) if is_number(row.get(k)) else math.nan
                               for k in keys}
    status, reason = row.get("status") or "scored", row.get("reason")
    rest = {k: v for k, v in row.items() if k not in (id_key, *ROW_OWN, *keys)}
    answer = {k: v for k, v in record.items() if k not in (id_key, "seconds")}
    return Score(value=value, answer=preview(text), explanation=reason,
                 metadata={"status": status, "reason": reason, "score_row": plain(rest),
                           "generate_record": plain(answer)})


@scorer(metrics={"*": [mean()]})
def benchmark_scorer(data: TaskData) -> Scorer:
    """Scores a sample's final reply (`state.output.completion`) as `scholarbench score`
    scores the same answer."""
    keys = measure_keys(data)

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion or ""
        row, record = await anyio.to_thread.run_sync(score_reply, data, str(state.sample_id),
                                                     text)
        return row_score(row, record, keys, data.bench.id_key, text)

    return score


__all__ = ["benchmark_scorer", "measure_keys", "row_score", "score_reply"]
