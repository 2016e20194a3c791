"""DeepSynth-Eval runs: oracle → generate → judge → score, each stage its own file in the run
directory, each re-runnable from the previous stage's files.

oracle.jsonl    writers only, one line per task: its oracle context (``OracleContext.to_json``:
                source file|corpus|none, the references with n, title, paper_id, status, text)
generate.jsonl  one line per task: {"task_id", "report" (Markdown) | null, "cited" (corpus
                ids), "error" (null or why there is no report), "info" (the writer's counts),
                "seconds"}
judge.jsonl     one line per judged task: {"task_id", "judge" (model identity, prompt version,
                retries), "report_status", "subgroups": [{"g", "s", "statuses", "reasons",
                "attempts", "problems", "replies" (the judge's raw replies)}], "calls" (judge
                requests, cache hits included), "model_calls", "cache_hits", "seconds"}
judged.jsonl    the upstream judged format (``survey_result`` = the report, ``eval_result`` per
                sub-group, null for an unscored item), one line per task in task order: what
                ``scholarbench score deepsynth --judged`` re-scores
scores.jsonl    one line per task: ``score deepsynth``'s row (task_id, dse_overall, dse_general,
                dse_constraint, n_correct, n_incorrect, n_not_mentioned, n_unscored) plus
                report_status, n_requirements, n_judge_calls
summary.json    the aggregate (macro means, micro precision, counts, unscored reasons) plus
                report statuses, judge calls and unscored reasons, oracle counts, writer counts
manifest.json   config, versions, data checksum, corpus, the writer's and the oracle's config,
                chat models per role (models.agent / models.oracle / models.judge) and LLM
                usage per role (llm_usage.agent / .oracle / .judge, summed over invocations)

Rules:

- Writers get ``WritingRequest(prompt = unified_prompt(task), topic = the general prompt's
  subject, cutoff = the day the survey may first have appeared, exclude_ids = the survey,
  oracle = its oracle context or None)``. Without an oracle (``oracle="none"``, or no
  reference list for the task) a writer searches the corpus under that cut-off and exclusion.
- The judge is the judge role (bound separately from the agent role; see ``llm/roles.py``),
  with ``checklist_judge_v1`` (report quoted) unless ``judge_prompt`` says otherwise; every
  sub-group with requirements is one judge call (plus repairs). Judge calls of one task run
  ``judge_workers`` at a time (default: 1 for the local model, the client's concurrency
  otherwise).
- A task whose writer failed (``error``), returned an empty report, or — with replay — has no
  or a malformed report is not sent to the judge: every requirement is ``not_mentioned`` (an
  empty report mentions nothing; the task scores 0, it is not dropped), and the summary counts
  it by status (``reports``).
- A judge reply still unusable after the judge's retries leaves its items unscored (null in
  judged.jsonl; ``unscored_by_judge`` in the scores; the judge's own reason — empty_reply,
  invalid_json, not_a_list, wrong_length, unknown_label — in ``judge.unscored_reasons``). A
  judge request the endpoint refuses (HTTP 400/413/422, e.g. a report longer than the judge's
  context) leaves that sub-group's items unscored with reason ``judge_call_failed``. Any other
  judge failure after the client's retries (endpoint down) stops the run with an error; a
  rerun resumes.
- Resume: finished tasks are skipped in every stage (a torn last line is redone); a
  different writer, writer config, oracle config, agent model, data file or limit is refused
  (``check_resumable``). The judge stage keeps a task's judgement only if it was made by the
  same judge model, prompt version and retry count; ``judge_run(out, judge)`` re-judges a
  finished run directory with another judge without regenerating anything (``run_deepsynth``
  refuses a changed judge when the judge also wrote the oracle summaries, since they are part
  of the writers' input). With the reply cache, a repeated run makes no model calls.
- ``replay``: no writer; reports come from a JSON-lines file of ``{"task_id", "report"}``
  (``replay=PATH``) or, without a file, from the task file's own ``survey_result``. A task
  with no line is ``missing``; a line whose report is not a string is ``malformed``; a
  task_id twice, or a line without task_id, is a DataError naming the file and line; lines for
  unknown tasks are counted (``replay_unknown_ids``) and ignored.
"""
from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from scholarbench.agents.writers.base import (WriterContext, WritingRequest, WrittenReport,
                                              make_writer)
