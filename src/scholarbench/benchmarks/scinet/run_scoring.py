"""SciNet's scoring of a run on the engine (`Benchmark.prepare_scoring`, `score_sample`).

`prepare`: each task's judge columns from the verdicts of the sub-task's judged item
(`judged.py`): those the engine's judge stage gave now (`ctx.verdicts`: the review always, the
LLM-judged metrics with `--with-judge`), else — a re-score that asks no judge — those on file
of the judges the manifest's `judged.<item>` names (`core.judge_stage.recorded`); a run never
judged has none. `row`: one task's row — the deterministic metrics (`scoring.score_row`) or the
review's (`review_scoring.review_row`), the judge's columns, the upstream variant's own
columns and the agent model's `agent_llm` (what the summary sums)."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet import scoring
from scholarbench.benchmarks.scinet.judged import items_for, rules_of
from scholarbench.benchmarks.scinet.panel import task_columns
from scholarbench.benchmarks.scinet.review_scoring import review_row
from scholarbench.core.judge_stage import judged_entry, recorded, recorded_judges

JUDGED = "scinet.judged"        # ctx.shared: task id → the judge's columns


def judged_columns(bench: Any, item: Any, samples: Sequence[Any],
                   generated: dict[str, dict[str, Any]], verdicts: Any,
                   entry: dict[str, Any], repeats: int) -> dict[str, dict[str, Any]]:
    """Task id → its judge columns from `item`'s verdicts, the judges `entry` (the manifest's
    `judged.<item>`) names, each asked `repeats` times."""
    labels = [str(j["label"]) for j in recorded_judges(entry)]
    rules = rules_of(bench) if item.name != "review" else None
    out = {}
    for s in samples:
        if cols := task_columns(item, rules, s, generated.get(s.id), verdicts, labels, repeats):
            out[s.id] = cols
    return out


def prepare(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
            ctx: Any) -> None:
    judged: dict[str, dict[str, Any]] = {}
    manifest = ctx.run_dir.read_manifest()
    for item in items_for(bench, ctx.manifest.get("mode")):
        asked = ctx.verdicts.get(item.name)
        verdicts = asked if asked is not None else recorded(ctx.run_dir, item, samples,
                                                            generated)
        entry = judged_entry(manifest, item.name)
        if verdicts is None or entry is None:
            continue
        repeats = int(entry.get("repeats") or 1)
        if asked is not None:        # a stage with no request records one repeat
            repeats = max(repeats, int(getattr(ctx.models, "judge_samples", 1) or 1))
        judged.update(judged_columns(bench, item, samples, generated, verdicts, entry, repeats))
    ctx.shared[JUDGED] = judged


def row(bench: Any, sample: Any, record: dict[str, Any] | None, ctx: Any) -> dict[str, Any]:
    if ctx.manifest.get("mode") == "review":
        out = review_row(sample, record, ctx.shared[JUDGED])
    else:
        papers, status = scoring.answer_of(record)
        out = scoring.score_row(sample.gold, papers, status, record, bench.env(), bench.variant)
        out.update(ctx.shared[JUDGED].get(sample.id, {}))
        scoring.variant_columns([out], bench.variant)
    if (agent_llm := scoring.agent_llm_fields(record)):
        out["agent_llm"] = agent_llm
    return out
