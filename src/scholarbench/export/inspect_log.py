"""A finished run directory as an Inspect eval log, built with inspect-ai's own classes
(docs/inspect.md has the whole mapping).

    eval      task "scholarbench/<benchmark>_<sub-task>", its options as task_args, the agent
              as the solver, the agent's model (else "none/<agent>"), the judges as model
              roles, the data set (name, location, sample count and ids), package versions
    samples   one per score row, in scores.jsonl's order: the prompt the agent got, the gold
              (when small), the agent's answer as text (cut beyond a cap, with a counted
              note), one `Score` per measure of the row, the status and reason as metadata;
              the agent's transcript and the sample's judge exchanges as events, its
              conversation as the messages, its usage and cost (`inspect_events`)
    results   one `EvalScore` per measure of summary.json, whose metrics are the summary's own
              numbers: `mean` and the bounds of its 95% interval (`ci95_low`, `ci95_high`);
              the summary's `cost` in its metadata
    stats     token usage and cost per model and per role from the manifest's `usage`
    status    "success" for a complete run, "error" (with the reason) for an incomplete one

Nothing is recomputed: a measure the summary left undefined has no `mean` metric, a sample's
undefined measure is `Score.unscored` (NaN, Inspect's "not scored") with the row's status and
reason, and every number written is one our files hold.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai.log import (EvalConfig, EvalDataset, EvalError, EvalLog, EvalMetric, EvalPlan,
                            EvalPlanStep, EvalResults, EvalSample, EvalScore, EvalSpec,
                            EvalStats, HeadlineMetric, write_eval_log)
from inspect_ai.model import (ChatMessageAssistant, ChatMessageUser, GenerateConfig,
                              ModelConfig, ModelOutput, ModelUsage)
from inspect_ai.scorer import Score
from inspect_ai.viewer import ViewerConfig

from scholarbench.core.usage import _judge_model
from scholarbench.export.inspect_events import sample_calls
from scholarbench.export.run_files import RunFiles, read_run
from scholarbench.export.task_inputs import TaskInput, gold_text, plain, task_inputs

MAX_CHARS = 20_000          # an input or an answer longer than this is cut (with a note)
TARGET_CHARS = 4_000        # a gold longer than this is left out of `target` (with a note)
PREVIEW_CHARS = 160         # a score's `answer`: the start of the agent's answer
FORMATS = ("eval", "json")
# generate-record keys that are the engine's, not the agent's answer
ENGINE_KEYS = ("status", "error", "seconds", "info", "prompt_sha256", "usage")
# score-row keys that are no measure and not repeated under the row's metadata
ROW_OWN = ("status", "reason")


def cut(text: str, limit: int, where: str) -> tuple[str, int]:
    """(`text`, 0), or its first `limit` characters with a note counting the rest, and that
    count."""
    if limit <= 0 or len(text) <= limit:
        return text, 0
    rest = len(text) - limit
    return (f"{text[:limit]}\n\n[… {rest:,} more characters not shown; the whole text is in "
            f"{where}]"), rest


def answer_text(record: dict[str, Any] | None, id_key: str) -> str:
    """The agent's answer of a generate record as text: a report as it is (with any other
    answer fields after it as JSON), anything else (a taxonomy, a ranking, a paper list) as
    JSON."""
    if record is None:
        return ""
    answer = {k: v for k, v in record.items() if k not in (id_key, *ENGINE_KEYS)}
    report = answer.pop("report", None)
    rest = {k: v for k, v in answer.items() if v not in (None, [], {}, "")}
    if isinstance(report, str):
        return report + (f"\n\n---\n{_json(rest)}" if rest else "")
    if report is not None:
        rest = {"report": report, **rest}
    if not rest:
        return ""
    return _shown(next(iter(rest.values())) if len(rest) == 1 else rest)


def _shown(value: Any) -> str:
    """A list of paper ids one per line, numbered (a ranking's score beside its id); anything
    else as JSON."""
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return "\n".join(f"{i}. {v}" for i, v in enumerate(value, start=1))
    if isinstance(value, list) and value and all(
            isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and _is_number(v[1])
            for v in value):
        return "\n".join(f"{i}. {v[0]} ({v[1]:g})" for i, v in enumerate(value, start=1))
    return _json(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def sample_score_keys(files: RunFiles) -> list[str]:
    """The measures a row may hold: the summary's, then any other declared measure."""
    keys = list(files.summary.get("metrics") or {})
    return keys + [k for k in files.measures if k not in keys]


def preview(text: str, limit: int = PREVIEW_CHARS) -> str | None:
    """The answer's first characters on one line (a score's `answer`: the viewer's sample
    list shows it); None for no answer."""
    line = " ".join(text.split())
    return None if not line else line if len(line) <= limit else line[:limit - 1] + "…"


def row_scores(row: dict[str, Any], keys: list[str], answer: str | None = None
               ) -> dict[str, Score]:
    """One `Score` per measure the row holds: its number, or not scored (NaN) when null,
    with the row's status and reason; `answer`: the answer's preview on each."""
    status, reason = row.get("status") or "scored", row.get("reason")
    out = {}
    for key in keys:
        if key not in row:
            continue
        value = row[key]
        if _is_number(value):
            out[key] = Score(value=value, answer=answer)
            continue
        if status == "scored":
            why = "undefined for this sample: excluded from the mean"
        else:
            why = f"{status}: {reason}" if reason else status
        out[key] = Score.unscored(reason="undefined" if status == "scored" else status,
                                  explanation=why, answer=answer,
                                  metadata={"status": status, "reason": reason})
    return out


def eval_sample(files: RunFiles, row: dict[str, Any], keys: list[str],
                given: TaskInput | None, max_chars: int, model: str) -> EvalSample:
    sample_id = row[files.id_key]
    key = files.sample_id(row)
    record = files.generated.get(key)
    status = row.get("status") or "scored"
    metadata: dict[str, Any] = {"status": status, "reason": row.get("reason")}
    prompt, cut_in = cut(given.prompt if given else "", max_chars,
                         "the task file the run's manifest names")
    try:
        answer = answer_text(record, files.id_key)
    except RecursionError:              # nested past what JSON can write (a raised depth limit)
        answer = "(an answer nested too deep to show; see generate.jsonl)"
    output, cut_out = cut(answer, max_chars, f"{files.path / files.bench.generate_file}")
    if cut_in:
        metadata["input_chars_cut"] = cut_in
    if cut_out:
        metadata["output_chars_cut"] = cut_out
    target = ""
    if given is not None and given.gold is not None:
        try:
            target = gold_text(given.gold)
        except RecursionError:          # a taxonomy thousands of levels deep
            target, metadata["target_note"] = "", "gold not included: nested too deep"
        if len(target) > TARGET_CHARS:
            metadata["target_note"] = (f"gold not included: {len(target):,} characters, over "
                                       f"the {TARGET_CHARS:,}-character cap")
            target = ""
    row_rest = {k: v for k, v in row.items() if k not in (files.id_key, *ROW_OWN, *keys)}
    metadata["score_row"] = plain(row_rest)
    if record is not None and record.get("info"):
        metadata["agent_info"] = plain(record["info"])
    error = None
    if status == "error":
        error = EvalError(message=str(row.get("reason") or (record or {}).get("error")
                                      or "the agent failed"),
                          traceback="", traceback_ansi="")
    seconds = (record or {}).get("seconds")
    calls = sample_calls(key, str(files.manifest.get("agent")), model,
                         files.transcripts.get(key), record, files.judge_records.get(key, []),
                         files.manifest, _created(files.manifest))
    metadata.update(calls.metadata)
    messages: list[Any] = [ChatMessageUser(id=f"{key}/input", content=prompt, source="input")]
    if calls.messages:                  # the agent's conversation, as its transcript kept it
        messages = calls.messages
    elif output:
        messages.append(ChatMessageAssistant(id=f"{key}/answer", content=output,
                                             source="generate", model=model))
    return EvalSample(
        id=sample_id, epoch=1, input=prompt, target=target, messages=messages,
        output=ModelOutput.from_content(model, output) if output else ModelOutput(model=model),
        scores=row_scores(row, keys, preview(output)), metadata=metadata, error=error,
        events=calls.events, model_usage=calls.model_usage, role_usage=calls.role_usage,
        total_time=seconds if _is_number(seconds) else None, completed=True)


def eval_results(files: RunFiles, completed: int) -> EvalResults:
    """One `EvalScore` per measure of the summary (headline measures first), its metrics the
    summary's numbers."""
    metrics = files.summary.get("metrics") or {}
    headline = [k for k in files.bench.headline.get(files.subtask or "", ()) if k in metrics]
    order = headline + [k for k in metrics if k not in headline]
    scores = []
    for key in order:
        entry = metrics[key] if isinstance(metrics[key], dict) else {"mean": metrics[key]}
        found: dict[str, EvalMetric] = {}
        mean = entry.get("mean")
        if _is_number(mean) and math.isfinite(mean):
            found["mean"] = EvalMetric(name="mean", value=mean)
        ci = entry.get("ci95")
        if isinstance(ci, list) and len(ci) == 2 and all(_is_number(v) for v in ci):
            found["ci95_low"] = EvalMetric(name="ci95_low", value=ci[0])
            found["ci95_high"] = EvalMetric(name="ci95_high", value=ci[1])
        measure = files.measures.get(key)
        meta: dict[str, Any] = {k: v for k, v in entry.items()
                                if k not in ("mean", "ci95", "n", "n_null")}
        if measure is not None:
            meta.update(label=measure.label, description=measure.description,
                        direction=measure.direction, unit=measure.unit,
                        provenance=measure.provenance, judge=measure.judge,
                        aggregate=measure.aggregate_note)
        if mean is None:
            meta["mean"] = None             # undefined for every sample: no metric
        scores.append(EvalScore(
            name=key, scorer=key, metrics=found, metadata=plain(meta) or None,
            scored_samples=entry.get("n") if _is_number(entry.get("n")) else None,
            unscored_samples=entry.get("n_null") if _is_number(entry.get("n_null")) else None))
    top = next((s for s in scores if "mean" in s.metrics), None)
    meta = {k: files.summary[k] for k in ("ci_method", "cost") if files.summary.get(k)}
    return EvalResults(
        total_samples=_int(files.summary.get("n_samples"), len(files.rows)),
        completed_samples=completed, scores=scores,
        headline=HeadlineMetric(scorer=top.scorer, metric="mean") if top else None,
        metadata=plain(meta) or None)


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def agent_model(manifest: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(the agent's model name, its recorded identity), or ("none/<agent>", {}). The name is
    the model the agent's role asked for (`models.agent.model`, as its calls and transcript
    name it), else its recorded identity (`model_id`: an endpoint's is `<base URL>|<model>`)."""
    identity = manifest.get("agent_model") if isinstance(manifest.get("agent_model"),
                                                         dict) else {}
    agent_entry = (manifest.get("models") or {}).get("agent")
    agent_entry = agent_entry if isinstance(agent_entry, dict) else {}
    name = agent_entry.get("model") or identity.get("model_id") or agent_entry.get("model_id")
    if name:
        return str(name), {**agent_entry, **identity}
    return f"none/{manifest.get('agent')}", {}


def _generate_config(entry: dict[str, Any]) -> GenerateConfig:
    return GenerateConfig(**{k: entry[k] for k in ("temperature", "max_tokens", "seed")
                             if _is_number(entry.get(k))})


def model_roles(manifest: dict[str, Any]) -> dict[str, ModelConfig] | None:
    """The judges (and any other role with a named model) the run recorded, by role."""
    out: dict[str, ModelConfig] = {}
    for item in (manifest.get("judged") or {}).values():
        for judge in (item.get("judges") or []) if isinstance(item, dict) else []:
            if isinstance(judge, dict) and judge.get("model") and judge.get("role"):
                out.setdefault(str(judge["role"]), ModelConfig(
                    model=str(judge["model"]), base_url=judge.get("base_url"),
                    config=_generate_config(judge)))
    models = manifest.get("models") or {}
    for role, entry in models.items() if isinstance(models, dict) else ():
        if role != "agent" and isinstance(entry, dict) and entry.get("model"):
            out.setdefault(role, ModelConfig(model=str(entry["model"]),
                                             base_url=entry.get("base_url"),
                                             config=_generate_config(entry)))
    for role in _usage_by_role(manifest):
        if role not in out and role != "agent" and (model := _judge_model(manifest, role)):
            out[role] = ModelConfig(model=str(model))
    return out or None


def _usage_by_role(manifest: dict[str, Any]) -> dict[str, ModelUsage]:
    """The manifest's `usage.<stage>.<role>` summed per role."""
    out: dict[str, ModelUsage] = {}
    for roles in (manifest.get("usage") or {}).values():
        for role, counts in (roles or {}).items() if isinstance(roles, dict) else ():
            if not isinstance(counts, dict):
                continue
            tokens_in = _int(counts.get("prompt_tokens"), 0)
            tokens_out = _int(counts.get("completion_tokens"), 0)
            cost = counts.get("cost_usd")
            usage = ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out,
                               total_tokens=tokens_in + tokens_out,
                               total_cost=cost if _is_number(cost) else None)
            out[role] = out[role] + usage if role in out else usage
    return out


def eval_stats(files: RunFiles, model: str, roles: dict[str, ModelConfig] | None) -> EvalStats:
    by_role = _usage_by_role(files.manifest)
    by_model: dict[str, ModelUsage] = {}
    for role, usage in by_role.items():
        name = model if role == "agent" else \
            (roles or {}).get(role).model if (roles or {}).get(role) else f"none/{role}"
        by_model[name] = by_model[name] + usage if name in by_model else usage
    summary_path = files.run.file("summary.json")
    done = datetime.fromtimestamp(summary_path.stat().st_mtime, timezone.utc).isoformat()
    return EvalStats(started_at=_created(files.manifest), completed_at=done,
                     model_usage=by_model, role_usage=by_role)


def _created(manifest: dict[str, Any]) -> str:
    created = manifest.get("created")
    return created if isinstance(created, str) and created else \
        datetime.fromtimestamp(0, timezone.utc).isoformat()


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:22]


def incomplete_reason(files: RunFiles) -> str:
    """Why a run's summary says it is incomplete, in one line."""
    errors = _int((files.summary.get("status") or {}).get("error"), 0)
    failed = sum(_int(j.get("failed"), 0) for j in files.manifest.get("judge_failures") or []
                 if isinstance(j, dict))
    parts = []
    if errors:
        first = next((r.get("reason") for r in files.rows if r.get("status") == "error"
                      and r.get("reason")), None)
        parts.append(f"{errors} errored sample(s)" + (f" (first: {first})" if first else ""))
    if failed:
        parts.append(f"{failed} judge call(s) failed")
    return ("incomplete run: " + ("; ".join(parts) or "its summary says so")
            + "; resume it, then export again")


def task_name(files: RunFiles) -> str:
    return f"scholarbench/{files.bench.name}" + (f"_{files.subtask}" if files.subtask else "")


def eval_log(files: RunFiles, max_chars: int = MAX_CHARS, trust_content: bool = False
             ) -> tuple[EvalLog, str | None]:
    """(the Inspect log of a run, why its inputs are absent or None). The agents' answers
    are untrusted text: unless `trust_content`, the log asks `inspect view` to show its
    content as plain text (no markdown, links or media fetched from an answer's URLs)."""
    manifest, summary = files.manifest, files.summary
    model, identity = agent_model(manifest)
    roles = model_roles(manifest)
    inputs, missing_inputs = task_inputs(files)
    keys = sample_score_keys(files)
    samples = [eval_sample(files, row, keys, inputs.get(files.sample_id(row)), max_chars, model)
               for row in files.rows]
    complete = summary.get("complete", True) is not False
    data = manifest.get("data") if isinstance(manifest.get("data"), dict) else {}
    task = task_name(files)
    run_id = _digest(manifest.get("created"), manifest.get("benchmark"), manifest.get("mode"),
                     manifest.get("agent"), manifest.get("run_name"))
    agent_base = ((manifest.get("models") or {}).get("agent") or {}).get("base_url") \
        if isinstance((manifest.get("models") or {}).get("agent"), dict) else None
    spec = EvalSpec(
        eval_id=run_id, run_id=run_id, created=_created(manifest), task=task,
        task_id=_digest(task, data), task_version=str(manifest.get("format") or ""),
        task_display_name=f"{files.bench.title or files.bench.name}"
                          + (f" ({files.subtask})" if files.subtask else ""),
        task_args=plain(manifest.get("options") or {}),
        solver=str(manifest.get("agent")), solver_args=plain(manifest.get("agent_config") or {}),
        dataset=EvalDataset(
            name=f"{files.bench.name}/{files.subtask}" if files.subtask else files.bench.name,
            location=str(data.get("path") or data.get("tasks_source") or "") or None,
            samples=_int(summary.get("n_samples"), len(files.rows)),
            sample_ids=[row[files.id_key] for row in files.rows]),
        model=model, model_generate_config=_generate_config(identity),
        model_base_url=agent_base, model_roles=roles,
        config=EvalConfig(limit=_int(manifest.get("limit"), 0) or None, epochs=1,
                          max_samples=_int(manifest.get("max_samples"), 0) or None),
        packages={str(k): str(v) for k, v in (manifest.get("versions") or {}).items()},
        viewer=ViewerConfig(trust_content=trust_content),
        metadata={"scholarbench": plain({
            "run_dir": str(files.path), "run_name": manifest.get("run_name"),
            "format": manifest.get("format"), "manifest": manifest,
            "summary": {k: v for k, v in summary.items() if k != "metrics"},
            "inputs": missing_inputs or "read"})})
    completed = sum(1 for row in files.rows if (row.get("status") or "scored") != "error")
    log = EvalLog(
        status="success" if complete else "error", eval=spec,
        plan=EvalPlan(steps=[EvalPlanStep(solver=str(manifest.get("agent")),
                                          params=plain(manifest.get("agent_config") or {}))]),
        results=eval_results(files, completed), stats=eval_stats(files, model, roles),
        error=None if complete else EvalError(message=incomplete_reason(files), traceback="",
                                              traceback_ansi=""),
        samples=samples)
    return log, missing_inputs


def log_file_name(files: RunFiles, fmt: str, taken: set[str]) -> str:
    """`<run folder>.<fmt>`; a name already written by this export gets `-2`, `-3`, …"""
    stem, n = files.path.resolve().name or "run", 1
    name = f"{stem}.{fmt}"
    while name in taken:
        n += 1
        name = f"{stem}-{n}.{fmt}"
    taken.add(name)
    return name


@dataclass
class Written:
    """One log `export_inspect` wrote."""
    path: Path
    task: str
    samples: int
    status: str                 # "success", or "error" for an incomplete run
    missing_inputs: str | None  # why the log has no prompts or gold (None: it has them)


def export_inspect(run_dirs: list[Path], out: Path, fmt: str = "eval",
                   max_chars: int = MAX_CHARS, trust_content: bool = False) -> list[Written]:
    """Write one Inspect log per run directory into `out`. Every run is read and checked
    before anything is written, so a bad one writes nothing; then each log is built and
    written in turn."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use {' or '.join(FORMATS)}")
    runs = [read_run(Path(d)) for d in run_dirs]
    out.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    written = []
    for files in runs:
        log, missing = eval_log(files, max_chars, trust_content)
        target = out / log_file_name(files, fmt, taken)
        tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
        write_eval_log(log, str(tmp), format=fmt)
        os.replace(tmp, target)
        written.append(Written(target, log.eval.task, len(log.samples or []), log.status,
                               missing))
    return written