from scholarbench.agents.writers.budget import TokenBudget
from scholarbench.data.jsonl import append_jsonl, iter_jsonl, read_jsonl_tolerant
from scholarbench.data.trec import write_lines_atomic
from scholarbench.deepsynth.judge import (DEFAULT_PROMPT, DEFAULT_RETRIES, judge_subgroup,
                                          load_prompt)
from scholarbench.deepsynth.judged import format_summary
from scholarbench.deepsynth.loader import load_tasks, unified_prompt
from scholarbench.deepsynth.oracle import (OracleBuilder, OracleContext, oracle_counts,
                                           read_reference_lists, survey_cutoff,
                                           survey_paper_id)
from scholarbench.deepsynth.records import NOT_MENTIONED, Task, task_to_json
from scholarbench.deepsynth.scores import VARIANTS, aggregate, score_task
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.llm.client import LLMCallError
from scholarbench.runner.llm_record import add_usage, model_identity, record_models
from scholarbench.runner.manifest import (check_resumable, new_manifest, read_manifest,
                                          write_manifest)

ORACLE, GENERATE, JUDGE, JUDGED, SCORES, SUMMARY = (
    "oracle.jsonl", "generate.jsonl", "judge.jsonl", "judged.jsonl", "scores.jsonl",
    "summary.json")
REPLAY = "replay"
ORACLE_MODES = ("summary", "abstract", "none")
ORACLE_ROLES = ("judge", "agent")
REPORT_STATUSES = ("ok", "write_error", "empty", "missing", "malformed")
JUDGE_CALL_FAILED = "judge_call_failed"


@dataclass
class DeepSynthRunConfig:
    tasks_path: Path
    out: Path
    agent: str = "e2e-writer"            # a writer name, or "replay"
    agent_params: dict[str, Any] | None = None
    replay: Path | None = None           # replay: {"task_id", "report"} lines (None: survey_result)
    limit: int | None = None
    corpus_dir: Path | None = None
    references: Path | None = None       # reference lists for the oracle (else the corpus's)
    oracle: str = "summary"              # summary | abstract | none
    oracle_role: str = "judge"           # whose model summarises: judge (paper) | agent
    oracle_params: dict[str, Any] | None = None  # OracleBuilder fields, context_window, …
    judge_prompt: str = DEFAULT_PROMPT
    judge_retries: int = DEFAULT_RETRIES
    judge_workers: int | None = None
    variant: str = "paper"
    run_name: str | None = None
    progress: bool = True


RolesFactory = Callable[..., Any]


def run_deepsynth(config: DeepSynthRunConfig, roles_factory: RolesFactory | Any
                  ) -> dict[str, Any]:
    """Run (or resume) every stage; returns the summary. ``roles_factory(need_agent=…,
    need_judge=True)`` returns the run's ``LLMRoles`` (or pass the roles themselves)."""
    _check_config(config)
    tasks = load_tasks(config.tasks_path)
    tasks = tasks[:config.limit] if config.limit is not None else tasks
    writer = None if config.agent == REPLAY else make_writer(config.agent,
                                                             **(config.agent_params or {}))
    use_oracle = writer is not None and config.oracle != "none"
    summarize = use_oracle and config.oracle == "summary"
    need_agent = bool(getattr(writer, "uses_llm", False)) or (
        summarize and config.oracle_role == "agent")
    roles = (roles_factory(need_agent=need_agent, need_judge=True)
             if callable(roles_factory) else roles_factory)
    if roles is None or getattr(roles, "judge", None) is None:
        raise ScholarbenchError("run deepsynth needs the judge role's chat model")
    if need_agent and getattr(roles, "agent", None) is None:
        raise ScholarbenchError(f"{config.agent!r} needs the agent role's chat model")
    corpus = None
    if config.corpus_dir is not None:
        from scholarbench.corpus.store import Corpus
        corpus = Corpus.open(config.corpus_dir)
    oracle_client = getattr(roles, config.oracle_role) if summarize else None
    builder = None
    if use_oracle:
        judge_config = getattr(oracle_client, "config", None)
        workers = 1 if judge_config is None or judge_config.is_local else judge_config.concurrency
        params = dict(config.oracle_params or {})
        window = {k: params.pop(k) for k in ("context_window", "token_ratio") if k in params}
        if window:
            params["budget"] = TokenBudget(**window)
        builder = OracleBuilder(oracle_client, mode=config.oracle, workers=workers, **params)
    config.out.mkdir(parents=True, exist_ok=True)
    manifest = _manifest(config, tasks, writer, builder, oracle_client, roles)
    if (config.out / "manifest.json").exists():
        old = read_manifest(config.out)
        check_resumable(old, manifest, config.out)
        manifest["llm_usage"] = old.get("llm_usage", {})
        manifest["models"] = old.get("models", {})
    record_models(manifest, roles if need_agent else None, "agent")
    write_manifest(config.out, manifest)

    contexts: dict[str, OracleContext] = {}
    if builder is not None:
        lists = read_reference_lists(config.references) if config.references else None
        with _stage_usage(config.out, oracle_client, "oracle"):
            contexts = oracle_stage(tasks, builder, corpus, lists, config.out, config.progress)
    if writer is not None:
        with _stage_usage(config.out, roles.agent if need_agent else None, "agent"):
            generate(tasks, writer, WriterContext(llm=roles.agent if need_agent else None,
                                                  corpus_dir=config.corpus_dir, corpus=corpus),
                     contexts, corpus, config.out, config.progress)
    else:
        replay_stage(tasks, config.replay, config.out)
    workers = config.judge_workers or _default_workers(roles.judge)
    with _stage_usage(config.out, roles.judge, "judge"):
        judge_stage(tasks, roles.judge, config.out, prompt=config.judge_prompt,
                    retries=config.judge_retries, workers=workers, progress=config.progress)
    return score_run(config.out, variant=config.variant)


