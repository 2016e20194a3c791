"""inspect_tasks: the five benchmarks as Inspect tasks (`inspect eval scholarbench/<benchmark>_
<sub-task>`, docs/inspect.md "The benchmarks as Inspect tasks"), the other direction from
`export` (runs as Inspect logs).

- `dataset`: a sub-task's samples as Inspect `Sample`s (the endpoint agent's messages);
- `scorer`: our score rows as one Inspect `Score` per sample, through the engine's scoring;
- `tools`: the literature tools as Inspect tools, bound to each sample's leakage rules;
- `tasks`: `benchmark_task` and one `@task` per sub-task; `_registry`: what inspect-ai's
  entry point (`[project.entry-points.inspect_ai]`) imports to find them.

inspect-ai is the optional extra `scholarbench[inspect]`; the names are loaded on first use,
so importing this package imports neither it nor the benchmarks. It reads whole benchmarks, so
it sits above them, beside `export` (docs/layers.md)."""
from scholarbench.lazy import lazy_getattr

_PUBLIC = {"TaskData": "dataset", "load_task_data": "dataset", "inspect_samples": "dataset",
           "benchmark_scorer": "scorer", "score_reply": "scorer",
           "literature_tools": "tools", "benchmark_task": "tasks", "data_task": "tasks", "task_name": "tasks",
           "register_tasks": "tasks"}

__all__ = sorted(_PUBLIC)


__getattr__ = lazy_getattr(__name__, _PUBLIC)
