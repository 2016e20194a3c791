"""SciNet runs: tasks → generate → score → aggregate, each stage a file in the run directory.

tasks.jsonl     the tasks of the run (built from the graph, or copied from --tasks)
generate.jsonl  one line per task: {"task_id", "papers": [...] | null, "error", "seconds"};
                appended and fsynced one task at a time, so a killed run resumes (finished
                tasks are skipped, a torn last line is redone)
scores.jsonl    one line per task: `scinet.metrics.score_task` (metrics, null where undefined,
                and the counts: not_in_graph, empty, missing_answer, ...)
summary.json    per family: macro (and micro) means with n / n_null, empty/missing counts;
                with a judge, the LLM metrics and `judge` counts (scored / unscored items and
                reason codes); with an LLM agent, `agent_llm` (calls, failures, fallbacks)
judge.jsonl     (with a judge) every judgement: key, metric, subject, score, reasoning,
                unscored reason, attempts, model, prompt identity; scored ones by the same
                model and prompts are reused when the run is scored again
manifest.json   config, package versions, environment (graph, contexts, measure settings),
                tasks checksum, agent config; LLM runs: `agent_model` (part of the resume
                identity), `models.agent|judge`, `llm_usage.agent|judge` (summed over
                invocations), `judge` (model id, prompt identities, k, scale)

The judge runs only when asked (`SciNetRunConfig.with_judge`, or `run_scinet(..., judge=client)`);
default runs make no model call. The judge is not part of the resume identity: a finished run
can be scored again with another judge (same --out, `with_judge`).
"""
from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.data.jsonl import append_jsonl, iter_jsonl, read_jsonl_tolerant
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.registry import register_benchmark
from scholarbench.runner.llm_record import add_usage, model_identity, record_models
from scholarbench.runner.manifest import new_manifest, read_manifest, write_manifest
from scholarbench.scinet.agents import SciNetContext, make_scinet_agent
from scholarbench.scinet.env import EnvSettings, SciNetEnv
from scholarbench.scinet.judge import SciNetJudge, judge_counts
from scholarbench.scinet.metrics import K, LLM_METRICS, METRICS, aggregate, score_task
from scholarbench.scinet.records import SciNetTask, read_tasks, write_tasks
from scholarbench.scinet.tasks import BuildSettings, build_tasks

TASKS, GENERATE, SCORES, SUMMARY = "tasks.jsonl", "generate.jsonl", "scores.jsonl", "summary.json"
JUDGE = "judge.jsonl"
IDENTITY_KEYS = ("benchmark", "family", "agent", "agent_config", "tasks_sha256", "agent_model")


@register_benchmark("scinet")
class SciNetInfo:
    name = "scinet"
    modes = ("ego", "pair", "path")
    measures = METRICS + LLM_METRICS


@dataclass
class SciNetRunConfig:
    family: str                          # ego | pair | path
    agent: str                           # scinet/<name> or <name>
    out: Path
    graph_dir: Path | None = None        # arxiv-2023 folder (default env)
    unarxive_dir: Path | None = None     # citation contexts
    tasks: Path | None = None            # a tasks JSONL; default: build from the graph
    env: SciNetEnv | None = None         # an environment already open (tests, notebooks)
    build: BuildSettings | None = None
    agent_params: dict[str, Any] | None = None
    limit: int | None = None
    embedder: Any = None                 # for scinet/embedding (default: MiniLM)
    run_name: str | None = None
    with_judge: bool = False             # LLM metrics through the judge role
    judge_k: int = K                     # ego: papers judged per task (the first distinct ones)


class _Roles:
    """Bare clients seen as roles (`record_models` / `add_usage` read `.agent` / `.judge`)."""

    def __init__(self, agent: Any = None, judge: Any = None) -> None:
        self.agent, self.judge = agent, judge


