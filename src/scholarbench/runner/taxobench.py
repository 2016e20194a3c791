"""TaxoBench runs: generate → score → aggregate, each stage its own file in the run directory.

generate.jsonl  one line per sample: {"id", "prediction" (upstream form) | null, "error", "seconds"}
scores.jsonl    one line per gold instance: the metric keys (see metrics.taxobench) + flags
summary.json    means over samples (nulls excluded and counted), missing/malformed counts
manifest.json   config, package versions, data checksum, embedder, cache statistics

Lines are appended and flushed one sample at a time, so a killed run resumes where it stopped
(finished samples are skipped; a torn last line is redone).
"""
from __future__ import annotations

import json
import time
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
from scholarbench.runner.llm_record import add_usage, model_identity, record_models
from scholarbench.runner.manifest import (check_resumable, new_manifest, read_manifest,
                                          write_manifest, resolve_llm)

GENERATE, SCORES, SUMMARY = "generate.jsonl", "scores.jsonl", "summary.json"


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
    return score_run(config.out, embedder, progress=config.progress)


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


def score_run(out: Path, embedder: Embedder, progress: bool = True) -> dict[str, Any]:
    """(Re-)score every gold instance of a run from its generate.jsonl; rewrite scores + summary."""
    manifest = read_manifest(out)
    gold_path = Path(manifest["data"]["path"])
    if not gold_path.exists():
        raise ScholarbenchError(f"{out}: the run's gold file {gold_path} is gone; re-import it")
    tasks = _select(load_instances(gold_path), manifest.get("limit"))
    preds = load_generated(out)
    records = read_jsonl_tolerant(out / GENERATE)
    errors = {str(r["id"]): r.get("error") for r in records}
    tmp = out / (SCORES + ".tmp")
    tmp.unlink(missing_ok=True)
    rows = []
    for task in tqdm(tasks, desc="score", disable=not progress, unit="sample"):
        pred = preds.get(task.id)
        row = {"id": task.id, **score_instance(task.gold, pred, embedder)}
        if pred is None and errors.get(task.id):
            row["error"] = errors[task.id]
        rows.append(row)
        append_jsonl(tmp, row)
    tmp.replace(out / SCORES)
    summary = aggregate(rows, manifest)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    stats = getattr(embedder, "stats", None)
    if stats is not None:
        manifest["embedding_cache"] = stats.as_dict()
        write_manifest(out, manifest)
    return summary


def aggregate(rows: list[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    metrics = {}
    for key in METRIC_KEYS:
        values = [r[key] for r in rows if r.get(key) is not None]
        metrics[key] = {"mean": sum(values) / len(values) if values else None,
                        "n": len(values), "n_null": len(rows) - len(values)}
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
