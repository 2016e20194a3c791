"""SciNet's judge calls before a run or re-score (`--dry-run`, `core.planning`)."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet.judge import ego_metric, ego_subjects
from scholarbench.benchmarks.scinet.measures import K
from scholarbench.benchmarks.scinet.scoring import answer_of
from scholarbench.benchmarks.scinet.upstream import TOP
from scholarbench.core.judging import CallPlan
from scholarbench.core.planning import PlannedCalls


def ego_plan(tasks: Sequence[Any], papers: dict[str, list[Any]], env: Any, first: int,
             k: int) -> CallPlan:
    """The ego judge calls of one judge asked once: one per (measure, paper) — a paper judged
    for both novelty and disruption is two calls — chosen as `SciNetJudge.score` chooses."""
    plan = CallPlan("score")
    for t in tasks:
        for gid in ego_subjects(papers.get(t.task_id) or [], env, first, k):
            plan.add(ego_metric(t), gid, t.task_id)
    return plan


def planned_judge_calls(bench: Any, subtask: str, samples: Sequence[Any],
                        generated: dict[str, dict[str, Any]] | None = None) -> list[PlannedCalls]:
    """`--dry-run`: with `--with-judge`, per judge and repeat: 1 call per path task with a
    non-empty answer; 1 per distinct in-graph paper among the first `judge_k` of each ego
    answer (a paper is judged once per run). Judgements recorded in the run are reused,
    so a re-score makes at most these."""
    if subtask == "review":         # judged always: one call scores the five dimensions
        n = len(samples) if generated is None else sum(
            1 for s in samples if (generated.get(s.id) or {}).get("status", "ok") == "ok")
        return [PlannedCalls("score", bound=n, basis="review: 1 per review task whose "
                             "answer is a review (+1 repair per unusable reply)")]
    if not bench.with_judge:
        return []
    upstream = bench.variant == "upstream"
    first, k = (TOP, min(bench.judge_k, TOP)) if upstream else (K, bench.judge_k)
    samples = [s for s in samples if s.unscorable is None]
    tasks = [s.gold for s in samples]
    papers = {s.id: answer_of(generated.get(s.id))[0] or [] for s in samples} \
        if generated is not None else None
    out = []
    if path := [t for t in tasks if t.family == "path"]:
        n = len(path) if papers is None else sum(bool(papers[t.task_id]) for t in path)
        out.append(PlannedCalls("score", bound=n, basis="path_rationality_llm: 1 per path "
                                "task with a non-empty answer (+1 repair per unusable "
                                "reply)"))
    if ego := [t for t in tasks if t.family == "ego"]:
        if papers is None:
            n = k * len(ego)
        else:
            n = len(ego_plan(ego, papers, bench.env(), first, k))
        out.append(PlannedCalls("score", bound=n, basis=f"novelty/disruption_llm: 1 per "
                                f"distinct in-graph paper in the first {k} of each ego "
                                "answer and measure, once per run (+1 repair per unusable "
                                "reply)"))
    if not out:
        out.append(PlannedCalls("score", calls=0, basis="pair tasks are not judged"))
    return out
