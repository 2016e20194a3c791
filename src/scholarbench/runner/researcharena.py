"""ResearchArena runs: generate → score → aggregate, each stage its own file in the run directory.

    tasks.jsonl     the task set scored against (full set; `--limit` selects its first n),
                    one `ArenaTask` per line: topic, cut-off, references with grades, the
                    unsearchable ones and why, counts, flags, ground-truth mind-map
    qrels.trec      discovery / selection: the qrels of the selected tasks (variant recorded)
    generate.jsonl  one line per sample, appended and fsync'ed:
                    {"id", "ranking": [[paper_id, score], ...] | "mindmap": {...} | null,
                     "error", "info", "seconds"}
    run.trec        discovery / selection: the rankings as a TREC run (rewritten when scored)
    scores.jsonl    one line per selected task, never skipped
    summary.json    means (undefined values excluded and counted), counts, reference totals
    manifest.json   config, agent config, versions, task-set and corpus checksums, embedder

Resume: an existing run directory continues where it stopped (finished samples are skipped, a
torn last line is redone) when the configuration matches; `--limit` may change between runs
(run `--limit 1`, then without it: the first sample is not redone). `scholarbench score RUN_DIR`
re-scores from tasks.jsonl + generate.jsonl without the corpus or the agent.

Scoring rules (discovery and selection):

- The list order is the ranking. The run's score for rank i of n is n - i + 1 (the agent's own
  scores are kept in generate.jsonl), so trec_eval's tie-breaking (docid descending) never
  reorders an agent's list, and run.trec scored by trec_eval gives the same numbers.
- A paper_id repeated in one list keeps its first rank; the repeats are counted per sample
  (`duplicates_dropped`).
- Measures: all of `R@10 R@100 P@10 P@100 nDCG@10 nDCG@30 nDCG@100 RR AP` for both tasks (the
  same ranked list answers both); the summary marks the paper's measures for the task
  (discovery: Recall and Precision at 10 and 100, §5; selection: nDCG@10/30/100 and MRR).
- A missing output (no line, the agent raised, or returned nothing) is an empty ranking: 0 on
  every measure, counted (`n_missing`). A malformed one (an entry that is not [id without
  spaces, finite number]) is also scored as empty and counted (`n_malformed`).
- A task with no gold (empty qrels) is unscorable: the agent is not run on it, its row has
  null measures and `unscorable: "empty_gold"`; it is excluded from the means and counted
  beside them (and listed in `unscorable_ids`).

Organisation: the mind-map is scored with `metrics.organisation.organisation_scores` against
the task's ground-truth mind-map (an upstream typology, else a TaxoBench tree). A task without
one is unscorable (`unscorable: "no_mindmap"`; the agent is not run on it), counted and listed.
A missing or malformed mind-map is
scored as an empty one (HSR 0, HER 0, TSD = gold size), counted.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm import tqdm

from scholarbench.agents.researcharena.base import (TASKS, ArenaContext, ArenaQuery,
                                                    make_arena_agent)
from scholarbench.data.jsonl import append_jsonl, read_jsonl_tolerant
from scholarbench.data.researcharena import (EMPTY_GOLD, NO_MINDMAP, ArenaTask,
                                             mindmap_from_json, mindmap_to_json, read_tasks,
                                             tasks_sha256, write_tasks)
from scholarbench.data.trec import Run, write_qrels, write_run
from scholarbench.embed.base import Embedder
from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.metrics.ranking import (DEFAULT_MEASURES, DISCOVERY_MEASURES,
                                          SELECTION_MEASURES, aggregate, evaluate,
                                          provider_versions)
from scholarbench.registry import register_benchmark
from scholarbench.runner.llm_record import add_usage, model_identity, record_models
from scholarbench.runner.manifest import new_manifest, read_manifest, resolve_llm, write_manifest

TASKS_FILE, QRELS, GENERATE, RUN, SCORES, SUMMARY = (
    "tasks.jsonl", "qrels.trec", "generate.jsonl", "run.trec", "scores.jsonl", "summary.json")
ORGANISATION_KEYS = ("heading_soft_recall", "heading_entity_recall", "tree_semantic_distance")
PRIMARY = {"discovery": DISCOVERY_MEASURES, "selection": SELECTION_MEASURES,
           "organisation": ORGANISATION_KEYS}
# Keys that must agree for a run directory to be resumed (`limit` may change: see above).
IDENTITY_KEYS = ("benchmark", "mode", "agent", "agent_config", "data", "embedder", "corpus_sha256",
                 "agent_model")
QRELS_VARIANTS = ("searchable", "all")


@register_benchmark("researcharena")
class ResearchArenaInfo:
    name = "researcharena"
    modes = TASKS
    measures = DEFAULT_MEASURES
    organisation = ORGANISATION_KEYS


@dataclass
class ArenaRunConfig:
    task: str                                  # discovery / selection / organisation
    agent: str
    out: Path
    corpus_dir: Path | None = None
    tasks_from: str = "corpus"                 # "corpus", "taxobench" or a survey.jsonl path
    task_set: str = "reference-lists"          # corpus tasks: which surveys (TASK_SETS)
    taxobench_file: Path | None = None         # TaxoBench instances (mind-maps, taxobench tasks)
    qrels: str = "searchable"                  # or "all" (upstream's qrels)
    limit: int | None = None
    agent_params: dict[str, Any] | None = None
    run_name: str | None = None
    progress: bool = True
    llm: Any = None          # LLMRoles, or a factory called only if the agent uses a model


def _corpus_info(corpus_dir: Path | None) -> dict[str, Any] | None:
    if corpus_dir is None:
        return None
    manifest = corpus_dir / "manifest.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    keep = ("format_version", "sha256", "files", "counts", "n_papers", "n_edges")
    return {"path": str(corpus_dir.resolve()), **{k: info[k] for k in keep if k in info}}


def load_task_set(config: ArenaRunConfig, corpus) -> tuple[list[ArenaTask], dict[str, Any]]:
    """Build the configured task set; returns (tasks, a description for the manifest)."""
    from scholarbench.tasks.researcharena import (GRADING_NOTE, TASK_SETS,
                                                  attach_taxobench_mindmaps, build_tasks,
                                                  load_survey_jsonl, reference_lists_from_sources,
                                                  tasks_from_taxobench)
    info: dict[str, Any] = {"tasks_from": config.tasks_from}
    instances = None
    if config.taxobench_file is not None:
        from scholarbench.data.taxobench import load_instances
        instances = load_instances(config.taxobench_file)
        info["taxobench"] = {"path": str(config.taxobench_file.resolve()),
                             "sha256": sha256_file(config.taxobench_file)}
    if config.tasks_from == "corpus":
        if config.task_set not in TASK_SETS:
            raise ScholarbenchError(f"unknown task set {config.task_set!r}; use one of "
                                    f"{', '.join(TASK_SETS)}")
        records, used = reference_lists_from_sources(corpus)
        tasks = build_tasks(corpus, TASK_SETS[config.task_set], reference_lists=records)
        info.update(task_set=config.task_set, reference_lists=used, grading=GRADING_NOTE)
    elif config.tasks_from == "taxobench":
        if instances is None:
            raise ScholarbenchError("--tasks taxobench needs TaxoBench instances (--taxobench "
                                    "FILE, or import them: scholarbench data import taxobench)")
        tasks = tasks_from_taxobench(instances, corpus)
        info["grading"] = "binary: TaxoBench has no influence labels"
    else:
        path = Path(config.tasks_from)
        if not path.is_file():
            raise ScholarbenchError(f"--tasks: {path} is not 'corpus', 'taxobench' or a file")
        tasks = load_survey_jsonl(path, corpus)
        info.update(path=str(path.resolve()), sha256=sha256_file(path),
                    grading="influential = 2, relevant = 1 (upstream labels)")
    if instances is not None and config.tasks_from != "taxobench":
        info["taxobench_mindmaps_attached"] = attach_taxobench_mindmaps(tasks, instances)
    return tasks, info


def scorable(task: ArenaTask, task_kind: str, qrels: str = "searchable") -> bool:
    """Whether the task can be scored: a ground-truth mind-map (organisation), a non-empty
    qrels (discovery, selection). The agent is not run on the others."""
    if task_kind == "organisation":
        return task.mindmap is not None
    return bool(task.qrels(qrels))


def _select(tasks: Sequence[ArenaTask], limit: int | None) -> list[ArenaTask]:
    return list(tasks[:limit]) if limit is not None else list(tasks)


def _check_resumable(old: dict[str, Any], new: dict[str, Any], run_dir: Path) -> None:
    for key in IDENTITY_KEYS:
        if old.get(key) != new.get(key):
            raise ScholarbenchError(
                f"{run_dir} holds a run with a different {key!r} ({old.get(key)!r} vs "
                f"{new.get(key)!r}); use another --out or delete it")


def run(config: ArenaRunConfig, embedder: Embedder | Callable[[], Embedder] | None = None
        ) -> dict[str, Any]:
    """Run (or resume) all three stages; returns the summary. `embedder` may be a factory,
    called only when the agent or the task needs one."""
    if config.task not in TASKS:
        raise ScholarbenchError(f"unknown task {config.task!r}; use one of {', '.join(TASKS)}")
    if config.qrels not in QRELS_VARIANTS:
        raise ScholarbenchError(f"unknown qrels variant {config.qrels!r}; use "
                                f"{' or '.join(QRELS_VARIANTS)}")
    if config.limit is not None and config.limit < 0:
        raise ScholarbenchError("--limit must be >= 0")
    agent = make_arena_agent(config.agent, **(config.agent_params or {}))
    if config.task not in agent.tasks:
        raise ScholarbenchError(f"agent {config.agent!r} does not do {config.task} (it does: "
                                f"{', '.join(agent.tasks)})")
    corpus = None
    if config.corpus_dir is not None:
        from scholarbench.corpus.store import Corpus
        corpus = Corpus.open(config.corpus_dir)
    elif config.tasks_from in ("corpus", "taxobench") or agent.needs_corpus:
        raise ScholarbenchError("this run needs a corpus directory (--corpus)")
    tasks, data = load_task_set(config, corpus)
    data["sha256"] = tasks_sha256(tasks)
    data["n_tasks"] = len(tasks)
    data["qrels"] = config.qrels
    need_embedder = agent.needs_embedder or config.task == "organisation"
    if need_embedder and embedder is None:
        raise ScholarbenchError(f"{config.task} with {config.agent} needs an embedder")
    emb = None
    if need_embedder:  # a factory (no `embed` method) is called only now
        emb = embedder if hasattr(embedder, "embed") else embedder()  # type: ignore[operator]
    selected = _select(tasks, config.limit)
    roles = resolve_llm(config.llm, agent)
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    manifest = new_manifest(
        benchmark="researcharena", mode=config.task, agent=config.agent,
        agent_config=agent.config(), run_name=config.run_name or config.agent, data=data,
        limit=config.limit, n_samples=len(selected),
        embedder=getattr(emb, "model_id", None) if emb is not None else None,
        corpus=_corpus_info(config.corpus_dir),
        corpus_sha256=corpus.papers_sha256 if corpus is not None else None,
        scoring=provider_versions(), agent_model=model_identity(roles.agent if roles else None))
    if (out / "manifest.json").exists():
        old = read_manifest(out)
        _check_resumable(old, manifest, out)
        manifest["llm_usage"] = old.get("llm_usage", {})
    record_models(manifest, roles, "agent")
    write_manifest(out, manifest)
    write_tasks(out / TASKS_FILE, tasks)
    ctx = ArenaContext(task=config.task, corpus=corpus, embedder=emb,
                       llm=roles.agent if roles else None)
    try:
        generate([t for t in selected if scorable(t, config.task, config.qrels)], agent, ctx,
                 out, config.progress)
    finally:
        manifest = read_manifest(out)
        add_usage(manifest, roles, "agent")
        write_manifest(out, manifest)
    return score_run(out, emb, progress=config.progress)


def _drop_torn_line(path: Path) -> None:
    if path.exists():
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            path.write_bytes(data[: data.rfind(b"\n") + 1])


def generate(tasks: Sequence[ArenaTask], agent: Any, ctx: ArenaContext, out: Path,
             progress: bool = True) -> int:
    """Append one generate.jsonl line per task not already there; returns how many were run."""
    path = out / GENERATE
    done = {str(r.get("id")) for r in read_jsonl_tolerant(path)}
    _drop_torn_line(path)
    todo = [t for t in tasks if t.id not in done]
    key = "mindmap" if ctx.task == "organisation" else "ranking"
    for task in tqdm(todo, desc=f"generate ({agent.name})", disable=not progress or not todo,
                     unit="sample"):
        start = time.perf_counter()
        record: dict[str, Any] = {"id": task.id}
        try:
            result = agent.generate(ArenaQuery.of(task, ctx.task), ctx)
            if key == "mindmap":
                record[key] = mindmap_to_json(result.mindmap) if result.mindmap else None
            else:
                record[key] = ([[pid, score] for pid, score in result.ranking]
                               if result.ranking is not None else None)
            record["error"] = result.error
            if result.info:
                record["info"] = result.info
        except Exception as exc:  # an agent failure is this sample's outcome, not the run's
            record[key] = None
            record["error"] = f"agent raised {type(exc).__name__}: {exc}"
        record["seconds"] = round(time.perf_counter() - start, 4)
        append_jsonl(path, _json_safe(record))
    return len(todo)


def _json_safe(record: dict[str, Any]) -> dict[str, Any]:
    """Non-finite scores cannot be written as JSON; keep them as strings (then malformed)."""
    ranking = record.get("ranking")
    if isinstance(ranking, list):
        record["ranking"] = [[pid, score if not isinstance(score, float) or math.isfinite(score)
                              else repr(score)] for pid, score in ranking]
    return record


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------

def _parse_ranking(raw: object) -> tuple[list[str] | None, int, str | None]:
    """(paper_ids in rank order with repeats dropped, repeats dropped, problem) — None ids and a
    problem string when the output is malformed."""
    if not isinstance(raw, list):
        return None, 0, f"ranking must be a list, got {type(raw).__name__}"
    ids: list[str] = []
    seen: set[str] = set()
    dropped = 0
    for i, entry in enumerate(raw):
        if not (isinstance(entry, list) and len(entry) == 2):
            return None, 0, f"ranking[{i}]: expected [paper_id, score]"
        pid, score = entry
        if not isinstance(pid, str) or not pid or any(c.isspace() for c in pid):
            return None, 0, f"ranking[{i}]: paper_id must be a non-empty string without spaces"
        if isinstance(score, bool) or not isinstance(score, (int, float)) \
                or not math.isfinite(score):
            return None, 0, f"ranking[{i}]: score must be a finite number, got {score!r}"
        if pid in seen:
            dropped += 1
            continue
        seen.add(pid)
        ids.append(pid)
    return ids, dropped, None


def score_run(out: Path, embedder: Embedder | None = None, *, extractor=None,
              progress: bool = True) -> dict[str, Any]:
    """(Re-)score every selected task of a run from tasks.jsonl + generate.jsonl; rewrites
    qrels.trec / run.trec (ranking tasks), scores.jsonl and summary.json."""
    manifest = read_manifest(out)
    if manifest.get("benchmark") != "researcharena":
        raise ScholarbenchError(f"{out} is not a ResearchArena run")
    task_kind = manifest["mode"]
    tasks = _select(read_tasks(out / TASKS_FILE), manifest.get("limit"))
    records = {str(r.get("id")): r for r in read_jsonl_tolerant(out / GENERATE)}
    if task_kind == "organisation":
        if embedder is None:
            raise ScholarbenchError("scoring organisation needs the embedder")
        rows = _score_organisation(tasks, records, embedder, extractor, progress)
    else:
        rows = _score_ranking(tasks, records, out, manifest)
    tmp = out / (SCORES + ".tmp")
    tmp.unlink(missing_ok=True)
    for row in rows:
        append_jsonl(tmp, row)
    tmp.replace(out / SCORES)
    summary = summarise(rows, tasks, manifest)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    stats = getattr(embedder, "stats", None)
    if stats is not None and task_kind == "organisation":
        manifest["embedding_cache"] = stats.as_dict()
        write_manifest(out, manifest)
    return summary


def _status(record: dict[str, Any] | None, key: str) -> dict[str, Any]:
    if record is None:
        return {"missing": True, "malformed": False, "error": "no output for this sample"}
    if record.get(key) is None:
        return {"missing": True, "malformed": False,
                "error": record.get("error") or f"the agent returned no {key}"}
    return {"missing": False, "malformed": False, "error": record.get("error")}


def _score_ranking(tasks: Sequence[ArenaTask], records: dict[str, dict], out: Path,
                   manifest: dict[str, Any]) -> list[dict[str, Any]]:
    variant = manifest.get("data", {}).get("qrels", "searchable")
    qrels = {t.id: t.qrels(variant) for t in tasks}
    scorable = {q: docs for q, docs in qrels.items() if docs}
    run_scores: dict[str, dict[str, float]] = {}
    rows: dict[str, dict[str, Any]] = {}
    for task in tasks:
        rec = records.get(task.id)
        row: dict[str, Any] = {"id": task.id, **_status(rec, "ranking")}
        if not qrels[task.id] and rec is None:
            row.update(missing=False, error=None)   # not run: unscorable, not missing
        ids: list[str] = []
        if rec is not None and not row["missing"]:
            parsed, dropped, problem = _parse_ranking(rec["ranking"])  # type: ignore[index]
            if parsed is None:
                row.update(malformed=True, error=problem)
            else:
                ids = parsed
                row["duplicates_dropped"] = dropped
        row["n_retrieved"] = len(ids)
        row["n_gold"] = len(qrels[task.id])
        if ids:
            run_scores[task.id] = {pid: float(len(ids) - i) for i, pid in enumerate(ids)}
        if not qrels[task.id]:
            row["unscorable"] = EMPTY_GOLD
        rows[task.id] = row
    values: dict[tuple[str, str], float] = {}
    if scorable:
        for r in evaluate(scorable, {q: d for q, d in run_scores.items() if q in scorable},
                          DEFAULT_MEASURES):
            values[(r.query_id, r.measure)] = r.value
    for task in tasks:
        for name in DEFAULT_MEASURES:
            rows[task.id][name] = values.get((task.id, name)) if task.id in scorable else None
    if scorable:
        write_qrels(out / QRELS, scorable)
    else:
        (out / QRELS).write_text("")    # no task has gold: an empty file, not a stale one
    write_run(out / RUN, Run.from_dict(run_scores), _tag(manifest))
    return [rows[t.id] for t in tasks]


def _tag(manifest: dict[str, Any]) -> str:
    name = str(manifest.get("run_name") or manifest.get("agent") or "run")
    return "".join(c if not c.isspace() else "_" for c in name) or "run"


def _score_organisation(tasks: Sequence[ArenaTask], records: dict[str, dict],
                        embedder: Embedder, extractor, progress: bool) -> list[dict[str, Any]]:
    from scholarbench.metrics.organisation import organisation_scores
    rows = []
    for task in tqdm(tasks, desc="score", disable=not progress, unit="sample"):
        rec = records.get(task.id)
        row: dict[str, Any] = {"id": task.id, **_status(rec, "mindmap")}
        if task.mindmap is None and rec is None:
            row.update(missing=False, error=None)   # not run: unscorable, not missing
        pred = None
        if rec is not None and not row["missing"]:
            try:
                pred = mindmap_from_json(rec["mindmap"])  # type: ignore[index]
            except ValueError as exc:
                row.update(malformed=True, error=str(exc))
        if task.mindmap is None:
            row["unscorable"] = NO_MINDMAP
            row.update({k: None for k in ORGANISATION_KEYS})
        else:
            row["mindmap_source"] = task.mindmap_source
            row.update(organisation_scores(task.mindmap, pred, embedder, extractor=extractor))
        rows.append(row)
    return rows


def summarise(rows: Sequence[dict[str, Any]], tasks: Sequence[ArenaTask],
              manifest: dict[str, Any]) -> dict[str, Any]:
    from scholarbench.tasks.researcharena import count_totals
    task_kind = manifest["mode"]
    keys = ORGANISATION_KEYS if task_kind == "organisation" else DEFAULT_MEASURES
    scored = [r for r in rows if not r.get("unscorable")]
    metrics = {}
    for key in keys:
        values = [r[key] for r in scored if r.get(key) is not None]
        metrics[key] = {"mean": sum(values) / len(values) if values else None,
                        "n": len(values), "n_null": len(scored) - len(values)}
    if task_kind != "organisation" and scored:
        # trec_eval's own accumulation order (qids ascending) for bit-identical means
        from scholarbench.metrics.ranking import ScoreRow
        means = aggregate(ScoreRow(r["id"], k, r[k]) for r in sorted(scored, key=lambda r: r["id"])
                          for k in keys)
        for key in keys:
            metrics[key]["mean"] = means[key]
    unscorable: dict[str, int] = {}
    for r in rows:
        if r.get("unscorable"):
            unscorable[r["unscorable"]] = unscorable.get(r["unscorable"], 0) + 1
    return {"benchmark": "researcharena", "task": task_kind, "agent": manifest["agent"],
            "run_name": manifest.get("run_name"), "n_samples": len(rows),
            "n_scored": len(scored), "n_unscorable": unscorable,
            "unscorable_ids": sorted(r["id"] for r in rows if r.get("unscorable")),
            "n_missing": sum(1 for r in rows if r.get("missing")),
            "n_malformed": sum(1 for r in rows if r.get("malformed")),
            "primary": list(PRIMARY[task_kind]), "metrics": metrics,
            "qrels": manifest.get("data", {}).get("qrels"),
            "grading": manifest.get("data", {}).get("grading"),
            "references": count_totals(tasks)}


def format_summary(summary: dict[str, Any]) -> str:
    """Terminal text: the task's primary measures first, then the rest, with the counts."""
    unscorable = ", ".join(f"{n} {why}" for why, n in summary["n_unscorable"].items()) or "none"
    lines = [f"{summary.get('run_name') or summary['agent']} ({summary['task']}): "
             f"{summary['n_samples']} tasks, {summary['n_scored']} scored, unscorable: "
             f"{unscorable}; {summary['n_missing']} missing, {summary['n_malformed']} malformed"]
    order = list(summary["primary"]) + [k for k in summary["metrics"]
                                        if k not in summary["primary"]]
    for key in order:
        m = summary["metrics"][key]
        value = "—" if m["mean"] is None else f"{m['mean']:.4f}"
        mark = "*" if key in summary["primary"] else " "
        null = f"  ({m['n_null']} undefined, excluded)" if m["n_null"] else ""
        lines.append(f" {mark}{key:<24} {value:>8}{null}")
    refs = summary["references"]
    lines.append(f"  references: {refs['resolved']} resolved, {refs['searchable']} searchable, "
                 f"unsearchable {refs['unsearchable']}, unresolved {refs['unresolved']}"
                 + (f" (unknown for {refs['unresolved_unknown_tasks']} tasks)"
                    if refs.get("unresolved_unknown_tasks") else ""))
    return "\n".join(lines)


__all__ = ["ArenaRunConfig", "run", "generate", "score_run", "summarise", "format_summary",
           "load_task_set", "PRIMARY", "ORGANISATION_KEYS", "IDENTITY_KEYS"]