def _check_config(config: DeepSynthRunConfig) -> None:
    if config.oracle not in ORACLE_MODES:
        raise ScholarbenchError(f"unknown oracle mode {config.oracle!r}; use one of "
                                f"{', '.join(ORACLE_MODES)}")
    if config.oracle_role not in ORACLE_ROLES:
        raise ScholarbenchError(f"unknown oracle role {config.oracle_role!r}; use judge or agent")
    if config.variant not in VARIANTS:
        raise ScholarbenchError(f"unknown scoring variant {config.variant!r}")
    if config.replay is not None and config.agent != REPLAY:
        raise ScholarbenchError("a replay file goes with agent 'replay'")
    if config.limit is not None and config.limit < 0:
        raise ScholarbenchError(f"limit must be >= 0, got {config.limit}")
    load_prompt(config.judge_prompt)


def _default_workers(client: Any) -> int:
    config = getattr(client, "config", None)
    return 1 if config is None or config.is_local else max(1, config.concurrency)


def _manifest(config: DeepSynthRunConfig, tasks: list[Task], writer: Any, builder: Any,
              oracle_client: Any, roles: Any) -> dict[str, Any]:
    if writer is None:
        replay = ({"path": str(config.replay.resolve()), "sha256": sha256_file(config.replay)}
                  if config.replay else "survey_result")
        agent_config: dict[str, Any] = {"replay": replay}
        mode = REPLAY
    else:
        agent_config = {"writer": writer.config()}
        if builder is not None:
            oracle = builder.config()
            if oracle_client is not None:
                oracle.update(role=config.oracle_role, model=model_identity(oracle_client))
            if config.references:
                oracle["references"] = {"path": str(config.references.resolve()),
                                        "sha256": sha256_file(config.references)}
            agent_config["oracle"] = oracle
        mode = f"oracle-{config.oracle}" if config.oracle != "none" else "search"
    agent_client = roles.agent if getattr(writer, "uses_llm", False) else None
    return new_manifest(
        benchmark="deepsynth", mode=mode, agent=config.agent, agent_config=agent_config,
        run_name=config.run_name or config.agent,
        data={"path": str(config.tasks_path.resolve()), "sha256": sha256_file(config.tasks_path)},
        limit=config.limit, n_samples=len(tasks), embedder=None,
        corpus=_corpus_info(config.corpus_dir), agent_model=model_identity(agent_client),
        variant=config.variant)


def _corpus_info(corpus_dir: Path | None) -> dict[str, Any] | None:
    if corpus_dir is None:
        return None
    path = corpus_dir / "manifest.json"
    info = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {"path": str(corpus_dir.resolve()),
            **{k: info[k] for k in ("format_version", "sha256", "counts") if k in info}}


