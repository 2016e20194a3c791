"""The two per-task stages of a DeepSynth-Eval run besides generate, on `core.engine.run_stage`.

oracle.jsonl  (before generate; agents that read an oracle only) one line per task: its oracle
              context (``OracleContext.to_json``: source file|corpus|none, the references with
              n, title, paper_id, status, text) plus ``config_sha256`` (the oracle settings that
              built it: a line built with other settings is rebuilt) and ``status``.
judge.jsonl   (after generate, from `score`) one line per task with a finished generate line:
              {"task_id", "judge" (model identity, prompt version, retries), "report_sha256"
              (the text judged), "report_status", "subgroups": [{"g", "s", "statuses",
              "reasons", "attempts", "problems", "replies"}], "calls" (judge requests, cache
              hits included), "model_calls", "cache_hits", "status", "seconds"}; with a judge
              panel or --judge-samples also "panel": {judge: [per repeat {"subgroups",
              "calls", "model_calls", "cache_hits"}]} ("subgroups" is then the first judge's
              first repeat; the counts are totals). A line made by
              another judge or for another report text is redone, and so is one with items
              left unscored (the replies that parsed come from the reply cache; the others
              are asked again).
judged.jsonl  the upstream judged format (``survey_result`` = the text judged, ``eval_result``
              per sub-group, null for an unscored item), one line per judged task in task
              order: what ``scholarbench score deepsynth --judged`` re-scores.

Rules:

- A report that is missing, malformed or empty is not sent to the judge: every requirement is
  ``not_mentioned`` (an empty report mentions nothing; the task scores 0 and stays in the
  means), and the summary counts it by status (``reports``). A task whose agent failed
  (generate status ``error``) is not judged at all: it is retried when the run is resumed.
- A judge reply still unusable after the judge's retries leaves its items unscored (null in
  judged.jsonl; ``unscored_by_judge`` in the scores; the judge's own reason — empty_reply,
  invalid_json, not_a_list, wrong_length, unknown_label — in ``judge.unscored_reasons``). A
  judge request the endpoint refuses (HTTP 400/413/422, e.g. a report longer than the judge's
  context) leaves that sub-group's items unscored with reason ``judge_call_failed``. Any other
  judge failure after the client's retries (the endpoint is down) stops the stage: the tasks
  not judged get ``status: error`` lines and the run stops with an error; a rerun resumes.
"""
from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.judge import judge_subgroup, load_prompt
from scholarbench.benchmarks.deepsynth.records import NOT_MENTIONED, Task, task_to_json
from scholarbench.errors import IncompleteRun, ScholarbenchError
from scholarbench.llm.client import LLMCallError
from scholarbench.core.usage import USAGE_FIELDS, model_identity
from scholarbench.core.engine import run_stage

ORACLE, GENERATE, JUDGE, JUDGED = "oracle.jsonl", "generate.jsonl", "judge.jsonl", "judged.jsonl"
REPORT_STATUSES = ("ok", "write_error", "empty", "missing", "malformed")
JUDGE_CALL_FAILED = "judge_call_failed"


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


# ---- judge ---------------------------------------------------------------------------------

def judge_identity(client: Any, prompt: str, retries: int) -> dict[str, Any]:
    p = load_prompt(prompt)
    return {**(model_identity(client) or {}), "prompt": f"{p.name}@{p.sha256[:12]}",
            "retries": retries}


def default_workers(client: Any) -> int:
    config = getattr(client, "config", None)
    return 1 if config is None or config.is_local else max(1, config.concurrency)


def _request_refused(exc: Exception) -> bool:
    """An error about this request (HTTP 400/413/422: too long, rejected), not the endpoint."""
    text = str(exc)
    return "BadRequestError" in text or re.search(r"\b(400|413|422)\b", text) is not None


