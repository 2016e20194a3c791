"""One sample solved into its generate record: the agent called in the sample's own usage
scope, its answer checked against the output limits and its family's schema, and whatever it
raised turned into the record's status (`error`, `malformed`, `missing`, `oversized`)."""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from scholarbench.core.agent import Agent, AgentContext
from scholarbench.core.benchmark import Benchmark, Sample
from scholarbench.core.epochs import context_for, mark
from scholarbench.core.families import Malformed
from scholarbench.core.limits import Oversized, OutputLimits
from scholarbench.core.rundir import RunDir
from scholarbench.core.writing import TRANSCRIPT_KEY
from scholarbench.llm.secrets import redact
from scholarbench.llm.transcript import transcript_scope
from scholarbench.llm.usage import sample_scope
from scholarbench.procs import stop_requested

Solved = tuple[dict[str, Any], "list[Any] | None"]     # a generate record, tool trajectory


def solve_with_tools(bench: Benchmark, agent: Agent, sample: Sample, ctx: AgentContext,
                      run_path: Path | None, exclusive: bool = True) -> Solved:
    """`solve_one`, with the sample's own tools for an agent that uses them; returns the
    record and the tool trajectory (None without tools), which the caller appends to
    tools.jsonl before the sample's generate line (tools.provider). An epoch of `--epochs K`
    is solved with its own seed (`core.epochs.context_for`)."""
    ctx = context_for(ctx, sample)
    if ctx.tools is None:            # no tools: skip importing the tools layer (0.6 s)
        return solve_one(bench, agent, sample, ctx, exclusive), None
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.tools.provider import ToolProvider
    if not isinstance(ctx.tools, ToolProvider):
        return solve_one(bench, agent, sample, ctx, exclusive), None
    tools = ctx.tools.for_sample(sample, run_path)
    calls: list[Any] | None = None
    try:
        record = solve_one(bench, agent, sample, replace(ctx, tools=tools), exclusive)
    finally:
        calls = tools.close()
    return record, calls


def add_tool_counts(run: RunDir) -> None:
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.tools.provider import TRAJECTORIES, summarise
    if not run.file(TRAJECTORIES).exists():
        return
    manifest = run.read_manifest()
    manifest["tools"] = summarise(run.stage(TRAJECTORIES, "id").records)
    run.write_manifest(manifest)


def solve_one(bench: Benchmark, agent: Agent, sample: Sample, ctx: AgentContext,
              exclusive: bool = True) -> dict[str, Any]:
    """Solve one sample into its generate record. Model calls are counted in the sample's own
    scope (`llm.usage.sample_scope`), so samples running at once each know their failures and
    use; `exclusive` (one sample at a time) also counts any failure of the agent's client in
    the meantime, e.g. from a thread the agent started without copying its context."""
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.core.replay import Missing
    start = time.perf_counter()
    record: dict[str, Any] = mark({bench.id_key: sample.id}, sample)    # its epoch, if any
    failed_before = _failures(ctx.llm)
    with sample_scope() as used, transcript_scope() as exchange:
        try:
            _solve_into(record, bench, agent, sample, ctx, used,
                        (lambda: _failures(ctx.llm) - failed_before) if exclusive else None)
        except Oversized as exc:     # not kept: scored as an empty answer, counted on its own
            record.update(status="oversized", missing=True, error=f"oversized: {exc}")
        except Missing as exc:
            record.update(status="missing", missing=True, error=str(exc))
        except Malformed as exc:
            record.update(status="malformed", error=str(exc))
        except BaseException as exc:   # the agent or its endpoint failed: never a result
            if stop_requested() or isinstance(exc, GeneratorExit):
                raise                  # the user's Ctrl-C or SIGTERM: the run stops
            record.update(status="error",
                          error=redact(f"agent raised {type(exc).__name__}: {exc}")[:2000])
    record["seconds"] = round(time.perf_counter() - start, 4)
    if exchange:                     # its chat calls: transcripts.jsonl (`core.writing`)
        record[TRANSCRIPT_KEY] = exchange.as_record()
    if used.calls or used.cache_hits or used.failures:
        record["usage"] = {k: v for k, v in used.as_dict().items()
                           if k in ("calls", "cache_hits", "failures", "prompt_tokens",
                                    "completion_tokens")
                           or (k == "cost_usd" and v is not None)}     # docs/cost.md
    return record


def _solve_into(record: dict[str, Any], bench: Benchmark, agent: Agent, sample: Sample,
                ctx: AgentContext, used: Any, failed_anywhere: Callable[[], int] | None) -> None:
    answer = agent.solve(sample.task, ctx)
    family = bench.subtasks.get(sample.task.subtask or "", "")
    if too_big := OutputLimits.of(bench.options).violation(family, answer):
        raise Oversized(too_big)
    record.update(bench.record(sample, answer))
    if str(record.get(bench.id_key)) != sample.id:    # the engine's key wins (an epoch's
        record[bench.id_key] = sample.id              # `ID#e` over the task's own id)
    failed = max(used.unrecovered_failures(), failed_anywhere() if failed_anywhere else 0)
    if failed:      # the agent took a fallback after its model failed: not a result
        record.update(status="error", error=f"{failed} model call(s) of the agent failed "
                      "after every retry (the answer it fell back on is not scored)")


def _failures(client: Any) -> int:
    usage = getattr(client, "usage", None)
    return usage.unrecovered_failures() if hasattr(usage, "unrecovered_failures") else 0
