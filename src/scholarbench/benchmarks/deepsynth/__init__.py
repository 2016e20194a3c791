"""DeepSynth-Eval (Zhang et al. 2026): everything of the benchmark in one package.

- `loader`, `records`: task files (upstream schema) and the unified prompt;
- `oracle`: the oracle context (a summary or abstract per reference) built before generating;
- `judge`, `scores`, `judged`: the checklist judge, the paper's and upstream's scores, and
  `score deepsynth --judged F --out S`;
- `benchmark`: the engine's `Benchmark` (options, samples, agents, stages, scoring);
- `agents`: the writer adapter (the shared `e2e-writer` / `agentic-writer`) and `replay`;
- `stages`: the oracle stage and judged.jsonl; `checklist`: the checklist judge as the
  engine's judged item (the engine's judge stage asks it); `judge_record`: the judges as a
  run records them; `scoring`: each task's score row;
- `summary_blocks`: the summary beside its measures; `summary`: run counts and the
  terminal summary;
- `api`: `run_deepsynth`, `judge_run`, `score_run` for Python callers;
- `section`, `published`: the report section and the paper's Table 1 rows.

Definitions and choices: ``docs/deepsynth.md``. This module stays light (the command line
imports it to list benchmarks): the public names below are imported on first use.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.deepsynth import measures as _measures
from scholarbench.core.registry import REGISTRY
from scholarbench.lazy import lazy_getattr

# the class (and the modules it imports) only when a command needs this benchmark
REGISTRY.lazy("benchmark", "deepsynth",
              "scholarbench.benchmarks.deepsynth.benchmark:DeepSynthBenchmark")

# the report section is imported when a report needs it (the report stack is heavy)
REGISTRY.lazy("section", "deepsynth", "scholarbench.benchmarks.deepsynth.section:DeepSynthSection")
REGISTRY.lazy("dataset", "deepsynth", "scholarbench.benchmarks.deepsynth.data:import_tasks")
_measures.register()            # deepsynth/dse_overall, … (both scoring variants)

_EXPORTS = {
    "judge": ("DEFAULT_PROMPT", "STATUS_RESPONSE_FORMAT", "ChatFn", "Verdicts", "build_prompt",
              "judge_subgroup", "judge_task", "load_prompt", "parse_reply"),
    "judged": ("format_summary", "score_deepsynth_judged"),
    "loader": ("CONSTRAINT_SEPARATOR", "constraint_questions", "load_tasks", "parse_task",
               "unified_prompt"),
    "oracle": ("OracleBuilder", "OracleContext", "OracleEntry", "ReferenceSpec",
               "read_reference_lists"),
    "records": ("STATUSES", "Group", "Requirement", "Status", "SubGroup", "Task",
                "task_to_json"),
    "measures": ("all_measures", "measures_for"),
    "scores": ("VARIANTS", "GroupScore", "TaskScore", "aggregate", "metric_key",
               "read_label", "score_group", "score_task"),
    "api": ("DeepSynthRunConfig", "format_run_summary", "judge_run", "run_deepsynth",
            "score_run"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
_WHERE["DeepSynthBenchmark"] = "benchmark"


__getattr__ = lazy_getattr(__name__, _WHERE)


__all__ = ["DeepSynthBenchmark", *sorted(_WHERE)]
