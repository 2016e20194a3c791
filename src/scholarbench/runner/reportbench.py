"""ReportBench runs: tasks → (prompts) → generate → references → (statements) → scores → summary.

Files in the run directory (all JSON lines appended and fsync'ed one sample at a time, so a
killed run resumes where it stopped; a torn last line is redone):

    manifest.json     config, versions, task-file and GT checksums, corpus, the writer's config,
                      models (agent / judge / vote judges) and LLM usage per role, summed over
                      every invocation that touched the directory
    prompts.jsonl     with --granularity sentence|paragraph|detail: one constructed prompt per
                      task (`reportbench.construct`), beside the shipped prompt's comparison
    generate.jsonl    one line per task: {"id", "report" | null, "error", "cited", "info",
                      "seconds", "prompt_sha256"}
    titles.jsonl      with LLM titles: the extractor's record per report (reused on resume when
                      its fingerprint — report, corpus, extractor — matches)
    statements.jsonl  with --statements: per report, the statement metrics and every
                      intermediate output (statements, citations, source passages, verdicts,
                      votes); reused when its fingerprint (report, corpus, judges, config) matches
    scores.jsonl      one line per task (rewritten on every scoring)
    summary.json

The writer is a registry name (`agents.writers.base.make_writer`: e2e-writer, agentic-writer,
…) or ``replay`` (`reportbench.replay.ReplayReports`, a file of {"arxiv_id", "report"} lines).
It gets a `WritingRequest` with the evaluation prompt (the shipped prompt, or the constructed
one, inside upstream's template: cut-off date, "Do not refer to the survey titled …"),
``topic`` = the research request alone (what a writer searches with; the survey's title is
never in it), ``cutoff`` = the prompt's cut-off, ``exclude_ids`` = the survey's arXiv id and
DOI.

Scoring per task: the report's references are parsed and resolved offline
(`extract_references`, with the LLM title extractor where nothing resolves when asked) and
scored against the survey's GT (`reference_scores`: ref_precision, ref_recall, ref_count); a
task without a report (writer error, no replay line, no constructed prompt) scores 0 on them
and is counted (`status: "missing"`), as is a report without references (`"no_references"`).
With statements, `StatementJudge.judge_report` adds cited_match_rate(_checkable) and
noncited_accuracy(_upstream) and their counts; a task without a report has them null and
counted as not judged.

Roles: the writer's model is the agent role; prompt construction, the title extractor and the
statement metrics use the judge role (and extra vote judges). `roles_factory(need_agent=…,
need_judge=…)` is called once, only when some role is needed.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm import tqdm

from scholarbench.data.jsonl import append_jsonl, read_jsonl_tolerant
from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.registry import register_benchmark
from scholarbench.reportbench.statements import (STATEMENT_RATES,
                                                 aggregate_statement_rows,
                                                 format_statement_summary, not_judged_row,
                                                 statement_row)
from scholarbench.runner.llm_record import USAGE_FIELDS, model_identity, record_models
from scholarbench.runner.manifest import new_manifest, read_manifest, write_manifest

PROMPTS, GENERATE, TITLES, STATEMENTS, SCORES, SUMMARY = (
    "prompts.jsonl", "generate.jsonl", "titles.jsonl", "statements.jsonl", "scores.jsonl",
    "summary.json")
SHIPPED = "shipped"
REF_KEYS = ("ref_precision", "ref_recall", "ref_count")
# Keys that must agree for a run directory to be resumed (`limit` may change).
IDENTITY_KEYS = ("benchmark", "mode", "agent", "agent_config", "data", "agent_model",
                 "prompt_model", "corpus_sha256")


@register_benchmark("reportbench")
class ReportBenchInfo:
    name = "reportbench"
    modes = (SHIPPED, "sentence", "paragraph", "detail")
    measures = REF_KEYS + STATEMENT_RATES


@dataclass
class ReportBenchRunConfig:
    data: Path                             # ReportBench folder: tasks (+ template) (+ GT)
    agent: str                             # a writer's registry name, or "replay"
    out: Path
    gt_dir: Path | None = None             # default: the GT folder inside `data`
    agent_params: dict[str, Any] | None = None
    granularity: str = SHIPPED             # or sentence | paragraph | detail (constructed)
    statements: bool = False               # judge cited / non-cited statements
    llm_titles: bool = False               # LLM title extractor where nothing resolves
    limit: int | None = None
    corpus_dir: Path | None = None
    allow_network: bool = False            # fetch cited URLs (sources, page titles)
    statement_config: Any = None           # reportbench.statements.StatementConfig
    evidence: str = "corpus"               # non-cited evidence: "corpus" or "none"
    evidence_tool: Any = None              # an EvidenceTool (e.g. web search) instead
    vote_judges: Sequence[Any] = ()        # more ChatClients for the non-cited vote
    match: str = "exact"
    unresolved: str = "exclude"
    construct_text_chars: int = 40_000
    run_name: str | None = None
    progress: bool = True


# ---- helpers ---------------------------------------------------------------------------------

def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _fingerprint(obj: Any) -> str:
    return _sha(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str))[:16]


def _drop_torn_line(path: Path) -> None:
    if path.exists():
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            path.write_bytes(data[: data.rfind(b"\n") + 1])


def _records(path: Path) -> dict[str, dict[str, Any]]:
    """The last record per id of an append-only file (a torn last line is ignored)."""
    return {str(r.get("id")): r for r in read_jsonl_tolerant(path)}


def _usage(client: Any) -> dict[str, Any]:
    return client.usage.as_dict() if client is not None else {}


def _add_usage_delta(manifest: dict[str, Any], key: str, client: Any,
                     before: dict[str, Any]) -> None:
    """Add what `client` used since `before` to manifest["llm_usage"][key]."""
    if client is None:
        return
    now = client.usage.as_dict()
    total = manifest.setdefault("llm_usage", {}).setdefault(key, {})
    for name in USAGE_FIELDS:
        total[name] = total.get(name, 0) + now[name] - before.get(name, 0)
    if now.get("cost_usd") is not None:
        total["cost_usd"] = round((total.get("cost_usd") or 0.0) + now["cost_usd"]
                                  - (before.get("cost_usd") or 0.0), 6)
    else:
        total.setdefault("cost_usd", None)


def _gt_checksum(files: dict[str, Path]) -> str:
    digest = hashlib.sha256()
    for survey, path in sorted(files.items()):
        digest.update(f"{survey}:{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def _corpus_info(corpus_dir: Path | None) -> dict[str, Any] | None:
    if corpus_dir is None:
        return None
    manifest = corpus_dir / "manifest.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    keep = ("format_version", "sha256", "files", "counts", "n_papers")
    return {"path": str(corpus_dir.resolve()), **{k: info[k] for k in keep if k in info}}


def _open_corpus(corpus_dir: Path | None) -> Any:
    if corpus_dir is None:
        return None
    from scholarbench.corpus.store import Corpus
    return Corpus.open(corpus_dir)


def _tasks_file(data: Path) -> Path:
    from scholarbench.reportbench.tasks import TASKS_FILE
    return data / TASKS_FILE if data.is_dir() else data


def make_report_writer(name: str, params: dict[str, Any] | None) -> Any:
    if name == "replay":
        from scholarbench.reportbench.replay import ReplayReports
        return ReplayReports(**(params or {}))
    from scholarbench.agents.writers.base import make_writer
    return make_writer(name, **(params or {}))


# ---- run -------------------------------------------------------------------------------------

def run_reportbench(config: ReportBenchRunConfig,
                    roles_factory: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Run (or resume) every stage; returns the summary."""
    from scholarbench.reportbench.construct import GRANULARITIES
    from scholarbench.reportbench.ground_truth import gt_files
    from scholarbench.reportbench.tasks import load_tasks

    if config.granularity not in (SHIPPED,) + GRANULARITIES:
        raise ScholarbenchError(f"unknown granularity {config.granularity!r}; use "
                                f"{SHIPPED} or one of {', '.join(GRANULARITIES)}")
    if config.limit is not None and config.limit < 0:
        raise ScholarbenchError("--limit must be >= 0")
    if config.evidence not in ("corpus", "none"):
        raise ScholarbenchError(f"unknown evidence {config.evidence!r}; use corpus or none")
    tasks_all = load_tasks(config.data)
    gt_dir = config.gt_dir or (config.data if config.data.is_dir() else config.data.parent)
    files = gt_files(gt_dir)
    tasks = tasks_all[:config.limit] if config.limit is not None else tasks_all
    no_gt = [t.arxiv_id for t in tasks if t.arxiv_id not in files]
    if no_gt:
        raise ScholarbenchError(f"{len(no_gt)} task(s) have no ground-truth file in {gt_dir}: "
                                f"{', '.join(no_gt[:5])}")
    writer = make_report_writer(config.agent, config.agent_params)
    constructing = config.granularity != SHIPPED
    need_agent = bool(getattr(writer, "uses_llm", False))
    need_judge = constructing or config.statements or config.llm_titles
    roles = None
    if need_agent or need_judge:
        if roles_factory is None:
            raise ScholarbenchError("this run needs chat models (agent: "
                                    f"{need_agent}, judge: {need_judge}) but was given none")
        roles = roles_factory(need_agent=need_agent, need_judge=need_judge)
        for role, needed in (("agent", need_agent), ("judge", need_judge)):
            if needed and getattr(roles, role, None) is None:
                raise ScholarbenchError(f"the run needs the {role} role but it is not bound")
    agent_client = roles.agent if roles is not None and need_agent else None
    judge_client = roles.judge if roles is not None and need_judge else None
    corpus = _open_corpus(config.corpus_dir)
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    tasks_path = _tasks_file(config.data)
    manifest = new_manifest(
        benchmark="reportbench", mode=config.granularity, agent=config.agent,
        agent_config=writer.config(), run_name=config.run_name or config.agent,
        data={"path": str(config.data.resolve()), "tasks_sha256": sha256_file(tasks_path),
              "n_tasks": len(tasks_all), "gt_dir": str(Path(gt_dir).resolve()),
              "gt_sha256": _gt_checksum(files)},
        limit=config.limit, n_samples=len(tasks), corpus=_corpus_info(config.corpus_dir),
        corpus_sha256=corpus.papers_sha256 if corpus is not None else None,
        agent_model=model_identity(agent_client),
        prompt_model=model_identity(judge_client) if constructing else None,
        options={"statements": config.statements, "llm_titles": config.llm_titles,
                 "allow_network": config.allow_network, "match": config.match,
                 "unresolved": config.unresolved, "evidence": config.evidence,
                 "construct_text_chars": config.construct_text_chars})
    if (out / "manifest.json").exists():
        old = read_manifest(out)
        for key in IDENTITY_KEYS:
            if old.get(key) != manifest.get(key):
                raise ScholarbenchError(
                    f"{out} holds a run with a different {key!r} ({old.get(key)!r} vs "
                    f"{manifest.get(key)!r}); use another --out or delete it")
        manifest["llm_usage"] = old.get("llm_usage", {})
        manifest["models"] = old.get("models", {})
    if agent_client is not None:
        record_models(manifest, roles, "agent")
    if constructing:
        manifest.setdefault("models", {})["prompt"] = {**judge_client.config.public(),
                                                       "model_id": judge_client.model_id}
    write_manifest(out, manifest)
    before_agent, before_judge = _usage(agent_client), _usage(judge_client)
    try:
        if constructing:
            construct_stage(tasks, judge_client, corpus, out, config.granularity,
                            config.construct_text_chars, config.progress)
        generate_stage(tasks, writer, out, config, corpus, agent_client)
    finally:
        manifest = read_manifest(out)
        _add_usage_delta(manifest, "agent", agent_client, before_agent)
        if constructing:
            _add_usage_delta(manifest, "judge", judge_client, before_judge)
        write_manifest(out, manifest)
    return score_run(out, judge=judge_client if (config.statements or config.llm_titles)
                     else None, corpus=corpus, statements=config.statements,
                     llm_titles=config.llm_titles, statement_config=config.statement_config,
                     evidence=config.evidence, evidence_tool=config.evidence_tool,
                     vote_judges=config.vote_judges, allow_network=config.allow_network,
                     progress=config.progress)


