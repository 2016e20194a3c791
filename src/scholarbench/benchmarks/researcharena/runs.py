"""ResearchArena runs from Python: the command line's `run researcharena` / `score RUN_DIR`
as functions, through the same engine (`core.engine`).

    summary = run(ArenaRunConfig("discovery", "title-bm25", Path("runs/x"), corpus_dir))
    summary = score_run(Path("runs/x"))

Unlike the command line, `run` looks nowhere but where the config says: no default corpus is
built and no TaxoBench file is looked up in the data dir. `embedder` may be an `Embedder` or a
factory called only when the agent or the task needs one; `llm` the run's `LLMRoles` or a
factory of them, bound only when the agent uses a chat model.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.researcharena.benchmark import ResearchArena
from scholarbench.benchmarks.researcharena.scoring import format_summary  # noqa: F401
from scholarbench.core.engine import Models, run_benchmark, score_run as engine_score_run


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
    measures: str | None = None                # extra ir_measures names (discovery, selection)

    def options(self) -> dict[str, Any]:
        return {"corpus": str(self.corpus_dir) if self.corpus_dir else None,
                "tasks_from": self.tasks_from, "task_set": self.task_set, "qrels": self.qrels,
                "taxobench": str(self.taxobench_file) if self.taxobench_file else None,
                "measures": self.measures, "data": None}


def _models(llm: Any):
    if llm is None:
        return Models()

    def bind(need_agent: bool = True, need_judge: bool = False) -> Any:
        return llm() if callable(llm) else llm
    return Models(bind)


def run(config: ArenaRunConfig, embedder: Any = None) -> dict[str, Any]:
    """Run (or resume) generate → score → aggregate; returns the summary."""
    bench = ResearchArena({**config.options(), "embedder": embedder})
    bench.discover_data = False
    outcome = run_benchmark(bench, config.task, config.agent, Path(config.out),
                            params=dict(config.agent_params or {}), models=_models(config.llm),
                            limit=config.limit, name=config.run_name, progress=config.progress)
    return outcome.summary


def score_run(out: Path, embedder: Any = None, *, extractor: Any = None,
              progress: bool = True) -> dict[str, Any]:
    """(Re-)score a run directory from its tasks.jsonl and generate.jsonl (no corpus, no
    agent); rewrites qrels.trec / run.trec, scores.jsonl and summary.json."""
    objects: dict[str, Any] = {"embedder": embedder, "extractor": extractor,
                               "progress": progress}
    return engine_score_run(Path(out), options={k: v for k, v in objects.items()
                                                if v is not None},
                            progress=progress).summary


__all__ = ["ArenaRunConfig", "run", "score_run", "format_summary"]