def _judge_one(client: Any, report: str, sub: Any, prompt: str, retries: int
               ) -> dict[str, Any]:
    try:
        v = judge_subgroup(client, report, sub, retries=retries, prompt=prompt)
    except LLMCallError as exc:
        if not _request_refused(exc):
            raise
        n = len(sub.requirements)
        return {"statuses": [None] * n, "reasons": [JUDGE_CALL_FAILED] * n, "attempts": 1,
                "problems": [str(exc)[:500]], "replies": []}
    return {"statuses": list(v), "reasons": list(v.reasons), "attempts": v.attempts,
            "problems": list(v.problems), "replies": list(v.replies)}


def judge_task(client: Any, task: Task, record: dict[str, Any] | None, *, prompt: str,
               retries: int, workers: int = 1) -> dict[str, Any]:
    """The judge.jsonl fields of one task (the module docstring says which reports are sent)."""
    status = report_status(record)
    jobs = [(gi, si, sub) for gi, g in enumerate(task.checklist)
            for si, sub in enumerate(g.sub_groups)]
    before = client.usage.as_dict() if hasattr(client, "usage") else {}
    subgroups = []
    report = record["report"] if status == "ok" else ""  # type: ignore[index]
    if status == "ok":
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="judge") as pool:
                results = list(pool.map(
                    lambda job: _judge_one(client, report, job[2], prompt, retries), jobs))
        else:
            results = [_judge_one(client, report, sub, prompt, retries) for _, _, sub in jobs]
        for (gi, si, _), result in zip(jobs, results):
            subgroups.append({"g": gi, "s": si, **result})
    after = client.usage.as_dict() if hasattr(client, "usage") else {}
    return {"task_id": task.task_id, "report_sha256": sha256_text(report),
            "report_status": status, "subgroups": subgroups,
            "calls": sum(s["attempts"] for s in subgroups),
            "model_calls": after.get("calls", 0) - before.get("calls", 0),
            "cache_hits": after.get("cache_hits", 0) - before.get("cache_hits", 0)}


def judged_record(task: Task, line: dict[str, Any], record: dict[str, Any] | None
                  ) -> dict[str, Any]:
    """The upstream judged form of a task from its judge.jsonl line."""
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


class JudgeStage:
    """Judge every task whose generate line is finished and has no current judgement (same
    judge identity, same report text); a judge endpoint that fails after the client's retries
    stops the stage (module docstring). `panel`: every judge's client (the first is `client`),
    each asked `samples` times (`panel.py`); the line then keeps every judge's and repeat's
    sub-groups under `panel` and the first judge's first under `subgroups` (judged.jsonl)."""

    def __init__(self, client: Any, *, prompt: str, retries: int, workers: int | None = None,
                 panel: Sequence[Any] | None = None, samples: int = 1) -> None:
        from scholarbench.metrics.judge_panel import labels_of, panel_identity
        self.client, self.prompt, self.retries = client, prompt, retries
        self.workers = workers or default_workers(client)
        self.given_workers = workers
        self.clients = list(panel) if panel else [client]
        self.samples = samples
        self.labels = labels_of(self.clients)
        self.identity = judge_identity(client, prompt, retries)
        if not self.single:
            self.identity.update(samples=samples,
                                 panel=panel_identity(self.clients, samples, self.labels))
        self.down: tuple[str, str] | None = None

    @property
    def single(self) -> bool:
        return len(self.clients) == 1 and self.samples == 1

    def current(self, line: dict[str, Any], record: dict[str, Any] | None) -> bool:
        return line.get("judge") == self.identity and is_current(line, record)

    def judge(self, task: Task, record: dict[str, Any] | None) -> dict[str, Any]:
        """One task's judge.jsonl fields: the lone judge's, or every judge's and repeat's."""
        if self.single:
            return judge_task(self.client, task, record, prompt=self.prompt,
                              retries=self.retries, workers=self.workers)
        from scholarbench.benchmarks.deepsynth.panel import Seeded
        from scholarbench.metrics.judge_panel import repeat_seed
        parts: dict[str, list[dict[str, Any]]] = {}
        for label, client in zip(self.labels, self.clients):
            workers = self.given_workers or default_workers(client)
            parts[label] = [judge_task(Seeded(client, repeat_seed(client, r)) if r else client,
                                       task, record, prompt=self.prompt, retries=self.retries,
                                       workers=workers) for r in range(self.samples)]
        first = parts[self.labels[0]][0]
        every = [p for runs in parts.values() for p in runs]
        return {**first, **{k: sum(p[k] for p in every)
                            for k in ("calls", "model_calls", "cache_hits")},
                "panel": {label: [{k: p[k] for k in ("subgroups", "calls", "model_calls",
                                                     "cache_hits")} for p in runs]
                          for label, runs in parts.items()}}

    def run(self, run: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
            progress: bool = True) -> None:

        def step(sample: Any) -> dict[str, Any]:
            if self.down is not None:
                raise RuntimeError(f"not judged: the judge model failed on task {self.down[0]}")
            try:
                line = self.judge(sample.gold, generated.get(sample.id))
            except LLMCallError as exc:
                self.down = (sample.id, str(exc))
                raise
            return {**line, "judge": self.identity}
        from scholarbench.metrics.judge_panel import judge_roles, panel_models
        if self.single:
            record_model(run, "judge", self.client)
        manifest = run.read_manifest()
        if not self.single:
            manifest.setdefault("models", {}).update(panel_models(self.clients))
        manifest["judge"] = self.identity
        run.write_manifest(manifest)
        roles = judge_roles(self.clients)
        before = [usage_of(c) for c in self.clients]
        try:
            run_stage(run, JUDGE, samples, step, stage="judge", id_key="task_id",
                      progress=progress,
                      redo=lambda line: not self.current(line, generated.get(str(
                          line.get("task_id")))) or has_unscored(line))
        finally:
            for role, client, b in zip(roles, self.clients, before):
                add_usage(run, "judge", role, role, client, b)
        if self.down is not None:
            raise IncompleteRun(f"the judge model failed on task {self.down[0]} "
                                f"({self.down[1]}); the run stopped — rerun to resume")