def _template(data: Path) -> str:
    from scholarbench.reportbench.tasks import read_template
    return read_template(data if data.is_dir() else data.parent)


def construct_stage(tasks: Sequence[Any], client: Any, corpus: Any, out: Path,
                    granularity: str, text_chars: int, progress: bool = True) -> int:
    """One constructed prompt per task not yet in prompts.jsonl; returns how many were made."""
    from scholarbench.reportbench.construct import (compare_prompts, construct_prompt,
                                                    survey_source)
    path = out / PROMPTS
    done = _records(path)
    _drop_torn_line(path)
    todo = [t for t in tasks if t.arxiv_id not in done]
    for task in tqdm(todo, desc=f"prompts ({granularity})", disable=not progress or not todo,
                     unit="task"):
        try:
            made = construct_prompt(client, survey_source(task, corpus), granularity,
                                    max_text_chars=text_chars)
            record = {"id": task.arxiv_id, **made.to_dict()}
        except Exception as exc:   # one survey's failure is its outcome, not the run's
            record = {"id": task.arxiv_id, "granularity": granularity, "prompt": None,
                      "unscored": f"construction raised {type(exc).__name__}: {exc}"}
        if record.get("prompt"):
            record["comparison"] = compare_prompts(record["prompt"], task.prompt, task.title)
        record["shipped_prompt"] = task.prompt
        append_jsonl(path, record)
    return len(todo)


