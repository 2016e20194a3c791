"""SciNet: relation-aware tasks built from a citation graph, their metrics, judge and agents, on
the engine (docs/scinet.md).

    benchmark   the `Benchmark` (sub-tasks ego, pair → ranking; path → path; review → report)
    samples     what an agent sees of a task (prompt = SciNet's query, fields)
    answers     answers in (both file forms) and their references resolved offline
    scoring     rows, summary measures and blocks per family, terminal lines
    judged      the judged items the engine's judge stage asks (ego, path, review)
    panel       a task's judge columns from the engine's verdicts (a panel, repeats)
    run_scoring the engine's scoring hooks: the verdicts' columns, then each task's row
    files       `scholarbench score scinet --tasks T --answers A --out S`
    run         `run_scinet` (the engine's run from Python) and `SciNetRunConfig`
    builtin     SciNet's own agents behind the one agent contract; replay: answer files
    tool_tasks  the task ids `tools serve --task` accepts, without building their gold
    env         the graph world (graph, titles, measures, contexts); contexts: unArXive
    tasks       task construction by rule; queries: upstream query files; records: task files
    gold        the ego gold's tie rule, tie counts and seed stability
    upstream    SciNet's released scoring rules (`--variant upstream`) and answer items
    metrics     deterministic metrics; judge: LLM-judged metrics' prompts and replies;
                sentiment: the cue rule
    agents      the built-in agents (embedding, bm25, relation-aware, deep-research)
    measures    the measures as objects (one Spec each; registered as scinet/<key>)
    report      the report section (report_display: what it shows; drilldown: per task;
                judge_records: the judgements it shows)
    review*     the downstream review sub-task (§6): review_tasks (task records), review
                (answers, built-in writer), review_judge (five dimensions), review_scoring
                (rows, summary blocks), report_review (report table); published:
                the paper's numbers

Importing this package registers the benchmark, its agents, measures and report section and
nothing heavy (numpy, the graph, the report stack load when used); the old public names are
still importable from here (lazily).
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.scinet import builtin as _builtin  # noqa: F401  (agents)
from scholarbench.benchmarks.scinet import measures as _measures  # noqa: F401  (measures)
from scholarbench.core.registry import REGISTRY
from scholarbench.lazy import lazy_getattr

# the class (and the modules it imports) only when a command needs this benchmark
REGISTRY.lazy("benchmark", "scinet",
              "scholarbench.benchmarks.scinet.benchmark:SciNet")

# the report section is imported when a report needs it (the report stack is heavy)
REGISTRY.lazy("section", "scinet", "scholarbench.benchmarks.scinet.report:SciNetSection")
REGISTRY.lazy("dataset", "scinet", "scholarbench.benchmarks.scinet.data:import_tasks")

_LAZY = {
    "SciNet": "benchmark",
    "BuildSettings": "tasks", "build_tasks": "tasks", "EnvSettings": "env", "SciNetEnv": "env",
    "SciNetTask": "records", "read_tasks": "records", "write_tasks": "records",
    "aggregate": "metrics", "connected_chain": "metrics", "score_task": "metrics",
    "load_queries": "queries", "load_query_file": "queries", "SciNetRunConfig": "run",
    "run_scinet": "run", "score_scinet_files": "files", "format_summary": "scoring",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = ["SciNet", *_LAZY]