def open_env(graph_dir: Path | None, unarxive_dir: Path | None,
             settings: EnvSettings | None = None) -> SciNetEnv:
    if graph_dir is None:
        raise ScholarbenchError("scinet needs the citation graph (--graph DIR, the arxiv-2023 "
                                "folder)")
    return SciNetEnv.from_arxiv2023(graph_dir, unarxive_dir, settings)


def _settings_of(tasks: Sequence[SciNetTask]) -> EnvSettings | None:
    for t in tasks:
        env = t.info.get("env") if isinstance(t.info, dict) else None
        if isinstance(env, dict):
            keys = {f.name for f in dataclasses.fields(EnvSettings)}
            return EnvSettings(**{k: env[k] for k in keys if k in env})
    return None


def run_scinet(config: SciNetRunConfig, roles_factory: Callable[..., Any] | None = None,
               *, judge: Any = None) -> dict[str, Any]:
    """Run (or resume) generate → score (→ judge) → aggregate; returns the summary.

    `roles_factory(need_agent=…, need_judge=…)` returns the run's `LLMRoles`; it is called only
    when the agent uses a chat model or the config asks for the judge (`with_judge`) and no
    `judge` client was passed. Passing `judge` (a ChatClient) turns the LLM metrics on."""
    if config.family not in SciNetInfo.modes:
        raise ScholarbenchError(f"unknown SciNet task family {config.family!r}; use ego, pair "
                                "or path")
    agent = make_scinet_agent(config.agent, **(config.agent_params or {}))
    need_agent = bool(getattr(agent, "uses_llm", False))
    need_judge = config.with_judge and judge is None
    roles: Any = None
    if need_agent or need_judge:
        if roles_factory is None:
            what = "agent " + repr(agent.name) + " uses a chat model" if need_agent else \
                "the judge was asked for"
            raise ScholarbenchError(f"{what} but no chat model was given")
        roles = roles_factory(need_agent=need_agent, need_judge=need_judge)
    llm = roles.agent if need_agent else None
    judge_client = judge if judge is not None else (roles.judge if need_judge else None)
    given = read_tasks(config.tasks) if config.tasks else None
    env = config.env or open_env(config.graph_dir, config.unarxive_dir,
                                 _settings_of(given) if given else None)
    tasks = ([t for t in given if t.family == config.family] if given is not None
             else build_tasks(env, config.family, config.build))
    if config.limit is not None:
        tasks = tasks[: config.limit]
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    write_tasks(tasks, out / TASKS)
    manifest = new_manifest(benchmark="scinet", family=config.family, agent=agent.name,
                            agent_config=agent.config(), run_name=config.run_name or agent.name,
                            tasks_sha256=sha256_file(out / TASKS), n_tasks=len(tasks),
                            tasks_source=str(config.tasks) if config.tasks else "built",
                            env=env.describe(), agent_model=model_identity(llm))
    if (out / "manifest.json").exists():
        old = read_manifest(out)
        for key in IDENTITY_KEYS:
            if old.get(key) != manifest.get(key):
                raise ScholarbenchError(f"{out} holds a run with a different {key!r}; use "
                                        "another --out or delete it")
        manifest["llm_usage"] = old.get("llm_usage", {})
        if "models" in old:
            manifest["models"] = old["models"]
    embedder = config.embedder
    if getattr(agent, "needs_embedder", False) and embedder is None:
        from scholarbench.embed.minilm import default_embedder
        embedder = default_embedder()
    if embedder is not None:
        manifest["embedder"] = getattr(embedder, "model_id", None)
    agent_roles = _Roles(agent=llm)
    record_models(manifest, agent_roles, "agent")
    write_manifest(out, manifest)
    ctx = SciNetContext(env=env, embedder=embedder, llm=llm)
    done = {r.get("task_id") for r in read_jsonl_tolerant(out / GENERATE)}
    _drop_torn(out / GENERATE)
    answer = getattr(agent, "answer_with_info", None)
    try:
        for task in tasks:
            if task.task_id in done:
                continue
            start = time.perf_counter()
            info = None
            try:
                blind = dataclasses.replace(task, gold=None)
                if answer is not None:
                    papers, info = answer(blind, ctx)
                    papers = list(papers)
                else:
                    papers = list(agent.answer(blind, ctx))
                error = None
            except Exception as exc:  # one task's failure is scored as missing, never fatal
                papers, error = None, f"{type(exc).__name__}: {exc}"
            line = {"task_id": task.task_id, "papers": papers, "error": error,
                    "seconds": round(time.perf_counter() - start, 4)}
            if info is not None:
                line["info"] = info
            append_jsonl(out / GENERATE, line)
    finally:
        if llm is not None:
            add_usage(manifest, agent_roles, "agent")
            write_manifest(out, manifest)
    records = [r for r in read_jsonl_tolerant(out / GENERATE)
               if isinstance(r, dict) and "task_id" in r]
    answers = {r["task_id"]: r.get("papers") for r in records}
    scorer = (SciNetJudge(judge_client, k=config.judge_k, store=out / JUDGE)
              if judge_client is not None else None)
    rows = _score_rows(tasks, answers, env, scorer, manifest, out)
    summary = _write_scores(rows, out / SCORES, manifest)
    if llm is not None:
        summary["agent_llm"] = agent_llm_counts(records, {t.task_id for t in tasks})
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _score_rows(tasks: Sequence[SciNetTask], answers: dict[str, Any], env: SciNetEnv,
                scorer: SciNetJudge | None, manifest: dict[str, Any] | None,
                out: Path | None) -> list[dict[str, Any]]:
    """Deterministic metrics, plus the LLM metrics when there is a judge (its model, prompt
    identities and usage go to the manifest, written to `out` when given)."""
    rows = [score_task(t, answers.get(t.task_id), env) for t in tasks]
    if scorer is None:
        return rows
    roles = _Roles(judge=scorer.client)
    try:
        for task, row in zip(tasks, rows):
            row.update(scorer.score(task, answers.get(task.task_id), env))
    finally:
        scorer.save()
        if manifest is not None:
            record_models(manifest, roles, "judge")
            add_usage(manifest, roles, "judge")
            manifest["judge"] = {**scorer.identity(), "asked_last_scoring": scorer.asked}
            if out is not None:
                write_manifest(out, manifest)
    return rows