def _request(task: Any, prompt_record: dict[str, Any] | None, template: str) -> Any:
    from scholarbench.agents.writers.base import WritingRequest
    from scholarbench.reportbench.tasks import build_eval_prompt, parse_cutoff
    prompt, eval_prompt, cutoff = task.prompt, task.eval_prompt, task.cutoff
    if prompt_record is not None:
        prompt = prompt_record["prompt"]
        eval_prompt = build_eval_prompt(template, prompt, task.title)
        cutoff = parse_cutoff(prompt) or task.cutoff
    exclude = (f"arxiv:{task.arxiv_id}",) + ((f"doi:{task.doi.lower()}",) if task.doi else ())
    return WritingRequest(task_id=task.arxiv_id, prompt=eval_prompt, topic=prompt,
                          cutoff=cutoff, exclude_ids=exclude)


def generate_stage(tasks: Sequence[Any], writer: Any, out: Path, config: ReportBenchRunConfig,
                   corpus: Any, agent_client: Any) -> int:
    """Append one generate.jsonl line per task not already there; returns how many ran."""
    from scholarbench.agents.writers.base import WriterContext
    path = out / GENERATE
    done = _records(path)
    _drop_torn_line(path)
    prompts = _records(out / PROMPTS) if config.granularity != SHIPPED else {}
    template = _template(config.data)
    ctx = WriterContext(llm=agent_client, corpus_dir=config.corpus_dir, corpus=corpus,
                        params=dict(config.agent_params or {}))
    todo = [t for t in tasks if t.arxiv_id not in done]
    for task in tqdm(todo, desc=f"generate ({config.agent})",
                     disable=not config.progress or not todo, unit="task"):
        start = time.perf_counter()
        record: dict[str, Any] = {"id": task.arxiv_id}
        constructed = prompts.get(task.arxiv_id)
        if config.granularity != SHIPPED and not (constructed and constructed.get("prompt")):
            why = (constructed or {}).get("unscored") or "no constructed prompt"
            record.update(report=None, error=f"no prompt: {why}", cited=[])
        else:
            request = _request(task, constructed, template)
            record["prompt_sha256"] = _sha(request.prompt)
            try:
                written = writer.write(request, ctx)
                report = written.markdown if isinstance(written.markdown, str) else None
                record.update(report=report if report and report.strip() else None,
                              error=written.error, cited=list(written.cited or []))
                if record["report"] is None and not record["error"]:
                    record["error"] = "the writer returned an empty report"
                if written.info:
                    record["info"] = written.info
            except Exception as exc:   # a writer failure is this sample's outcome
                record.update(report=None, error=f"writer raised {type(exc).__name__}: {exc}",
                              cited=[])
        record["seconds"] = round(time.perf_counter() - start, 4)
        append_jsonl(path, json.loads(json.dumps(record, default=str)))
    return len(todo)


