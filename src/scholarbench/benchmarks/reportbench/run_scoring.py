"""`ReportBench.prepare_scoring`: the scorer of one run, built from the run's options and
models, and the judged steps of every answer (LLM titles, statements) read once before any row.

Every judge request is the engine's judge stage's (`titles`: `title_item`; the statements'
`cited_statements`, `noncited_statements`, `statement_checks`, `noncited_votes`:
`statement_items`), asked before this in a run or `score RUN_DIR --with-judge`; a plain
re-score reads the verdicts on file for the judges the manifest names. Here the statement
results are computed from those verdicts (`statement_verdicts.EngineStatements`); a run judged
before the checks and votes were engine items replays its statements.jsonl
(`scoring.RecordedStatements`), asking nothing.
- in a run (`run reportbench`), the judge role bound before the run started, when
  `--statements` or `--llm-titles` is on;
- `score RUN_DIR --with-judge`: the judge role (--judge, else the configured default);
  statements are judged even if the run had none (API: `options={"with_judge": True,
  "judge_statements": False}` redoes the LLM titles only), LLM titles are redone when the run
  used them;
- `score RUN_DIR`: no judge — nothing new is judged.
With a judge panel (`--judge` repeated, `--judge-samples K`) every judge checks the pairs and
votes (`statement_panel.PanelVerdicts` makes the panel's measure); LLM titles and the
extraction stay the first judge's. The manifest records the judges here (`models.judge`,
`statements`, a panel's `models.judges` and `judge`); their usage per item stage is the
engine's.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.scoring import (Judged, RecordedStatements,
                                                         RecordedTitles, Scorer)
from scholarbench.errors import ScholarbenchError
from scholarbench.benchmarks.reportbench.construct_stage import PROMPTS
from scholarbench.benchmarks.reportbench.ground_truth import load_ground_truth
from scholarbench.benchmarks.reportbench.llm_titles import LLMTitleExtractor
from scholarbench.benchmarks.reportbench.title_item import NAME as TITLES_ITEM, EngineTitles
from scholarbench.core.judge_stage import judged_entry, recorded
from scholarbench.benchmarks.reportbench.sources import CorpusEvidence, NoEvidence, SourceLookup
from scholarbench.benchmarks.reportbench.statement_items import CHECKS, statement_items
from scholarbench.benchmarks.reportbench.statement_verdicts import EngineStatements
from scholarbench.benchmarks.reportbench.statement_panel import StatementPanel
from scholarbench.benchmarks.reportbench.statement_prompts import PROMPT_SETS
from scholarbench.benchmarks.reportbench.statements import StatementConfig, StatementJudge
from scholarbench.metrics.judge_panel import panel_models

SCORER, JUDGED = "reportbench.scorer", "reportbench.judged"     # `ScoreContext.shared` keys


def statements_on(options: dict[str, Any]) -> bool:
    """Whether this scoring judges statements: `--statements`, or a re-score `--with-judge`
    (unless `judge_statements` is false)."""
    return bool(options.get("statements") or (options.get("with_judge")
                                              and options.get("judge_statements", True)))


def panel_of(models: Any, judge: Any) -> tuple[list[Any], int]:
    """The run's judge panel (its first is `judge`) and the repeats per judge."""
    judges = getattr(models, "judges", None)
    panel = list(judges()) if judge is not None and callable(judges) else [judge]
    return (panel if panel and panel[0] is judge else [judge],
            int(getattr(models, "judge_samples", 1) or 1))


def make_scorer(bench: Any, samples: Sequence[Any], ctx: Any, judge: Any, corpus: Any,
                gt_dir: str, generated: dict[str, dict[str, Any]] | None = None) -> Scorer:
    """The run's `Scorer`: its ground truth, corpus, and the recorded title extractor and
    statement judge (with `judge`, else replaying the identities the manifest recorded)."""
    opts, manifest, run = bench.options, ctx.manifest, ctx.run_dir
    corpus_sha = getattr(corpus, "papers_sha256", None)
    allow_network = bool(opts.get("allow_network"))
    llm_titles = bool(opts.get("llm_titles"))
    titles = None
    if llm_titles:
        titles = engine_titles(bench, samples, generated or {}, ctx, corpus_sha)
    stmt = None
    if statements_on(opts):
        stmt_judge = None
        identity = manifest.get("statements")
        if judge is not None:
            stmt_judge = statement_judge(bench, judge, corpus, allow_network,
                                         *panel_of(ctx.models, judge))
            identity = stmt_judge.identity()
        verdicts = statement_verdicts(bench, samples, generated or {}, ctx)
        if verdicts is not None:      # the engine's judge stage asked them (now or before)
            stmt = EngineStatements(verdicts, statement_config(bench), bench.statement_sources(),
                                    run, stmt_judge)
        else:                         # a run judged before the checks were engine items
            stmt = RecordedStatements(identity, run, corpus_sha, llm_titles)
    return Scorer(gt=load_ground_truth(Path(gt_dir)), corpus=corpus,
                  tasks={s.id: s.task.native.task for s in samples},
                  match=opts.get("match") or "exact",
                  unresolved=opts.get("unresolved") or "exclude", titles=titles,
                  statements=stmt)


