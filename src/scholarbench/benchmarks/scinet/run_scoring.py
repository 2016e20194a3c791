"""SciNet's scoring of a run on the engine (`Benchmark.prepare_scoring`, `score_sample`).

`prepare`: the judges over the whole run, before any row — the review's always (its measures
are the judge's), the LLM-judged metrics with `--with-judge` — task by task in the run's order,
a paper judged once per run, the judgements kept in judge.jsonl and reused on a re-score, the
judges' usage and identity in the manifest (`judges.with_panel`). `row`: one task's row — the
deterministic metrics (`scoring.score_row`) or the review's (`review_scoring.review_row`), the
judge's columns, the upstream variant's own columns and the agent model's `agent_llm` (what
the summary sums)."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet import scoring
from scholarbench.benchmarks.scinet.judges import make_panel, make_review_panel, with_panel

JUDGED = "scinet.judged"        # ctx.shared: task id → the judge's columns


def prepare(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
            ctx: Any) -> None:
    judged: dict[str, dict[str, Any]] = {}
    store = ctx.run_dir.file(scoring.JUDGE_FILE)
    if ctx.manifest.get("mode") == "review":
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.review_scoring import judge_reviews
        with_panel(ctx.run_dir, make_review_panel(bench, store),
                   lambda panel: judged.update(judge_reviews(panel, samples, generated)))
    elif bench.with_judge:
        answers = {s.id: scoring.answer_of(generated.get(s.id)) for s in samples}
        tasks = [s.gold for s in samples if answers[s.id][1] != "error"]
        papers = {key: papers for key, (papers, _) in answers.items()}
        env = bench.env()
        with_panel(ctx.run_dir, make_panel(bench, store),
                   lambda panel: judged.update(scoring.judge_columns(panel, tasks, papers,
                                                                     env)))
    ctx.shared[JUDGED] = judged


def row(bench: Any, sample: Any, record: dict[str, Any] | None, ctx: Any) -> dict[str, Any]:
    if ctx.manifest.get("mode") == "review":
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.review_scoring import review_row
        out = review_row(sample, record, ctx.shared[JUDGED])
    else:
        papers, status = scoring.answer_of(record)
        out = scoring.score_row(sample.gold, papers, status, record, bench.env(), bench.variant)
        out.update(ctx.shared[JUDGED].get(sample.id, {}))
        scoring.variant_columns([out], bench.variant)
    if (agent_llm := scoring.agent_llm_fields(record)):
        out["agent_llm"] = agent_llm
    return out
