"""SciNet runs: tasks → generate → score → aggregate, each stage a file in the run directory.

tasks.jsonl     the tasks of the run (built from the graph, or copied from --tasks)
generate.jsonl  one line per task: {"task_id", "papers": [...] | null, "error", "seconds"};
                appended and fsynced one task at a time, so a killed run resumes (finished
                tasks are skipped, a torn last line is redone)
scores.jsonl    one line per task: `scinet.metrics.score_task` (metrics, null where undefined,
                and the counts: not_in_graph, empty, missing_answer, ...)
summary.json    per family: macro (and micro) means with n / n_null, empty/missing counts
manifest.json   config, package versions, environment (graph, contexts, measure settings),
                tasks checksum, agent config
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
from scholarbench.runner.manifest import new_manifest, read_manifest, write_manifest
from scholarbench.scinet.agents import SciNetContext, make_scinet_agent
from scholarbench.scinet.env import EnvSettings, SciNetEnv
from scholarbench.scinet.metrics import METRICS, aggregate, score_task
from scholarbench.scinet.records import SciNetTask, read_tasks, write_tasks
from scholarbench.scinet.tasks import BuildSettings, build_tasks

TASKS, GENERATE, SCORES, SUMMARY = "tasks.jsonl", "generate.jsonl", "scores.jsonl", "summary.json"
IDENTITY_KEYS = ("benchmark", "family", "agent", "agent_config", "tasks_sha256")


@register_benchmark("scinet")
class SciNetInfo:
    name = "scinet"
    modes = ("ego", "pair", "path")
    measures = METRICS


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


def run_scinet(config: SciNetRunConfig, roles_factory: Callable[..., Any] | None = None
               ) -> dict[str, Any]:
    """Run (or resume) generate → score → aggregate; returns the summary."""
    if config.family not in SciNetInfo.modes:
        raise ScholarbenchError(f"unknown SciNet task family {config.family!r}; use ego, pair "
                                "or path")
    agent = make_scinet_agent(config.agent, **(config.agent_params or {}))
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
                            env=env.describe())
    if (out / "manifest.json").exists():
        old = read_manifest(out)
        for key in IDENTITY_KEYS:
            if old.get(key) != manifest.get(key):
                raise ScholarbenchError(f"{out} holds a run with a different {key!r}; use "
                                        "another --out or delete it")
    llm = None
    if getattr(agent, "uses_llm", False):
        if roles_factory is None:
            raise ScholarbenchError(f"agent {agent.name!r} uses a chat model but none was given")
        llm = roles_factory(need_agent=True, need_judge=False).agent
    embedder = config.embedder
    if getattr(agent, "needs_embedder", False) and embedder is None:
        from scholarbench.embed.minilm import default_embedder
        embedder = default_embedder()
    if embedder is not None:
        manifest["embedder"] = getattr(embedder, "model_id", None)
    write_manifest(out, manifest)
    ctx = SciNetContext(env=env, embedder=embedder, llm=llm)
    done = {r.get("task_id") for r in read_jsonl_tolerant(out / GENERATE)}
    _drop_torn(out / GENERATE)
    for task in tasks:
        if task.task_id in done:
            continue
        start = time.perf_counter()
        try:
            papers, error = list(agent.answer(dataclasses.replace(task, gold=None), ctx)), None
        except Exception as exc:  # one task's failure is scored as missing, never fatal
            papers, error = None, f"{type(exc).__name__}: {exc}"
        append_jsonl(out / GENERATE, {"task_id": task.task_id, "papers": papers, "error": error,
                                      "seconds": round(time.perf_counter() - start, 4)})
    answers = {r["task_id"]: r.get("papers") for r in read_jsonl_tolerant(out / GENERATE)
               if isinstance(r, dict) and "task_id" in r}
    rows = [score_task(t, answers.get(t.task_id), env) for t in tasks]
    summary = _write_scores(rows, out / SCORES, manifest)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


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
               "families": {f: aggregate([r for r in rows if r["family"] == f]) for f in families}}
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
                       unarxive_dir: Path | None = None) -> dict[str, Any]:
    """Score an answers file against a tasks file; writes `out` (one row per task) and
    `<out stem>.summary.json`; returns the summary."""
    task_list = read_tasks(tasks)
    given, counts = read_answers(answers)
    env = env or open_env(graph_dir, unarxive_dir, _settings_of(task_list))
    known = {t.task_id for t in task_list}
    rows = [score_task(t, given.get(t.task_id), env) for t in task_list]
    out = Path(out)
    summary = _write_scores(rows, out, None)
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
        for m in METRICS:
            if m in agg:
                e = agg[m]
                macro = "—" if e["macro"] is None else f"{e['macro']:.4f}"
                micro = f"  micro {e['micro']:.4f}" if e.get("micro") is not None else ""
                lines.append(f"  {m:24s} {macro}  (n={e['n']}, null={e['n_null']}){micro}")
    return "\n".join(lines)