def agent_llm_counts(records: Sequence[dict[str, Any]], task_ids: set[str]) -> dict[str, Any]:
    """The LLM agent's model calls, failures and fallbacks over the run's generate lines."""
    calls = failed = unscored = fallback_tasks = 0
    stopped: dict[str, int] = {}
    for r in records:
        info = r.get("info")
        if r.get("task_id") not in task_ids or not isinstance(info, dict):
            continue
        llm = info.get("llm") or {}
        calls += int(llm.get("calls", 0))
        failed += int(llm.get("failed", 0))
        unscored += int(llm.get("unscored", 0))
        fallback_tasks += bool(info.get("fallback"))
        if info.get("stopped"):
            stopped[info["stopped"]] = stopped.get(info["stopped"], 0) + 1
    return {"calls": calls, "failed": failed, "unscored": unscored,
            "fallback_tasks": fallback_tasks, "stopped": dict(sorted(stopped.items()))}


def _drop_torn(path: Path) -> None:
    """Cut a torn last line (a killed writer) so appends start on a fresh line."""
    if path.exists():
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            path.write_bytes(data[: data.rfind(b"\n") + 1])


def _write_scores(rows: list[dict[str, Any]], path: Path, manifest: dict[str, Any] | None
                  ) -> dict[str, Any]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    families = sorted({r["family"] for r in rows})
    summary = {"benchmark": "scinet",
               "agent": (manifest or {}).get("agent"),
               "families": {}}
    for f in families:
        fam_rows = [r for r in rows if r["family"] == f]
        agg = aggregate(fam_rows)
        if counts := judge_counts(fam_rows):
            agg["judge"] = counts
        summary["families"][f] = agg
    return summary


