"""TaxoBench runs: generate → score → aggregate, each stage its own file in the run directory.

generate.jsonl  one line per sample: {"id", "prediction" (upstream form) | null, "error",
                "seconds"}, plus "info" when the agent reports counts (llm-taxonomy's dropped
                papers, ...)
scores.jsonl    one line per gold instance: the metric keys (see metrics.taxobench) + flags; with
                a judge also judge_coverage … judge_avg and judge_unscored (reason or null)
judge.jsonl     with a judge: per instance its scores, reasoning, attempts, prompt version
summary.json    means over samples (nulls excluded and counted), missing/malformed counts; judge
                metrics carry n_unscored beside n and n_null; agent info counts summed
manifest.json   config, package versions, data checksum, embedder, cache statistics, chat models
                (models.agent / models.judge), LLM usage per role, the judge's prompt version

Lines are appended and flushed one sample at a time, so a killed run resumes where it stopped
(finished samples are skipped; a torn last line is redone).
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from scholarbench.agents.base import AgentContext, make_agent
from scholarbench.data.jsonl import append_jsonl, read_jsonl_tolerant
from scholarbench.data.taxobench import load_instances, parse_prediction
from scholarbench.embed.base import Embedder
from scholarbench.errors import ScholarbenchError
from scholarbench.metrics.taxobench import METRIC_KEYS, score_instance
from scholarbench.records import TaxoPrediction, TaxoTask
from scholarbench.files import sha256_file
from scholarbench.judges.taxobench import NOT_JUDGED, JudgeResult, aggregate_judge, as_judge
from scholarbench.runner.llm_record import add_usage, model_identity, record_models
from scholarbench.runner.manifest import (check_resumable, new_manifest, read_manifest,
                                          write_manifest, resolve_llm)

GENERATE, SCORES, SUMMARY, JUDGE = ("generate.jsonl", "scores.jsonl", "summary.json",
                                   "judge.jsonl")


@dataclass
class RunConfig:
    gold_path: Path
    mode: str
    agent: str
    out: Path
    limit: int | None = None
    corpus_dir: Path | None = None
    agent_params: dict[str, Any] | None = None
    run_name: str | None = None
    progress: bool = True
    llm: Any = None          # LLMRoles, or a factory called only if the agent uses a model
    judge: Any = None        # the judge role's ChatClient (or a TaxoBenchJudge): LLM-judge scores


def _select(tasks: list[TaxoTask], limit: int | None) -> list[TaxoTask]:
    return tasks[:limit] if limit is not None else tasks


def run(config: RunConfig, embedder: Embedder) -> dict[str, Any]:
    """Run (or resume) all three stages; returns the summary."""
    if config.mode not in ("bottom-up", "deep-research"):
        raise ScholarbenchError(f"unknown mode {config.mode!r}; use bottom-up or deep-research")
    agent = make_agent(config.agent, **(config.agent_params or {}))
    if config.mode not in agent.modes:
        raise ScholarbenchError(f"agent {config.agent!r} does not support {config.mode} mode "
                                f"(it supports: {', '.join(agent.modes)})")
    tasks = _select(load_instances(config.gold_path), config.limit)
    config.out.mkdir(parents=True, exist_ok=True)
    roles = resolve_llm(config.llm, agent)
    manifest = new_manifest(
        benchmark="taxobench", mode=config.mode, agent=config.agent,
        agent_config=agent.config(), run_name=config.run_name or config.agent,
        data={"path": str(config.gold_path.resolve()), "sha256": sha256_file(config.gold_path)},
        limit=config.limit, n_samples=len(tasks), embedder=embedder.model_id,
        corpus=_corpus_info(config.corpus_dir) if config.mode == "deep-research" else None,
        agent_model=model_identity(roles.agent if roles else None))
    if (config.out / "manifest.json").exists():
        old = read_manifest(config.out)
        check_resumable(old, manifest, config.out)
        manifest["llm_usage"] = old.get("llm_usage", {})
    record_models(manifest, roles, "agent")
    write_manifest(config.out, manifest)
    ctx = AgentContext(mode=config.mode, embedder=embedder, corpus_dir=config.corpus_dir,
                       llm=roles.agent if roles else None)
    try:
        generate(tasks, agent, ctx, config.out, config.progress)
    finally:
        manifest = read_manifest(config.out)
        add_usage(manifest, roles, "agent")
        write_manifest(config.out, manifest)
    return score_run(config.out, embedder, progress=config.progress, judge=config.judge)


def _corpus_info(corpus_dir: Path | None) -> dict[str, Any] | None:
    if corpus_dir is None:
        return None
    manifest = corpus_dir / "manifest.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    keep = ("format_version", "sha256", "files", "counts")
    return {"path": str(corpus_dir.resolve()), **{k: info[k] for k in keep if k in info}}


def generate(tasks: list[TaxoTask], agent: Any, ctx: AgentContext, out: Path,
             progress: bool = True) -> None:
    path = out / GENERATE
    done = {str(r["id"]) for r in read_jsonl_tolerant(path)}
    _drop_torn_line(path)
    todo = [t for t in tasks if t.id not in done]
    for task in tqdm(todo, desc=f"generate ({agent.name})", disable=not progress or not todo,
                     unit="sample"):
        start = time.perf_counter()
        try:
            pred = agent.generate(task, ctx)
            record = {"id": task.id, "prediction": pred.to_upstream(), "error": pred.error}
            if pred.info:
                record["info"] = pred.info
        except Exception as exc:  # an agent failure is this sample's outcome, not the run's
            record = {"id": task.id, "prediction": None,
                      "error": f"agent raised {type(exc).__name__}: {exc}"}
        record["seconds"] = round(time.perf_counter() - start, 4)
        append_jsonl(path, record)


def _drop_torn_line(path: Path) -> None:
    """Cut a half-written last line left by a killed writer so appends start on a clean line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def load_generated(out: Path) -> dict[str, TaxoPrediction | None]:
    """Predictions by id; None for a sample whose agent produced nothing (crash)."""
    preds: dict[str, TaxoPrediction | None] = {}
    for record in read_jsonl_tolerant(out / GENERATE):
        raw = record.get("prediction")
        if raw is None:
            preds[str(record["id"])] = None
            continue
        pred = parse_prediction(raw)
        if record.get("error"):
            pred.error = record["error"]
        preds[str(record["id"])] = pred
    return preds


