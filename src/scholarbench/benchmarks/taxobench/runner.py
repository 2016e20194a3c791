"""TaxoBench from Python: `run(RunConfig(...), embedder)`, `score_run(run_dir, embedder)` and
`score_files(gold, pred, out, embedder)`, each returning the summary. They go through the one
engine (`core.engine`) exactly as `scholarbench run taxobench` and `score` do."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.taxobench.benchmark import TaxoBench
from scholarbench.benchmarks.taxobench.scoring import predictions, score_files
from scholarbench.core.engine import Models, run_benchmark
from scholarbench.core.engine import score_run as engine_score_run
from scholarbench.core.rundir import RunDir
from scholarbench.core.summary_metrics import aggregate as aggregate_metrics

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
    judge: Any = None        # the judge role's ChatClient (or a TaxoBenchJudge): LLM-judge scores;
                             # a list of them: a judge panel (docs/judges.md)
    judge_samples: int = 1   # each judge asked this many times per sample (--judge-samples)


def run(config: RunConfig, embedder: Any) -> dict[str, Any]:
    """Run (or resume) generate → score → aggregate; returns the summary."""
    bench = TaxoBench({"gold": str(config.gold_path),
                       "corpus": str(config.corpus_dir) if config.corpus_dir else None,
                       "with_judge": config.judge is not None}, embedder=embedder)
    outcome = run_benchmark(bench, config.mode, config.agent, Path(config.out),
                            params=config.agent_params, limit=config.limit,
                            models=_models(config.judge, config.judge_samples,
                                           agent=config.llm),
                            name=config.run_name, progress=config.progress)
    return outcome.summary


def _models(judge: Any, samples: int = 1, agent: Any = None) -> Models:
    """The run's models: `judge` one judge or a list of them (a panel)."""
    if isinstance(judge, (list, tuple)):
        return Models.given(agent=agent, judges=list(judge), judge_samples=samples)
    return Models.given(agent=agent, judge=judge, judge_samples=samples)


def score_run(out: Path, embedder: Any, progress: bool = True, judge: Any = None,
              judge_samples: int = 1) -> dict[str, Any]:
    """(Re-)score a run from its generate.jsonl; rewrites scores.jsonl and summary.json."""
    manifest = RunDir(Path(out)).read_manifest()
    bench = TaxoBench({**(manifest.get("options") or {}), "with_judge": judge is not None},
                      embedder=embedder)
    return engine_score_run(Path(out), bench=bench, models=_models(judge, judge_samples),
                            progress=progress).summary


def aggregate(rows: list[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    """The summary's run fields and TaxoBench's own part (`core.summary_metrics.aggregate`: measures,
    counts, judge blocks) from score rows and a manifest alone, without the engine's
    intervals and status counts (`core.summarise` adds those)."""
    return {"benchmark": "taxobench", "mode": manifest["mode"], "agent": manifest["agent"],
            "run_name": manifest.get("run_name"), "n_samples": len(rows),
            **aggregate_metrics(TaxoBench(), rows, manifest)}


def load_generated(out: Path) -> dict[str, Any]:
    """Predictions by id; None for a sample whose agent produced nothing (or failed)."""
    return predictions(RunDir(Path(out)).stage(GENERATE).records)


__all__ = ["RunConfig", "run", "score_run", "score_files", "aggregate", "load_generated"]
