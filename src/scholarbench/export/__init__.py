"""export: run directories in other tools' formats. `export inspect` writes each run as an
Inspect eval log (`inspect_log`, docs/inspect.md). It reads each benchmark's own task files,
so it sits above the benchmarks, beside `cli` (docs/layers.md).

inspect-ai is an optional extra (`scholarbench[inspect]`); the public names are loaded on
first use, so `scholarbench --help` imports neither it nor the run readers."""
from scholarbench.lazy import lazy_getattr

_PUBLIC = {"RunFiles": "run_files", "read_run": "run_files", "TaskInput": "task_inputs",
           "task_inputs": "task_inputs", "eval_log": "inspect_log", "Written": "inspect_log",
           "export_inspect": "inspect_log"}

__all__ = sorted(_PUBLIC)


__getattr__ = lazy_getattr(__name__, _PUBLIC)