def score_run(out: Path, embedder: Embedder, progress: bool = True,
              judge: Any = None) -> dict[str, Any]:
    """(Re-)score every gold instance of a run from its generate.jsonl; rewrite scores + summary.

    `judge` (the judge role's ChatClient, or a `TaxoBenchJudge`) adds the LLM-judge keys to each
    row; a missing or malformed prediction is not sent to it. Judge calls run concurrently (up to
    the client's concurrency; one at a time for the local model, whose server takes one request
    at a time) and are answered from the reply cache when the run is re-scored.
    """
    manifest = read_manifest(out)
    gold_path = Path(manifest["data"]["path"])
    if not gold_path.exists():
        raise ScholarbenchError(f"{out}: the run's gold file {gold_path} is gone; re-import it")
    tasks = _select(load_instances(gold_path), manifest.get("limit"))
    preds = load_generated(out)
    records = read_jsonl_tolerant(out / GENERATE)
    errors = {str(r["id"]): r.get("error") for r in records}
    judge = as_judge(judge)
    before = judge.client.usage.as_dict() if judge is not None else None
    pending = _start_judging(judge, tasks, preds) if judge is not None else None
    tmp = out / (SCORES + ".tmp")
    tmp.unlink(missing_ok=True)
    rows, judged = [], []
    try:
        for task in tqdm(tasks, desc="score", disable=not progress, unit="sample"):
            pred = preds.get(task.id)
            row = {"id": task.id, **score_instance(task.gold, pred, embedder)}
            if pending is not None:
                result = pending[task.id].result() if task.id in pending else NOT_JUDGED
                row.update(result.row())
                judged.append(_judge_record(task.id, result))
            if pred is None and errors.get(task.id):
                row["error"] = errors[task.id]
            rows.append(row)
            append_jsonl(tmp, row)
    finally:
        if pending is not None:
            for future in pending.values():
                future.cancel()          # only matters when scoring stopped on an error
            _finish_judging(out, judge, before)
    tmp.replace(out / SCORES)
    if judge is not None:
        _write_jsonl(out / JUDGE, judged)
    else:
        _forget_judge(out)
    summary = aggregate(rows, manifest)
    summary["agent_info"] = _sum_info(records, {t.id for t in tasks})
    if judge is not None:
        summary["judge"] = judge.info()
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    stats = getattr(embedder, "stats", None)
    if stats is not None:
        manifest = read_manifest(out)
        manifest["embedding_cache"] = stats.as_dict()
        write_manifest(out, manifest)
    return summary


def _start_judging(judge: Any, tasks: list[TaxoTask],
                   preds: dict[str, TaxoPrediction | None]) -> dict[str, Any]:
    """Futures of the judge's results for the samples that have a well-formed taxonomy."""
    config = getattr(judge.client, "config", None)
    workers = 1 if config is None or config.is_local else max(1, config.concurrency)
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge")
    pending = {}
    for task in tasks:
        pred = preds.get(task.id)
        if pred is not None and pred.taxonomy is not None and not pred.error:
            pending[task.id] = executor.submit(_judge_safely, judge, task.gold, pred.taxonomy)
    executor.shutdown(wait=False)
    return pending