# ---- scoring ---------------------------------------------------------------------------------

class _RecordedTitles:
    """The LLM title extractor with its per-report records kept in titles.jsonl: a report whose
    fingerprint matches a record replays the record's titles without a model call."""

    def __init__(self, inner: Any, path: Path, base: dict[str, Any]) -> None:
        self.inner, self.path, self.base = inner, path, base
        self.records = _records(path)
        _drop_torn_line(path)
        self.current: str | None = None
        self.last: dict[str, Any] | None = None
        self.replayed = 0

    def __call__(self, report: str, unresolved: Sequence[Any]) -> list[Any]:
        from scholarbench.reportbench.resolve import ExtractedTitle
        fp = _fingerprint({**self.base, "report": _sha(report), "n": len(unresolved)})
        old = self.records.get(str(self.current))
        if old is not None and old.get("fingerprint") == fp:
            self.replayed += 1
            self.last = old
            return [ExtractedTitle(t["title"], t["ref"]) for t in old.get("titles", [])]
        found = list(self.inner(report, unresolved))
        record = {"id": self.current, "fingerprint": fp, **(self.inner.last or {})}
        append_jsonl(self.path, record)
        self.records[str(self.current)] = record
        self.last = record
        return found


def score_run(out: Path, *, judge: Any = None, corpus: Any = None, statements: bool = False,
              llm_titles: bool = False, statement_config: Any = None, evidence: str = "corpus",
              evidence_tool: Any = None, vote_judges: Sequence[Any] = (),
              allow_network: bool = False, progress: bool = True) -> dict[str, Any]:
    """(Re-)score every selected task of a run from its files; rewrites scores.jsonl and
    summary.json. `judge` (a ChatClient) is needed for `statements` and `llm_titles`."""
    from scholarbench.reportbench.extract import extract_references
    from scholarbench.reportbench.ground_truth import load_ground_truth
    from scholarbench.reportbench.metrics import reference_scores
    from scholarbench.reportbench.tasks import load_tasks

    manifest = read_manifest(out)
    if manifest.get("benchmark") != "reportbench":
        raise ScholarbenchError(f"{out} is not a ReportBench run")
    if (statements or llm_titles) and judge is None:
        raise ScholarbenchError("statement metrics and LLM titles need the judge role")
    data = manifest["data"]
    tasks = load_tasks(Path(data["path"]))
    limit = manifest.get("limit")
    tasks = tasks[:limit] if limit is not None else tasks
    gt = load_ground_truth(Path(data["gt_dir"]))
    if corpus is None and manifest.get("corpus"):
        corpus = _open_corpus(Path(manifest["corpus"]["path"]))
    generated = _records(out / GENERATE)
    options = manifest.get("options", {})
    match, unresolved = options.get("match", "exact"), options.get("unresolved", "exclude")
    corpus_sha = corpus.papers_sha256 if corpus is not None else None
    before = _usage(judge)
    before_votes = [_usage(c) for c in vote_judges]

    extractor = None
    if llm_titles:
        from scholarbench.reportbench.llm_titles import LLMTitleExtractor
        inner = LLMTitleExtractor(judge, allow_network=allow_network)
        extractor = _RecordedTitles(inner, out / TITLES,
                                    {"extractor": inner.identity(), "corpus": corpus_sha})
    stmt_judge = None
    stmt_records: dict[str, dict[str, Any]] = {}
    if statements:
        from scholarbench.reportbench.sources import CorpusEvidence, NoEvidence, SourceLookup
        from scholarbench.reportbench.statements import StatementConfig, StatementJudge
        tool = evidence_tool or (CorpusEvidence(corpus) if evidence == "corpus"
                                 and corpus is not None else NoEvidence())
        stmt_judge = StatementJudge(judge, lookup=SourceLookup(corpus,
                                                               allow_network=allow_network),
                                    evidence=tool, vote_judges=vote_judges,
                                    config=statement_config or StatementConfig())
        stmt_records = _records(out / STATEMENTS)
        _drop_torn_line(out / STATEMENTS)

    rows: list[dict[str, Any]] = []
    pooled = {"found": 0, "resolved": 0, "titled": 0, "unresolved": 0, "unresolved_with_id": 0,
              "reasons": {}}
    try:
        for task in tqdm(tasks, desc="score", disable=not progress, unit="task"):
            record = generated.get(task.arxiv_id)
            gt_titles = [r.title for r in gt.get(task.arxiv_id, [])]
            n_gt = reference_scores([], gt_titles).n_gt
            report = record.get("report") if record else None
            row: dict[str, Any] = {"arxiv_id": task.arxiv_id}
            if not isinstance(report, str) or not report.strip():
                row.update({k: 0.0 for k in REF_KEYS[:2]}, ref_count=0, n_gt=n_gt,
                           status="missing", n_matched=0, n_found=0, n_resolved=0, n_titled=0,
                           n_unresolved=0, n_unresolved_with_id=0, unresolved_reasons={},
                           error=(record or {}).get("error") or "not generated")
                if statements:
                    row.update(not_judged_row("not judged (no report)"))
                rows.append(row)
                continue
            if extractor is not None:
                extractor.current = task.arxiv_id
                extractor.last = None
            found = extract_references(report, corpus, extractor)
            scores = reference_scores(found.scored_titles(), gt_titles,
                                      unresolved_with_id=found.unresolved_with_id(),
                                      match=match, unresolved=unresolved)  # type: ignore[arg-type]
            counts = found.counts()
            row.update({k: scores.as_dict()[k] for k in REF_KEYS}, n_gt=n_gt,
                       status="scored" if scores.ref_count else "no_references",
                       n_matched=scores.n_matched, _gt_matched=scores.n_gt_matched,
                       **{k: counts[k] for k in ("n_found", "n_resolved", "n_titled",
                                                 "n_unresolved", "n_unresolved_with_id",
                                                 "unresolved_reasons")})
            if record.get("error"):
                row["error"] = record["error"]
            if extractor is not None and extractor.last is not None:
                row["title_extractor"] = {"titles": len(extractor.last.get("titles", [])),
                                          "unscored": extractor.last.get("unscored", [])}
            for key, name in (("found", "n_found"), ("resolved", "n_resolved"),
                              ("titled", "n_titled"), ("unresolved", "n_unresolved"),
                              ("unresolved_with_id", "n_unresolved_with_id")):
                pooled[key] += counts[name]
            for why, n in counts["unresolved_reasons"].items():
                pooled["reasons"][why] = pooled["reasons"].get(why, 0) + n
            if stmt_judge is not None:
                row.update(_statement_row(task.arxiv_id, report, found.references, stmt_judge,
                                          stmt_records, out, corpus_sha, llm_titles))
            rows.append(row)
    finally:
        if judge is not None:
            manifest = read_manifest(out)
            models = manifest.setdefault("models", {})
            models["judge"] = {**judge.config.public(), "model_id": judge.model_id}
            _add_usage_delta(manifest, "judge", judge, before)
            if vote_judges:
                models["vote_judges"] = [{**c.config.public(), "model_id": c.model_id}
                                         for c in vote_judges]
                for i, (client, b) in enumerate(zip(vote_judges, before_votes), start=2):
                    _add_usage_delta(manifest, f"judge_{i}", client, b)
            if stmt_judge is not None:
                manifest["statements"] = stmt_judge.identity()
            if extractor is not None:
                manifest["title_extractor"] = extractor.inner.identity()
            write_manifest(out, manifest)
    micro = {"matched": sum(r.get("n_matched", 0) for r in rows),
             "count": sum(r.get("ref_count", 0) for r in rows),
             "gt_matched": sum(r.pop("_gt_matched", 0) for r in rows),
             "gt": sum(r.get("n_gt", 0) for r in rows)}
    tmp = out / (SCORES + ".tmp")
    tmp.unlink(missing_ok=True)
    for row in rows:
        append_jsonl(tmp, row)
    tmp.replace(out / SCORES)
    summary = summarise(rows, read_manifest(out), micro, pooled)
    if extractor is not None:
        summary["title_extractor"] = {**extractor.inner.stats.as_dict(),
                                      "replayed": extractor.replayed}
    if (out / PROMPTS).exists() and manifest.get("mode") != SHIPPED:
        from scholarbench.reportbench.construct import summarise_constructed
        ids = {t.arxiv_id for t in tasks}
        summary["prompts"] = summarise_constructed(
            [r for r in _records(out / PROMPTS).values() if r.get("id") in ids])
    (out / SUMMARY).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                               encoding="utf-8")
    return summary