def statement_verdicts(bench: Any, samples: Sequence[Any],
                       generated: dict[str, dict[str, Any]], ctx: Any
                       ) -> dict[str, Any] | None:
    """The statement items' verdicts: asked now by the judge stage, else on file for the
    judges the manifest names (a plain re-score); None for a run whose pairs were checked
    before that (its statements.jsonl is replayed)."""
    if CHECKS in ctx.verdicts:
        return dict(ctx.verdicts)
    if judged_entry(ctx.run_dir.read_manifest(), CHECKS) is None:
        return None
    earlier: dict[str, Any] = {}
    if bench.options.get("llm_titles"):
        earlier[TITLES_ITEM] = recorded(ctx.run_dir, bench.titles_item(), samples, generated)
    for item in statement_items(statement_config(bench), bench.statement_sources()):
        earlier[item.name] = recorded(ctx.run_dir, item, samples, generated, earlier)
    return earlier


def engine_titles(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
                  ctx: Any, corpus_sha: str | None) -> Any:
    """The LLM titles hook: over the verdicts the engine's judge stage gave now, else those on
    file of the judge the manifest names (a plain re-score); a run made before the titles were
    an engine item replays its titles.jsonl (`RecordedTitles`, nothing asked)."""
    verdicts = ctx.verdicts.get(TITLES_ITEM)
    if verdicts is None:
        verdicts = recorded(ctx.run_dir, bench.titles_item(), samples, generated)
    if verdicts is None and ctx.manifest.get("title_extractor") is not None:
        return RecordedTitles(None, ctx.run_dir, ctx.manifest["title_extractor"], corpus_sha)
    return EngineTitles(verdicts, LLMTitleExtractor(None).chunk_chars)


def prepare_scoring(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
                    ctx: Any, judge: Any, corpus: Any, gt_dir: str) -> None:
    """Into `ctx.shared`: the scorer (`SCORER`) and every answer's judged steps (`JUDGED`:
    sample id → `scoring.Judged`); the constructed prompts into `ctx.stage_records`. The
    judges' usage, models and identities go into the manifest even when judging fails midway."""
    run = ctx.run_dir
    if ctx.manifest.get("mode") != "shipped":
        ctx.stage_records[PROMPTS] = run.stage(PROMPTS).records
    scorer = make_scorer(bench, samples, ctx, judge, corpus, gt_dir, generated)
    judged: dict[str, Judged] = {}
    try:
        for sample in samples:
            judged[sample.id] = scorer.judge(sample, generated.get(sample.id))
    finally:
        if judge is not None:
            record_judges(bench, run, judge, scorer)
    ctx.shared.update({SCORER: scorer, JUDGED: judged})


def record_judges(bench: Any, run: Any, judge: Any, scorer: Scorer) -> None:
    """The judges this scoring asked, in the manifest: `models.judge` (and the API's
    `models.vote_judges`), the statement judge's and title extractor's identities, a panel."""
    m = run.read_manifest()
    models = m.setdefault("models", {})
    models["judge"] = {**judge.config.public(), "model_id": judge.model_id}
    if bench.vote_judges and scorer.statements is not None:
        models["vote_judges"] = [{**c.config.public(), "model_id": c.model_id}
                                 for c in bench.vote_judges]
    stmt = scorer.statements
    described = getattr(stmt, "described", None) or getattr(stmt, "judge", None)
    if described is not None:
        m["statements"] = described.identity()
        record_panel(m, described)
    run.write_manifest(m)


def record_panel(manifest: dict[str, Any], judge: Any) -> None:
    """A panel's judges in the manifest: `models.judges` (label, usage role, configuration)
    and `judge` (`samples`, `panel`: model ids, temperatures, seeds), as SciNet's."""
    if not isinstance(judge, StatementPanel) or judge.single:
        return
    models = manifest.setdefault("models", {})
    models.pop("judges", None)
    models.update({k: v for k, v in panel_models(judge.models()).items() if k == "judges"})
    manifest["judge"] = {"samples": judge.samples, "panel": judge.panel()}


def statement_config(bench: Any) -> StatementConfig:
    """The statements' settings: the API's `bench.statement_config`, else from the options
    (`samples`, `statement_prompts`)."""
    opts = bench.options
    prompt_set = opts.get("statement_prompts") or "v1"
    if prompt_set not in PROMPT_SETS:
        raise ScholarbenchError(f"unknown statement prompts {prompt_set!r}; use "
                                f"{' or '.join(PROMPT_SETS)}")
    return bench.statement_config or StatementConfig(samples=int(opts.get("samples") or 3),
                                                     prompt_set=prompt_set)


def statement_judge(bench: Any, judge: Any, corpus: Any, allow_network: bool,
                    judges: Sequence[Any] = (), samples: int = 1) -> Any:
    """The statement judge: `StatementJudge` for one judge asked once (as always), else a
    `StatementPanel` whose other judges are the first vote judges (then `bench.vote_judges`)."""
    opts = bench.options
    evidence = opts.get("evidence") or "corpus"
    tool = bench.evidence_tool or (CorpusEvidence(corpus) if evidence == "corpus"
                                   and corpus is not None else NoEvidence())
    config = statement_config(bench)
    panel = list(judges) or [judge]
    votes = panel[1:] + [c for c in bench.vote_judges if all(c is not p for p in panel)]
    base = StatementJudge(judge, lookup=SourceLookup(corpus, allow_network=allow_network),
                          evidence=tool, vote_judges=votes, config=config)
    if len(panel) == 1 and samples == 1:
        return base
    return StatementPanel(base, panel, samples)