def _judge_safely(judge: Any, gold: Any, taxonomy: Any) -> JudgeResult:
    """Bad model output is already "unscored" inside the judge; this catches anything else
    (e.g. a reply nested too deeply to parse) so one sample can never stop the scoring."""
    try:
        return judge.judge(gold, taxonomy)
    except Exception as exc:
        return JudgeResult(unscored=f"judge raised {type(exc).__name__}: {exc}"[:500],
                           attempts=1, prompt=judge.prompt)


def _judge_record(task_id: str, result: JudgeResult) -> dict[str, Any]:
    return {"id": task_id, "judged": result.attempts > 0, "scores": result.scores,
            "judge_avg": result.avg, "unscored": result.unscored, "attempts": result.attempts,
            "reasoning": result.reasoning, "prompt": result.prompt}


def _finish_judging(out: Path, judge: Any, before: dict[str, Any]) -> None:
    """Record the judge model, its prompt version and this scoring's usage in the manifest."""
    manifest = read_manifest(out)
    roles = _JudgeUsage(judge.client, before)
    record_models(manifest, roles, "judge")
    manifest["judge"] = judge.info()
    add_usage(manifest, roles, "judge")
    write_manifest(out, manifest)


class _JudgeUsage:
    """A roles-like view whose judge usage is what this scoring added (the client may have
    been used before, e.g. by an earlier score_run in the same process)."""

    def __init__(self, client: Any, before: dict[str, Any]) -> None:
        self.judge = self
        self.config, self.model_id, self._client, self._before = (
            client.config, client.model_id, client, before)

    @property
    def usage(self) -> Any:
        return self

    def as_dict(self) -> dict[str, Any]:
        now = self._client.usage.as_dict()
        out = {k: v - self._before.get(k, 0) for k, v in now.items()
               if isinstance(v, int) and not isinstance(v, bool)}
        cost_now, cost_before = now.get("cost_usd"), self._before.get("cost_usd")
        out["cost_usd"] = None if cost_now is None else round(cost_now - (cost_before or 0.0), 6)
        return out


def _forget_judge(out: Path) -> None:
    """Re-scored without a judge: the judge's files and manifest entries no longer describe the
    scores (its usage stays in llm_usage, which counts every invocation)."""
    (out / JUDGE).unlink(missing_ok=True)
    manifest = read_manifest(out)
    models = manifest.get("models") or {}
    if "judge" in manifest or "judge" in models:
        manifest.pop("judge", None)
        models.pop("judge", None)
        write_manifest(out, manifest)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(path)


def _sum_info(records: list[dict[str, Any]], ids: set[str]) -> dict[str, int]:
    """Agents' per-sample counts (generate.jsonl "info"), summed over the scored samples."""
    total: dict[str, int] = {}
    for record in records:
        info = record.get("info")
        if str(record.get("id")) in ids and isinstance(info, dict):
            for key, value in info.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    total[key] = total.get(key, 0) + value
    return total


def aggregate(rows: list[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    metrics = {}
    for key in METRIC_KEYS:
        values = [r[key] for r in rows if r.get(key) is not None]
        metrics[key] = {"mean": sum(values) / len(values) if values else None,
                        "n": len(values), "n_null": len(rows) - len(values)}
    if rows and all("judge_avg" in r for r in rows):
        metrics.update(aggregate_judge(rows))
    return {"benchmark": "taxobench", "mode": manifest["mode"], "agent": manifest["agent"],
            "run_name": manifest.get("run_name"), "n_samples": len(rows),
            "n_missing": sum(1 for r in rows if r.get("missing")),
            "n_malformed": sum(1 for r in rows if r.get("malformed")),
            "metrics": metrics}


def score_files(gold: Path, pred: Path, out: Path, embedder: Embedder,
                on_problem: Callable[[str], None] = print) -> dict[str, Any]:
    """`score taxobench --gold --pred --out`: one line per gold instance, never skipping one."""
    from scholarbench.data.taxobench import load_predictions
    tasks = load_instances(gold)
    loaded = load_predictions(pred)
    for problem in loaded.problems:
        on_problem(f"skipped agent output: {problem}")
    gold_ids = {t.id for t in tasks}
    for extra in sorted(set(loaded.by_id) - gold_ids):
        on_problem(f"prediction id {extra!r} has no gold instance; ignored")
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"id": t.id, **score_instance(t.gold, loaded.by_id.get(t.id), embedder)} for t in tasks]
    with out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    summary = aggregate(rows, {"mode": "files", "agent": pred.stem, "run_name": pred.stem})
    summary["n_unreadable_prediction_lines"] = len(loaded.problems)
    return summary