def _statement_row(survey: str, report: str, refs: Sequence[Any], stmt_judge: Any,
                   records: dict[str, dict[str, Any]], out: Path, corpus_sha: str | None,
                   llm_titles: bool) -> dict[str, Any]:
    """The statement metrics of one report: reused from statements.jsonl when its fingerprint
    matches, else judged now (and appended)."""
    refs_digest = [(r.label, r.paper_id, tuple(r.urls), tuple(r.ids)) for r in refs]
    fp = _fingerprint({"report": _sha(report), "judge": stmt_judge.identity(),
                       "corpus": corpus_sha, "refs": refs_digest, "llm_titles": llm_titles})
    old = records.get(survey)
    if old is not None and old.get("fingerprint") == fp:
        metrics = old["metrics"]
    else:
        try:
            result = stmt_judge.judge_report(report, refs)
            record = {"id": survey, "fingerprint": fp, **result.to_record()}
        except Exception as exc:   # never let one report stop the scoring
            record = {"id": survey, "fingerprint": None, "error":
                      f"statement judging raised {type(exc).__name__}: {exc}"[:500],
                      "metrics": {k: None for k in STATEMENT_RATES}}
        append_jsonl(out / STATEMENTS, record)
        records[survey] = record
        metrics = record["metrics"]
    return statement_row(metrics)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise(rows: list[dict[str, Any]], manifest: dict[str, Any], micro: dict[str, int],
              pooled: dict[str, Any]) -> dict[str, Any]:
    scored = [r for r in rows if r["status"] != "missing"]
    summary: dict[str, Any] = {
        "benchmark": "reportbench", "agent": manifest.get("agent"),
        "run_name": manifest.get("run_name"), "granularity": manifest.get("mode"),
        "n_tasks": len(rows), "n_with_report": len(scored),
        "n_no_references": sum(1 for r in rows if r["status"] == "no_references"),
        "n_missing": len(rows) - len(scored),
        "missing": [{"id": r["arxiv_id"], "error": r.get("error")} for r in rows
                    if r["status"] == "missing"][:50],
        "means": {k: _mean([r[k] for r in rows]) for k in REF_KEYS},
        "means_with_report": {k: _mean([r[k] for r in scored]) for k in REF_KEYS},
        "micro": {"ref_precision": micro["matched"] / micro["count"] if micro["count"] else 0.0,
                  "ref_recall": micro["gt_matched"] / micro["gt"] if micro["gt"] else 0.0},
        "references": pooled,
    }
    if any("statements" in r for r in rows):
        summary["statements"] = aggregate_statement_rows(rows)
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    def f(v: Any, digits: int = 4) -> str:
        return "—" if v is None else f"{v:.{digits}f}"

    lines = [f"reportbench ({summary['granularity']} prompts), {summary['agent']}: "
             f"{summary['n_tasks']} tasks, {summary['n_with_report']} with a report "
             f"({summary['n_no_references']} without references, scored 0); "
             f"{summary['n_missing']} missing (scored 0, in the means)"]
    for key in REF_KEYS:
        digits = 2 if key == "ref_count" else 4
        lines.append(f"  {key:<28} {f(summary['means'][key], digits):>8}   (tasks with a "
                     f"report: {f(summary['means_with_report'][key], digits)})")
    lines.append(f"  micro precision {f(summary['micro']['ref_precision'])}, recall "
                 f"{f(summary['micro']['ref_recall'])}")
    refs = summary["references"]
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(refs["reasons"].items(),
                                                           key=lambda kv: -kv[1])) or "none"
    lines.append(f"  references: {refs['found']} found, {refs['resolved']} resolved, "
                 f"{refs['titled']} titled only, {refs['unresolved']} unresolved ({reasons})")
    if "title_extractor" in summary:
        te = summary["title_extractor"]
        lines.append(f"  LLM titles: {te['titles']} titles from {te['reports']} reports "
                     f"({te['replayed']} replayed), {te['n_unscored']} unscored replies")
    if summary.get("statements"):
        lines += format_statement_summary(summary["statements"])
    if "prompts" in summary:
        p = summary["prompts"]
        lines.append(f"  prompts: {p['n']} constructed ({p['n_unscored']} unscored), cut-off "
                     f"as asked {p['n_cutoff_ok']}, naming the survey {p['n_mentions_title']}, "
                     f"overlap F1 with shipped {f(p['mean_overlap_f1_with_shipped'])}")
    return "\n".join(lines)
