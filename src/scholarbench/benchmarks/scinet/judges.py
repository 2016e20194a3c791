"""Who judges a SciNet scoring: every judge client of the run (a panel: several judges, each
asked `judge_samples()` times — `panel.py`) under the run's scoring rules and prompts, and what
the judging leaves in the run (its usage, the judges' models and identity in the manifest)."""
from __future__ import annotations

from typing import Any, Callable

from scholarbench.core.usage import add_stage_usage, usage_snapshot
from scholarbench.errors import ScholarbenchError


def make_judge(bench: Any, client: Any, store: Any) -> Any:
    """The judge under the scoring rules (upstream's scripts judge the first 5 items) with the
    chosen prompts (`--judge-prompt`)."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.judge import SciNetJudge
    from scholarbench.benchmarks.scinet.upstream import TOP
    prompts = bench.options.get("judge_prompt") or "v1"
    if prompts not in ("v1", "upstream"):
        raise ScholarbenchError(f"unknown judge prompt set {prompts!r}; use v1 or upstream")
    if bench.variant == "upstream":
        return SciNetJudge(client, k=min(bench.judge_k, TOP), store=store, first=TOP,
                           empty_value=None, prompt_set=prompts)
    return SciNetJudge(client, k=bench.judge_k, store=store, prompt_set=prompts)


def make_panel(bench: Any, store: Any) -> Any:
    """Every judge under the scoring rules, asked `judge_samples` times."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.panel import JudgePanel
    return JudgePanel([make_judge(bench, c, store) for c in bench.judge_clients()],
                      bench.judge_samples())


def make_review_panel(bench: Any, store: Any) -> Any:
    """The review judge (`review_judge.py`), every judge of a panel, `judge_samples` times."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.panel import JudgePanel
    from scholarbench.benchmarks.scinet.review_judge import ReviewJudge
    return JudgePanel([ReviewJudge(c, store=store) for c in bench.judge_clients()],
                      bench.judge_samples())


def with_panel(run: Any, panel: Any, work: Callable[[Any], None]) -> None:
    """`work(panel)`, then the judgements saved and the judges' usage, models and identity
    recorded in the manifest (even when the work fails midway)."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.panel import judge_roles, panel_models
    clients = [j.client for j in panel.judges]
    before = [usage_snapshot(c) for c in clients]
    try:
        work(panel)
    finally:
        panel.save()
        for role, client, b in zip(judge_roles(panel), clients, before):
            add_stage_usage(run, "score", role, client, b)
        manifest = run.read_manifest()
        manifest.setdefault("models", {}).update(panel_models(panel))
        manifest["judge"] = {**panel.identity(), "asked_last_scoring": panel.asked}
        run.write_manifest(manifest)
