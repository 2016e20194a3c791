"""DeepSynth-Eval from Python: the command line's `run deepsynth`, `score RUN_DIR` and
`score RUN_DIR --with-judge`, on the engine.

    summary = run_deepsynth(DeepSynthRunConfig(tasks_path=…, out=…, agent="e2e-writer"), roles)
    summary = judge_run(out, judge_client)    # re-judge a finished run with another judge
    summary = score_run(out)                  # re-score from the run's files, no model

``roles`` is the run's `LLMRoles` or a factory ``roles(need_agent=…, need_judge=True)`` called
once (the agent role is asked for only when the agent or the oracle summaries use it).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from scholarbench.benchmarks.deepsynth.benchmark import NO_CORPUS, SUBTASK, DeepSynthBenchmark
from scholarbench.benchmarks.deepsynth.judge import DEFAULT_PROMPT, DEFAULT_RETRIES
from scholarbench.benchmarks.deepsynth.summary import format_run_summary
from scholarbench.errors import ScholarbenchError
from scholarbench.core.agent import import_object
from scholarbench.core.engine import Models, run_benchmark, score_run as engine_score
from scholarbench.core.registry import REGISTRY
from scholarbench.core.rundir import RunDir


@dataclass
class DeepSynthRunConfig:
    tasks_path: Path
    out: Path
    agent: str = "e2e-writer"            # a writer, "replay", "endpoint" or package.module:attr
    agent_params: dict[str, Any] | None = None
    replay: Path | None = None           # replay: a file of reports (None: survey_result)
    limit: int | None = None
    corpus_dir: Path | None = None       # None: no corpus
    references: Path | None = None       # reference lists for the oracle (else the corpus's)
    oracle: str = "summary"              # summary | abstract | none
    oracle_role: str = "judge"           # whose model summarises: judge (paper) | agent
    oracle_params: dict[str, Any] | None = None  # OracleBuilder fields, context_window, …
    judge_prompt: str = DEFAULT_PROMPT
    judge_retries: int = DEFAULT_RETRIES
    variant: str = "paper"
    run_name: str | None = None
    progress: bool = True


def options_of(config: DeepSynthRunConfig) -> dict[str, Any]:
    """The benchmark options (`run deepsynth`'s flags) of a config."""
    return {"tasks": str(config.tasks_path),
            "corpus": str(config.corpus_dir) if config.corpus_dir else NO_CORPUS,
            "references": str(config.references) if config.references else None,
            "oracle": config.oracle, "oracle_role": config.oracle_role,
            "oracle_params": dict(config.oracle_params or {}),
            "judge_prompt": config.judge_prompt, "judge_retries": config.judge_retries,
            "variant": config.variant,
            "replay": str(config.replay) if config.replay else None, "data": None}


def _needs_agent(config: DeepSynthRunConfig) -> bool:
    if config.agent == "replay":
        return False
    if config.oracle == "summary" and config.oracle_role == "agent":
        return True
    if config.agent == "endpoint":
        return True
    obj = import_object(config.agent) if ":" in config.agent else REGISTRY.find("agent",
                                                                                config.agent)
    needs = getattr(obj, "needs", None)
    return bool(getattr(obj, "uses_llm", False) or getattr(needs, "llm", False))


def _models(roles: Any, need_agent: bool) -> Any:
    if roles is None or hasattr(roles, "judge") or not callable(roles):
        return Models(lambda **_: roles)
    bound: list[Any] = []

    def bind(**_: Any) -> Any:
        if not bound:
            bound.append(roles(need_agent=need_agent, need_judge=True))
        return bound[0]
    return Models(bind)


def run_deepsynth(config: DeepSynthRunConfig, roles: Any) -> dict[str, Any]:
    """Run (or resume) every stage; returns summary.json's content."""
    if config.replay is not None and config.agent != "replay":
        raise ScholarbenchError("a replay file goes with agent 'replay'")
    bench = DeepSynthBenchmark(options_of(config))
    outcome = run_benchmark(bench, SUBTASK, config.agent, Path(config.out),
                            params=dict(config.agent_params or {}),
                            models=_models(roles, _needs_agent(config)), limit=config.limit,
                            name=config.run_name, progress=config.progress)
    return outcome.summary


def judge_run(out: Path, judge: Any, *, prompt: str = DEFAULT_PROMPT,
              retries: int = DEFAULT_RETRIES, progress: bool = True) -> dict[str, Any]:
    """(Re-)judge a run directory with ``judge`` (e.g. another judge model) from its
    generate.jsonl — nothing is regenerated — then re-score it. Verdicts on file by the same
    judge and prompt on the same report text are kept (the engine's judge stage)."""
    if RunDir(Path(out)).read_manifest().get("benchmark") != "deepsynth":
        raise ScholarbenchError(f"{out} is not a DeepSynth-Eval run directory")
    options = {"with_judge": True, "judge_prompt": prompt, "judge_retries": retries}
    roles = SimpleNamespace(agent=None, judge=judge)
    return engine_score(Path(out), options=options, models=Models(lambda **_: roles),
                        progress=progress).summary


def score_run(out: Path, variant: str | None = None) -> dict[str, Any]:
    """Re-score a run from its files (judge.checklist.jsonl, generate.jsonl); no model
    calls."""
    return engine_score(Path(out), options={"variant": variant} if variant else None).summary


__all__ = ["DeepSynthRunConfig", "format_run_summary", "judge_run", "options_of",
           "run_deepsynth", "score_run"]