class _Delta:
    """A roles-like view whose ``<role>`` usage is what one stage added to ``client``."""

    def __init__(self, role: str, client: Any) -> None:
        self.role, self.client = role, client
        self.before = client.usage.as_dict()
        self.config, self.model_id = client.config, client.model_id
        setattr(self, role, self)

    @property
    def usage(self) -> "_Delta":
        return self

    def as_dict(self) -> dict[str, Any]:
        now = self.client.usage.as_dict()
        out = {k: v - self.before.get(k, 0) for k, v in now.items()
               if isinstance(v, int) and not isinstance(v, bool)}
        cost, before = now.get("cost_usd"), self.before.get("cost_usd")
        out["cost_usd"] = None if cost is None else round(cost - (before or 0.0), 6)
        return out


class _stage_usage:
    """Adds a stage's model usage to the manifest under ``role`` (also when the stage fails)."""

    def __init__(self, out: Path, client: Any, role: str) -> None:
        self.out, self.client, self.role = out, client, role

    def __enter__(self) -> None:
        self.delta = _Delta(self.role, self.client) if self.client is not None else None

    def __exit__(self, *exc: Any) -> None:
        if self.delta is None:
            return
        manifest = read_manifest(self.out)
        record_models(manifest, self.delta, self.role)
        add_usage(manifest, self.delta, self.role)
        write_manifest(self.out, manifest)


def _drop_torn_line(path: Path) -> None:
    if path.exists():
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            path.write_bytes(data[: data.rfind(b"\n") + 1])


def _done(path: Path, keep: Callable[[dict], bool] = lambda r: True) -> dict[str, dict]:
    """The last line per task_id of an append-only stage file (that passes ``keep``)."""
    out = {str(r.get("task_id")): r for r in read_jsonl_tolerant(path) if keep(r)}
    _drop_torn_line(path)
    return out


# ---- oracle --------------------------------------------------------------------------------

def oracle_stage(tasks: list[Task], builder: OracleBuilder, corpus: Any, lists: Any, out: Path,
                 progress: bool = True) -> dict[str, OracleContext]:
    path = out / ORACLE
    done = _done(path)
    todo = [t for t in tasks if str(t.task_id) not in done]
    for task in tqdm(todo, desc="oracle", disable=not progress or not todo, unit="task"):
        context = builder.build(task, corpus, lists)
        append_jsonl(path, context.to_json())
        done[str(task.task_id)] = context.to_json()
    return {str(t.task_id): OracleContext.from_json(done[str(t.task_id)]) for t in tasks}


# ---- generate ------------------------------------------------------------------------------

_TOPIC = re.compile(r"survey(?:\s+paper)?\s+(?:on|about|of)\s+(.+?)(?:,?\s+based\s+on\s+the\s+"
                    r"provided\s+papers)?\s*\.?\s*$", re.IGNORECASE | re.DOTALL)


def topic_of(task: Task) -> str:
    """The subject of the general prompt ("… a comprehensive survey paper on X based on the
    provided papers." → X); the whole general prompt when it does not read so."""
    general = " ".join(task.general_prompt.split())
    match = _TOPIC.search(general)
    return match.group(1).strip() if match else general


def writing_request(task: Task, context: OracleContext | None, corpus: Any) -> WritingRequest:
    exclude = [i for i in (survey_paper_id(task, corpus),
                           f"arxiv:{task.survey_id}" if task.survey_id else None) if i]
    return WritingRequest(task_id=str(task.task_id), prompt=unified_prompt(task),
                          topic=topic_of(task), cutoff=survey_cutoff(task, corpus),
                          exclude_ids=tuple(dict.fromkeys(exclude)),
                          oracle=context.references() if context else None)


def generate(tasks: list[Task], writer: Any, ctx: WriterContext,
             contexts: dict[str, OracleContext], corpus: Any, out: Path,
             progress: bool = True) -> None:
    path = out / GENERATE
    done = _done(path)
    todo = [t for t in tasks if str(t.task_id) not in done]
    for task in tqdm(todo, desc=f"generate ({writer.name})", disable=not progress or not todo,
                     unit="task"):
        start = time.perf_counter()
        try:
            request = writing_request(task, contexts.get(str(task.task_id)), corpus)
            written = writer.write(request, ctx)
            if not isinstance(written, WrittenReport):
                raise TypeError(f"write() returned {type(written).__name__}, not WrittenReport")
            record = {"task_id": task.task_id,
                      "report": written.markdown if not written.error else None,
                      "cited": list(written.cited), "error": written.error,
                      "info": written.info or {}}
        except Exception as exc:  # a writer failure is this task's outcome, not the run's
            record = {"task_id": task.task_id, "report": None, "cited": [],
                      "error": f"writer raised {type(exc).__name__}: {exc}"[:1000], "info": {}}
        record["seconds"] = round(time.perf_counter() - start, 4)
        append_jsonl(path, record)