def line_subgroups(line: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every judgement's sub-groups in a judge.jsonl line: the lone judge's, or each judge's
    and repeat's (`panel`)."""
    if line.get("panel"):
        return [p.get("subgroups") or [] for runs in line["panel"].values() for p in runs]
    return [line.get("subgroups") or []]


def has_unscored(line: dict[str, Any]) -> bool:
    """A judgement with items the judge left unscored: asked again (only replies that parsed
    are served from the reply cache, llm.cache)."""
    return any(s is None for subs in line_subgroups(line) for sub in subs
               for s in sub.get("statuses") or ())


def current_lines(lines: dict[str, dict[str, Any]], samples: Sequence[Any],
                  generated: dict[str, dict[str, Any]], identity: dict[str, Any] | None
                  ) -> dict[str, dict[str, Any]]:
    """Of `lines` (judge.jsonl's finished lines by task id), the line of each sample judged
    by `identity` on its current report text."""
    out = {}
    for s in samples:
        line = lines.get(s.id)
        if line is not None and line.get("judge") == identity and is_current(
                line, generated.get(s.id)):
            out[s.id] = line
    return out


def write_judged(run: Any, samples: Sequence[Any], lines: dict[str, dict[str, Any]],
                 generated: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """judged.jsonl (atomically), one line per judged task in task order; returns them."""
    out = [judged_record(s.gold, lines[s.id], generated.get(s.id)) for s in samples
           if s.id in lines]
    run.write_jsonl(JUDGED, out)
    return out


def is_current(line: dict[str, Any], record: dict[str, Any] | None) -> bool:
    """The line judged the record's current report text (lines written before the engine
    carry no hash and count as current; the judge identity is checked apart)."""
    report = (record or {}).get("report") if report_status(record) == "ok" else ""
    digest = sha256_text(report or "")
    return line.get("report_sha256", digest) == digest


__all__ = ["GENERATE", "JUDGE", "JUDGED", "JUDGE_CALL_FAILED", "JudgeStage", "ORACLE",
           "REPORT_STATUSES", "add_usage", "config_sha256", "current_lines", "default_workers",
           "is_current", "judge_identity", "judge_task", "judged_record", "line_subgroups",
           "oracle_stage",
           "record_model", "report_status", "write_judged"]
