"""DeepSynth-Eval's files besides generate and the engine's judge records, on
`core.engine.run_stage`.

oracle.jsonl  (before generate; agents that read an oracle only) one line per task: its oracle
              context (``OracleContext.to_json``: source file|corpus|none, the references with
              n, title, paper_id, status, text) plus ``config_sha256`` (the oracle settings that
              built it: a line built with other settings is rebuilt) and ``status``. The oracle
              summariser produces the writers' inputs, not verdicts: it stays a stage of its
              own, not a judged item.
judged.jsonl  the upstream judged format (``survey_result`` = the text judged, ``eval_result``
              per sub-group, null for an unscored item), one line per judged task in task
              order (written at each score from the checklist judge's verdicts,
              judge.checklist.jsonl: `checklist.py`): what ``scholarbench score deepsynth
              --judged`` re-scores.

A report that is missing, malformed or empty is not sent to the judge (`report_status`): every
requirement is ``not_mentioned`` (an empty report mentions nothing; the task scores 0 and stays
in the means), and the summary counts it by status (``reports``). A task whose agent failed
(generate status ``error``) is not judged at all: it is retried when the run is resumed.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.records import NOT_MENTIONED, Task, task_to_json
from scholarbench.errors import ScholarbenchError
from scholarbench.core.usage import USAGE_FIELDS
from scholarbench.core.engine import run_stage

ORACLE, GENERATE, JUDGED = "oracle.jsonl", "generate.jsonl", "judged.jsonl"
REPORT_STATUSES = ("ok", "write_error", "empty", "missing", "malformed")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def config_sha256(config: Any) -> str:
    return sha256_text(json.dumps(config, sort_keys=True, default=str))


# ---- usage ---------------------------------------------------------------------------------

def usage_of(client: Any) -> dict[str, Any] | None:
    return client.usage.as_dict() if client is not None else None


def add_usage(run: Any, stage: str, role: str, total: str, client: Any,
              before: dict[str, Any] | None) -> None:
    """Add what `client` used since `before` to the manifest's ``usage.<stage>.<role>`` and
    the running ``llm_usage.<total>`` (the oracle summariser is the judge's or the agent's
    model but is totalled apart, as ``llm_usage.oracle``, so each role's total is its own)."""
    if client is None:
        return
    now = client.usage.as_dict()
    delta = {k: now[k] - (before or {}).get(k, 0) for k in USAGE_FIELDS}
    cost = now.get("cost_usd")
    delta_cost = None if cost is None else round(cost - ((before or {}).get("cost_usd")
                                                         or 0.0), 6)
    manifest = run.read_manifest()
    for bucket in (manifest.setdefault("usage", {}).setdefault(stage, {}).setdefault(role, {}),
                   manifest.setdefault("llm_usage", {}).setdefault(total, {})):
        for key in USAGE_FIELDS:
            bucket[key] = bucket.get(key, 0) + delta[key]
        if delta_cost is not None:
            bucket["cost_usd"] = round((bucket.get("cost_usd") or 0.0) + delta_cost, 6)
        else:
            bucket.setdefault("cost_usd", None)
    run.write_manifest(manifest)


def record_model(run: Any, role: str, client: Any) -> None:
    """``models.<role>`` in the manifest: the client's public config and model id."""
    if client is None:
        return
    manifest = run.read_manifest()
    manifest.setdefault("models", {})[role] = {**client.config.public(),
                                               "model_id": client.model_id}
    run.write_manifest(manifest)


# ---- oracle --------------------------------------------------------------------------------

def oracle_stage(run: Any, samples: Sequence[Any], builder: Any, corpus: Any, lists: Any,
                 config: dict[str, Any], *, client: Any, role: str, progress: bool = True
                 ) -> dict[str, dict[str, Any]]:
    """Build the oracle context of every task without a current one; returns the oracle.jsonl
    records by sample id. An exception while building a task's context stops the run."""
    digest = config_sha256(config)

    def step(sample: Any) -> dict[str, Any]:
        return {**builder.build(sample.gold, corpus, lists).to_json(), "config_sha256": digest}
    before = usage_of(client)
    try:
        run_stage(run, ORACLE, samples, step, stage="oracle", id_key="task_id",
                  progress=progress, redo=lambda rec: rec.get("config_sha256") != digest)
    finally:
        add_usage(run, "oracle", role, "oracle", client, before)
    records = run.stage(ORACLE, "task_id").records
    failed = [(s.id, records[s.id].get("error")) for s in samples
              if s.id in records and records[s.id].get("status") == "error"]
    if failed:
        raise ScholarbenchError(f"the oracle context of task {failed[0][0]} could not be built "
                                f"({failed[0][1]}); rerun to retry")
    return records


# ---- reports -------------------------------------------------------------------------------

def report_status(record: dict[str, Any] | None) -> str:
    """What a task's generate line gives the judge: ok, or why there is no report."""
    if record is None:
        return "missing"
    status = record.get("status")
    if status == "error":
        return "write_error"
    if status == "malformed":
        return "missing" if record.get("missing") else "malformed"
    if status in REPORT_STATUSES and status != "ok":      # lines written before the engine
        return status
    if record.get("error"):
        return "write_error"
    report = record.get("report")
    return "ok" if isinstance(report, str) and report.strip() else "empty"


def default_workers(client: Any) -> int:
    config = getattr(client, "config", None)
    return 1 if config is None or config.is_local else max(1, config.concurrency)


def judged_record(task: Task, line: dict[str, Any], record: dict[str, Any] | None
                  ) -> dict[str, Any]:
    """The upstream judged form of a task from its judgement (`checklist.task_line`)."""
    if line["report_status"] == "ok":
        results = {(s["g"], s["s"]): s["statuses"] for s in line["subgroups"]}
        report = record["report"]  # type: ignore[index]
    else:
        results = {(gi, si): [NOT_MENTIONED] * len(sub.requirements)
                   for gi, g in enumerate(task.checklist) for si, sub in enumerate(g.sub_groups)}
        report = ""
    obj = task_to_json(task, results)
    obj["survey_result"] = report
    return obj


def line_subgroups(line: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every judgement's sub-groups in a task's judgement: the lone judge's, or each judge's
    and repeat's (`panel`)."""
    if line.get("panel"):
        return [p.get("subgroups") or [] for runs in line["panel"].values() for p in runs]
    return [line.get("subgroups") or []]


def write_judged(run: Any, samples: Sequence[Any], lines: dict[str, dict[str, Any]],
                 generated: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """judged.jsonl (atomically), one line per judged task in task order; returns them."""
    out = [judged_record(s.gold, lines[s.id], generated.get(s.id)) for s in samples
           if s.id in lines]
    run.write_jsonl(JUDGED, out)
    return out


__all__ = ["GENERATE", "JUDGED", "ORACLE", "REPORT_STATUSES", "add_usage", "config_sha256",
           "default_workers", "judged_record", "line_subgroups", "oracle_stage", "record_model",
           "report_status", "write_judged"]