def read_replay(path: Path) -> tuple[dict[str, Any], int]:
    """Reports by task_id (raw values: a non-string is kept and later counted as malformed)."""
    reports: dict[str, Any] = {}
    first: dict[str, int] = {}
    for lineno, obj in iter_jsonl(path):
        if "task_id" not in obj or isinstance(obj["task_id"], (bool, dict, list)) \
                or obj["task_id"] is None:
            raise DataError("missing or not a number/string", file=str(path), line=lineno,
                            field="task_id")
        key = str(obj["task_id"])
        if key in first:
            raise DataError(f"task_id {obj['task_id']!r} twice (first on line {first[key]})",
                            file=str(path), line=lineno, field="task_id")
        first[key] = lineno
        reports[key] = obj.get("report")
    return reports, len(first)


def replay_stage(tasks: list[Task], replay: Path | None, out: Path) -> None:
    """generate.jsonl from a replay file (or the tasks' survey_result)."""
    path = out / GENERATE
    done = _done(path)
    if replay is not None:
        reports, _ = read_replay(replay)
        known = {str(t.task_id) for t in tasks}
        unknown = sorted(set(reports) - known)
    else:
        reports = {str(t.task_id): t.survey_result for t in tasks
                   if t.survey_result is not None}
        unknown = []
    for task in tasks:
        key = str(task.task_id)
        if key in done:
            continue
        record: dict[str, Any] = {"task_id": task.task_id, "report": None, "cited": [],
                                  "error": None, "info": {"replay": "file" if replay
                                                          else "survey_result"}}
        if key not in reports:
            record.update(error="missing: no report for this task", status="missing")
        elif not isinstance(reports[key], str):
            record.update(error=f"malformed: report is {type(reports[key]).__name__}, not a "
                          "string", status="malformed")
        else:
            record["report"] = reports[key]
        record["seconds"] = 0.0
        append_jsonl(path, record)
    if unknown:
        manifest = read_manifest(out)
        manifest["replay_unknown_ids"] = unknown
        write_manifest(out, manifest)


def report_status(record: dict[str, Any] | None) -> str:
    if record is None:
        return "missing"
    if record.get("status") in REPORT_STATUSES:
        return record["status"]
    if record.get("error"):
        return "write_error"
    report = record.get("report")
    return "ok" if isinstance(report, str) and report.strip() else "empty"


# ---- judge ---------------------------------------------------------------------------------

def judge_identity(client: Any, prompt: str, retries: int) -> dict[str, Any]:
    p = load_prompt(prompt)
    return {**(model_identity(client) or {}), "prompt": f"{p.name}@{p.sha256[:12]}",
            "retries": retries}


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
    """The judge.jsonl line of one task (module docstring for reports that are not sent)."""
    status = report_status(record)
    jobs = [(gi, si, sub) for gi, g in enumerate(task.checklist)
            for si, sub in enumerate(g.sub_groups)]
    before = client.usage.as_dict() if hasattr(client, "usage") else {}
    start = time.perf_counter()
    subgroups = []
    if status == "ok":
        report = record["report"]  # type: ignore[index]
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="judge") as pool:
                results = list(pool.map(
                    lambda job: _judge_one(client, report, job[2], prompt, retries), jobs))
        else:
            results = [_judge_one(client, report, sub, prompt, retries) for _, _, sub in jobs]
        for (gi, si, _), result in zip(jobs, results):
            subgroups.append({"g": gi, "s": si, **result})
    after = client.usage.as_dict() if hasattr(client, "usage") else {}
    return {"task_id": task.task_id, "report_status": status, "subgroups": subgroups,
            "calls": sum(s["attempts"] for s in subgroups),
            "model_calls": after.get("calls", 0) - before.get("calls", 0),
            "cache_hits": after.get("cache_hits", 0) - before.get("cache_hits", 0),
            "seconds": round(time.perf_counter() - start, 4)}


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


