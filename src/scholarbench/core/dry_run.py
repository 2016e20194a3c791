"""The `--dry-run` commands: `run B --dry-run`, `score RUN_DIR --dry-run` and `eval --dry-run`
print the model calls a run would make (`core.planning`) before any is made. Nothing here binds
a model, opens the reply cache or writes a file."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Sequence

from scholarbench.core.args import run_params
from scholarbench.core.epochs import check_epochs, expand as each_epoch
from scholarbench.core.judge_stage import collect, on_file, panel_of, plan
from scholarbench.core.judging import identities
from scholarbench.core.lookup import resolve_agent
from scholarbench.core.planning import PlannedCalls, benchmark_plan, expand, plan_lines
from scholarbench.core.rundir import RunDir
from scholarbench.llm.commands import judge_panel_flags, judge_samples
from scholarbench.llm.config import resolve_role

HEAD = "dry run: no model is called and no run directory is written; calls before the reply cache"


def judge_identities(args: Any) -> list[Any]:
    """The judges as the engine's judge stage will key their verdicts (`core.judging.
    JudgeIdentity`), from the flags, environment and config alone (no client made)."""
    configs = [resolve_role("judge", flags, config_file=getattr(args, "llm_config", None))
               for flags in judge_panel_flags(args)]
    return identities([SimpleNamespace(config=c) for c in configs])   # as of their clients


def unasked(bench: Any, subtask: str, samples: Sequence[Any],
            generated: dict[str, dict[str, Any]], run: Any, judges: Sequence[Any],
            k: int) -> list[PlannedCalls]:
    """A re-score's requests of the engine's judge stage, per item and judge: exactly those
    whose verdict is not on file (`core.judge_stage.plan`, the object the run executes). An
    item that `needs` earlier ones is exact only when every request of those is on file (the
    run then reads the same verdicts); else at most its requests as the verdicts on file make
    them (the earlier replies it reads are not known yet)."""
    out = []
    known: dict[str, Any] = {}          # item → its verdicts, when all of them are on file
    for item in bench.judged_items(subtask):
        done = on_file(run, item)
        asked, repeats = panel_of(item, judges, k)
        exact = all(n in known for n in item.needs)
        planned = plan(item, samples, generated, asked, repeats, known)
        if exact and all(p.key in done for p in planned):
            known[item.name] = collect(item, planned, done)
        for judge in asked:
            keys = {p.key for p in planned if p.judge == judge}
            if not exact and item.counted_by_needs:
                out.append(PlannedCalls(item.name, judge.role, model=judge.model,
                                        basis=f"{item.basis} — not known before the replies "
                                        f"of {', '.join(item.needs)} are on file"))
                continue
            if exact and item.calls > 1:      # a two-step request: at most `calls` calls
                out.append(PlannedCalls(item.name, judge.role,
                                        bound=len(keys - set(done)) * item.calls,
                                        basis=f"at most {item.calls} calls per request whose "
                                        "verdict is not on file", model=judge.model))
                continue
            out.append(PlannedCalls(item.name, judge.role, calls=len(keys - set(done)),
                                    basis="requests whose verdict is not on file",
                                    model=judge.model) if exact else
                       PlannedCalls(item.name, judge.role, bound=len(keys) * item.calls,
                                    basis=f"at most its requests: the replies of "
                                    f"{', '.join(item.needs)} it reads are not on file",
                                    model=judge.model))
    return out


def judge_names(args: Any) -> list[str]:
    """The judges' model names as the flags, environment and config resolve them (no client
    made, no key required)."""
    config = getattr(args, "llm_config", None)
    return [str(resolve_role("judge", flags, config_file=config).model)
            for flags in judge_panel_flags(args)]


# -- the command line ------------------------------------------------------------------------

def _panel(args: Any) -> tuple[list[str], int]:
    return judge_names(args), judge_samples(args)


def dry_run(args: Any, bench: Any, subtask: str) -> int:
    """`run B --dry-run`: the plan of one run; refuses what the run would refuse (an agent
    that does not fit, missing inputs) before printing."""
    params = run_params(args)
    judges, k = _panel(args)
    lines = plan_of_run(bench, subtask, args.agent, params, args.limit, judges, k,
                        getattr(args, "epochs", 1))
    print("\n".join([HEAD, *lines]))
    return 0


def plan_of_run(bench: Any, subtask: str, agent_spec: str, params: dict[str, Any],
                limit: int | None, judges: Sequence[str], k: int, epochs: int = 1
                ) -> list[str]:
    """`epochs`: each sample counted once per epoch (`core.epochs`: solved and judged K times)."""
    bench.check(subtask)
    resolve_agent(bench, agent_spec, dict(params), subtask)
    samples = each_epoch(bench.load(subtask, limit).samples, check_epochs(epochs))
    return benchmark_plan(bench, subtask, samples, agent_spec=agent_spec, params=params,
                          judges=judges, k=k)


def dry_run_rescore(args: Any, run_dir: Any, bench: Any) -> int:
    """`score RUN_DIR --dry-run`: the judge calls of re-scoring, counted from the run's own
    answers (nothing in the run directory is changed)."""
    run = RunDir(run_dir)
    manifest = run.read_manifest()
    loaded = bench.load_for_rescore(run, manifest)
    generated = run.stage(bench.generate_file, bench.id_key).records
    judges, k = _panel(args)
    subtask = str(manifest.get("mode"))
    items = bench.judged_items(subtask)
    if items:                                    # the engine's judge stage: net of the files
        idents = judge_identities(args)
        planned = unasked(bench, subtask, loaded.samples, generated, run, idents, k)
        names = {item.name for item in items}    # and what the benchmark asks on its own
        own = [p for p in bench.planned_judge_calls(subtask, loaded.samples, generated)
               if p.stage not in names]
        planned += expand(own, judges, k, bool(getattr(bench, "judge_panel", False)))
        lines = plan_lines(f"{bench.name} {subtask}", len(loaded.samples), planned, k,
                           len(idents))
    else:
        lines = benchmark_plan(bench, subtask, loaded.samples, agent_spec=None, params={},
                               judges=judges, k=k, generated=generated)
    print("\n".join([HEAD, *lines]))
    return 0


def dry_run_suite(args: Any, planned: Any) -> int:
    """`eval --dry-run`: the plan of every run the suite would make."""
    judges, k = _panel(args)
    params = run_params(args)
    unanswered = {(b.name, s) for b, s in planned.unanswered}
    runnable = {(b.name, s): b for b, s in planned.pairs}
    lines = [HEAD]
    for bench, subtask in planned.order:
        if (bench.name, subtask) in unanswered:
            lines.append(f"{bench.name} {subtask}: no answers in {planned.replay.path} "
                         "(not run)")
        elif (bench.name, subtask) in runnable:
            lines += plan_of_run(runnable[(bench.name, subtask)], subtask, args.agent, params,
                                 args.limit, judges, k, getattr(args, "epochs", 1))
    print("\n".join(lines))
    return 0