def read_answers(path: str | Path) -> tuple[dict[str, Any], dict[str, int]]:
    """{task_id: papers | None (malformed)} from `{"task_id", "papers": [...]}` lines, and
    counts. A line without a string task_id or a repeated task_id is a DataError (file, line,
    field); `papers` that is not a list of strings makes that task's answer malformed
    (scored as missing and counted)."""
    path = Path(path)
    out: dict[str, Any] = {}
    lines: dict[str, int] = {}
    malformed = 0
    for line, obj in iter_jsonl(path):
        tid = obj.get("task_id")
        if not isinstance(tid, str) or not tid:
            raise DataError("need a non-empty string", file=str(path), line=line, field="task_id")
        if tid in out:
            raise DataError(f"task_id {tid!r} answered twice (first on line {lines[tid]})",
                            file=str(path), line=line, field="task_id")
        papers = obj.get("papers")
        if not isinstance(papers, list) or not all(isinstance(p, str) for p in papers):
            malformed += 1
            papers = None
        out[tid], lines[tid] = papers, line
    return out, {"malformed_answers": malformed}


def score_scinet_files(tasks: str | Path, answers: str | Path, out: str | Path, *,
                       env: SciNetEnv | None = None, graph_dir: Path | None = None,
                       unarxive_dir: Path | None = None, judge: Any = None,
                       judge_k: int = K) -> dict[str, Any]:
    """Score an answers file against a tasks file; writes `out` (one row per task) and
    `<out stem>.summary.json`; returns the summary. With `judge` (a ChatClient) the LLM
    metrics too; judgements go to `<out stem>.judge.jsonl` and the judge's model, prompts and
    usage to the summary's `judge_manifest`."""
    task_list = read_tasks(tasks)
    given, counts = read_answers(answers)
    env = env or open_env(graph_dir, unarxive_dir, _settings_of(task_list))
    known = {t.task_id for t in task_list}
    out = Path(out)
    scorer = (SciNetJudge(judge, k=judge_k, store=out.with_suffix(".judge.jsonl"))
              if judge is not None else None)
    record: dict[str, Any] = {}
    rows = _score_rows(task_list, given, env, scorer, record, None)
    summary = _write_scores(rows, out, None)
    if scorer is not None:
        summary["judge_manifest"] = record
    summary.update(counts)
    summary["unknown_task_ids"] = sorted(set(given) - known)
    summary["unanswered_tasks"] = sum(1 for t in task_list if t.task_id not in given)
    out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=2) + "\n",
                                                encoding="utf-8")
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    lines = []
    for fam, agg in summary.get("families", {}).items():
        lines.append(f"{fam}: {agg['n_tasks']} tasks, {agg['empty_answers']} empty, "
                     f"{agg['missing_answers']} missing, {agg['not_in_graph']} ids not in graph")
        for m in METRICS + LLM_METRICS:
            if m in agg:
                e = agg[m]
                macro = "—" if e["macro"] is None else f"{e['macro']:.4f}"
                micro = f"  micro {e['micro']:.4f}" if e.get("micro") is not None else ""
                lines.append(f"  {m:24s} {macro}  (n={e['n']}, null={e['n_null']}){micro}")
        for m, c in agg.get("judge", {}).items():
            reasons = ", ".join(f"{k} {v}" for k, v in c["reasons"].items()) or "none"
            lines.append(f"  judge {m}: {c['judged']} items scored, {c['unscored']} unscored "
                         f"({reasons}), {c['tasks_null']} tasks null")
    if (a := summary.get("agent_llm")) is not None:
        lines.append(f"agent model: {a['calls']} calls, {a['failed']} failed, {a['unscored']} "
                     f"unusable replies, {a['fallback_tasks']} tasks took a fallback")
    return "\n".join(lines)