def judge_stage(tasks: list[Task], client: Any, out: Path, *, prompt: str = DEFAULT_PROMPT,
                retries: int = DEFAULT_RETRIES, workers: int = 1,
                progress: bool = True) -> None:
    identity = judge_identity(client, prompt, retries)
    path = out / JUDGE
    done = _done(path, lambda r: r.get("judge") == identity)
    generated = {str(r.get("task_id")): r for r in read_jsonl_tolerant(out / GENERATE)}
    manifest = read_manifest(out)
    manifest["judge"] = identity
    write_manifest(out, manifest)
    todo = [t for t in tasks if str(t.task_id) not in done]
    try:
        for task in tqdm(todo, desc="judge", disable=not progress or not todo, unit="task"):
            try:
                line = judge_task(client, task, generated.get(str(task.task_id)), prompt=prompt,
                                  retries=retries, workers=workers)
            except LLMCallError as exc:
                raise ScholarbenchError(f"the judge model failed on task {task.task_id} "
                                        f"({exc}); the run stopped — rerun to resume") from None
            line["judge"] = identity
            append_jsonl(path, line)
            done[str(task.task_id)] = line
    finally:
        write_lines_atomic(out / JUDGED, (
            json.dumps(judged_record(t, done[str(t.task_id)],
                                     generated.get(str(t.task_id))), ensure_ascii=False)
            for t in tasks if str(t.task_id) in done))


def judge_run(out: Path, judge: Any, *, prompt: str = DEFAULT_PROMPT,
              retries: int = DEFAULT_RETRIES, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """(Re-)judge an existing run directory with ``judge`` (e.g. another judge model) from its
    generate.jsonl — nothing is regenerated — then re-score it. Tasks already judged by the same
    judge, prompt and retries are kept."""
    manifest = read_manifest(out)
    if manifest.get("benchmark") != "deepsynth":
        raise ScholarbenchError(f"{out} is not a DeepSynth-Eval run directory")
    if not (out / GENERATE).exists():
        raise ScholarbenchError(f"{out}: no {GENERATE}; run the benchmark first")
    tasks_path = Path(manifest["data"]["path"])
    if not tasks_path.exists():
        raise ScholarbenchError(f"{out}: the run's task file {tasks_path} is gone")
    tasks = load_tasks(tasks_path)
    limit = manifest.get("limit")
    tasks = tasks[:limit] if limit is not None else tasks
    with _stage_usage(out, judge, "judge"):
        judge_stage(tasks, judge, out, prompt=prompt, retries=retries,
                    workers=workers or _default_workers(judge), progress=progress)
    return score_run(out)


# ---- score ---------------------------------------------------------------------------------

def score_run(out: Path, variant: str | None = None) -> dict[str, Any]:
    """(Re-)score a run from its judged.jsonl; rewrites scores.jsonl and summary.json. No
    model calls."""
    manifest = read_manifest(out)
    variant = variant or manifest.get("variant") or "paper"
    judged_path = out / JUDGED
    if not judged_path.exists():
        raise ScholarbenchError(f"{out}: no {JUDGED}; run the judge stage first")
    tasks = load_tasks(judged_path, require_prompts=False)
    expected = manifest.get("n_samples")
    if expected is not None and len(tasks) != expected:
        raise ScholarbenchError(f"{out}: {JUDGED} has {len(tasks)} of {expected} tasks; "
                                "rerun the run to finish judging")
    lines = {str(r.get("task_id")): r for r in read_jsonl_tolerant(out / JUDGE)
             if r.get("judge") == manifest.get("judge")}
    generated = {str(r.get("task_id")): r for r in read_jsonl_tolerant(out / GENERATE)}
    scores = [score_task(t, variant) for t in tasks]  # type: ignore[arg-type]
    rows = []
    for task, score in zip(tasks, scores):
        line = lines.get(str(task.task_id), {})
        rows.append({**score.row(), "report_status": line.get("report_status"),
                     "n_requirements": task.n_requirements,
                     "n_judge_calls": line.get("calls", 0)})
    write_lines_atomic(out / SCORES, (json.dumps(r, ensure_ascii=False) for r in rows))
    summary = aggregate(scores, variant)  # type: ignore[arg-type]
    summary.update(_run_counts(manifest, tasks, lines, generated, out))
    (out / SUMMARY).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                               encoding="utf-8")
    return summary


