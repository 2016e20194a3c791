"""`--dry-run`: how many model calls a run would make, printed before any is made.

Each benchmark says what its judge stages would ask (`Benchmark.planned_judge_calls`: one
`PlannedCalls` per stage and role, for ONE judge asked once); this module multiplies a stage
that scores with a panel (`PlannedCalls.panel`, on a benchmark with `judge_panel`) by the
panel's judges — one line per judge, under the usage role its manifest entry will have
(`judge`, `judge_2`, …) — and by `--judge-samples K`, adds the agent's calls where they are
known, and prints it all. Nothing here binds a model, opens the reply cache or writes a file.

A count is given as the tasks and options fix it: `calls` exact, else `bound` (at most), else
only the rule (`basis`: "1 per cited statement of each report"). Counts are requests before
the reply cache (a cached reply is no request) and without repair turns (a judge asks again
after an unusable reply: `basis` says so where it does).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from scholarbench.core.judge_stage import plan
from scholarbench.core.judging import JudgeIdentity

NOT_KNOWN = "not known before the answers"


@dataclass(frozen=True)
class PlannedCalls:
    """The model calls one stage would make with one judge asked once (or the agent's)."""
    stage: str                      # the manifest's usage stage (`usage.<stage>.<role>`)
    role: str = "judge"             # "judge" (a panel: judge, judge_2, …) or "agent"
    calls: int | None = None        # exactly this many, when the tasks and options fix it
    bound: int | None = None        # at most this many, when the answers decide
    basis: str = NOT_KNOWN          # the rule the count follows
    panel: bool = True              # asked of every judge of a panel, K times each
    model: str | None = None        # the judge's model name, for the printout

    def times(self, k: int) -> "PlannedCalls":
        return replace(self, calls=None if self.calls is None else self.calls * k,
                       bound=None if self.bound is None else self.bound * k)

    @property
    def count(self) -> str:
        if self.calls is not None:
            return f"{self.calls} calls"
        if self.bound is not None:
            return f"≤ {self.bound} calls"
        return "? calls"


def planned_item_calls(item: Any, samples: Sequence[Any],
                       generated: dict[str, dict[str, Any]] | None) -> Any:
    """The dry run's count of a judged item for one judge asked once: exact when the answers
    are known (the same `core.judge_stage.plan` the run executes), else a bound from the
    item's requests per answered sample."""
    scorable = [s for s in samples if s.unscorable is None]
    if generated is not None:
        one = JudgeIdentity("judge", "judge", "?")
        n = len({p.key for p in plan(item, scorable, generated, [one], 1)})   # as the run
        if item.calls > 1:          # a two-step request: its second call may not be needed
            return PlannedCalls(item.name, bound=n * item.calls, panel=item.panel,
                                basis=f"{item.name}: at most {item.calls} calls per request "
                                "of the answers")
        return PlannedCalls(item.name, calls=n, panel=item.panel,
                            basis=f"{item.name}: requests of the answers")
    if item.per_sample is not None:
        return PlannedCalls(item.name, bound=item.per_sample * len(scorable), panel=item.panel,
                            basis=f"{item.per_sample} per answered sample")
    if item.bound is not None:
        return PlannedCalls(item.name, bound=sum(item.bound(s) for s in scorable),
                            panel=item.panel,
                            basis=item.basis or "at most the requests of each sample")
    return PlannedCalls(item.name, panel=item.panel, basis=item.basis or NOT_KNOWN)


def judge_roles(n: int) -> list[str]:
    """The usage roles of a panel of `n` judges (as SciNet and ReportBench name them)."""
    return ["judge"] + [f"judge_{i}" for i in range(2, n + 1)]


def expand(planned: Sequence[PlannedCalls], judges: Sequence[str], samples: int,
           panel: bool) -> list[PlannedCalls]:
    """One entry per judge of the panel and stage, times K (`judges`: the judges' model
    names); a benchmark without panels (`panel` False) scores with the first judge once."""
    if not panel:
        judges, samples = list(judges)[:1], 1
    out: list[PlannedCalls] = []
    for p in planned:
        if p.role != "judge":
            out.append(p)
        elif not p.panel:
            out.append(replace(p, model=judges[0] if judges else None))
        else:
            for role, model in zip(judge_roles(len(judges)), judges):
                out.append(replace(p.times(samples), role=role, model=model))
    return out


def agent_calls(agent_spec: str, params: dict[str, Any], n_samples: int) -> PlannedCalls:
    """The agent's calls: known for the endpoint agent without tools (one per sample) and for
    replay (none); any other agent's are its own."""
    if agent_spec == "endpoint" and not params.get("tools"):
        return PlannedCalls("generate", "agent", bound=n_samples, panel=False,
                            basis="1 per sample the agent is run on (the endpoint agent)")
    if agent_spec == "replay":
        return PlannedCalls("generate", "agent", calls=0, panel=False,
                            basis="answers read from a file")
    return PlannedCalls("generate", "agent", panel=False,
                        basis="the agent's own calls: not known before it runs")


def plan_lines(title: str, n_samples: int, planned: Sequence[PlannedCalls],
               k: int, n_judges: int) -> list[str]:
    """The printout of one benchmark/sub-task: a head line, then one line per role and stage,
    then the judge total (a sum of exact counts, else of bounds, else unknown)."""
    lines = [f"{title}: {n_samples} samples"]
    width = max([10] + [len(p.stage) for p in planned])     # the stage names in one column
    for p in planned:
        who = p.role + (f" ({p.model})" if p.model else "")
        lines.append(f"  {who:<28} {p.stage:<{width}} {p.count:>14}   {p.basis}")
    judged = [p for p in planned if p.role != "agent"]
    if not judged:
        lines.append("  no judge calls")
        return lines
    known = [p for p in judged if p.calls is not None or p.bound is not None]
    n = sum(p.calls if p.calls is not None else p.bound or 0 for p in known)
    exact = all(p.calls is not None for p in known)
    total = f"{'' if exact else '≤ '}{n} judge calls" if known else ""
    if len(known) < len(judged):
        total = (total + " + " if total else "") + "those not known before the answers"
    panel = f" ({n_judges} judge(s) × {k} sample(s) each)" if (n_judges > 1 or k > 1) else ""
    lines.append(f"  total: {total}{panel}")
    return lines


def benchmark_plan(bench: Any, subtask: str, samples: Sequence[Any], *, agent_spec: str | None,
                   params: dict[str, Any], judges: Sequence[str], k: int,
                   generated: dict[str, dict[str, Any]] | None = None) -> list[str]:
    """The printout of one run (`agent_spec` None: a re-score, whose answers `generated` are
    known)."""
    planned: list[PlannedCalls] = []
    if agent_spec is not None:
        planned.append(agent_calls(agent_spec, params, len(samples)))
    panel = bool(getattr(bench, "judge_panel", False))
    planned += expand(bench.planned_judge_calls(subtask, samples, generated), judges, k,
                      panel)
    n_judges, k = (len(judges), k) if panel else (1, 1)
    return plan_lines(f"{bench.name} {subtask}", len(samples), planned, k, n_judges)