def _sum_ints(total: dict[str, Any], info: dict[str, Any]) -> None:
    for key, value in info.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            total[key] = total.get(key, 0) + value
        elif isinstance(value, dict):
            _sum_ints(total.setdefault(key, {}), value)


def _run_counts(manifest: dict[str, Any], tasks: list[Task], lines: dict[str, dict],
                generated: dict[str, dict], out: Path) -> dict[str, Any]:
    ids = [str(t.task_id) for t in tasks]
    statuses = [lines.get(i, {}).get("report_status", "missing") for i in ids]
    reasons: dict[str, int] = {}
    calls = model_calls = hits = subgroups = 0
    for i in ids:
        line = lines.get(i, {})
        calls += line.get("calls", 0)
        model_calls += line.get("model_calls", 0)
        hits += line.get("cache_hits", 0)
        for sub in line.get("subgroups", []):
            subgroups += 1
            for reason in sub.get("reasons", []):
                if reason:
                    reasons[reason] = reasons.get(reason, 0) + 1
    writer_info: dict[str, Any] = {}
    for i in ids:
        _sum_ints(writer_info, (generated.get(i) or {}).get("info") or {})
    models = manifest.get("models", {})
    agent_id = (models.get("agent") or {}).get("model_id")
    judge = dict(manifest.get("judge") or {})
    judge.update(n_subgroups_judged=subgroups, calls=calls, model_calls=model_calls,
                 cache_hits=hits, unscored_reasons=dict(sorted(reasons.items())),
                 same_model_as_agent=agent_id is not None and agent_id == judge.get("model_id"))
    out_counts: dict[str, Any] = {
        "agent": manifest.get("agent"), "run_name": manifest.get("run_name"),
        "mode": manifest.get("mode"),
        "reports": {s: statuses.count(s) for s in REPORT_STATUSES},
        "judge": judge, "writer_info": writer_info}
    if (out / ORACLE).exists():
        by_id = {str(r.get("task_id")): r for r in read_jsonl_tolerant(out / ORACLE)}
        out_counts["oracle"] = oracle_counts([OracleContext.from_json(by_id[i])
                                              for i in ids if i in by_id])
    if manifest.get("replay_unknown_ids"):
        out_counts["replay_unknown_ids"] = manifest["replay_unknown_ids"]
    return out_counts


def format_run_summary(summary: dict[str, Any]) -> str:
    """Terminal text: the scores (``format_summary``), then reports, judge and oracle lines."""
    lines = [f"{summary.get('run_name') or summary.get('agent')} ({summary.get('mode')})",
             format_summary(summary)]
    reports = summary.get("reports", {})
    lines.append("  reports: " + ", ".join(f"{v} {k}" for k, v in reports.items() if v))
    judge = summary.get("judge", {})
    reasons = ", ".join(f"{k} {v}" for k, v in judge.get("unscored_reasons", {}).items())
    lines.append(f"  judge {judge.get('model_id')} ({judge.get('prompt')}): "
                 f"{judge.get('n_subgroups_judged', 0)} sub-groups, {judge.get('calls', 0)} "
                 f"calls ({judge.get('model_calls', 0)} to the model, "
                 f"{judge.get('cache_hits', 0)} cached)"
                 + (f"; unscored: {reasons}" if reasons else ""))
    if judge.get("same_model_as_agent"):
        lines.append("  note: the judge and the agent are the same model")
    oracle = summary.get("oracle")
    if oracle:
        lines.append(f"  oracle: {oracle['tasks_file']} tasks from a file, "
                     f"{oracle['tasks_corpus']} from the corpus, {oracle['tasks_none']} without; "
                     f"{oracle['n_references']} references ({oracle['n_summarized']} summarised, "
                     f"{oracle['n_abstract']} abstract, {oracle['n_summary_failed']} summary "
                     f"failed, {oracle['n_title_only']} title only, {oracle['n_not_in_corpus']} "
                     f"not in the corpus)")
    if summary.get("replay_unknown_ids"):
        lines.append(f"  replay lines for unknown tasks (ignored): "
                     f"{len(summary['replay_unknown_ids'])}")
    return "\n".join(lines)


__all__ = ["DeepSynthRunConfig", "format_run_summary", "generate", "judge_run", "judge_stage",
           "judge_task",
           "judged_record", "oracle_stage", "read_replay", "replay_stage", "report_status",
           "run_deepsynth", "score_run", "topic_of", "writing_request"]
