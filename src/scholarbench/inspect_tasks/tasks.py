"""The benchmarks' sub-tasks as Inspect tasks.

`benchmark_task(benchmark, subtask, …)` builds the `Task` (`data_task` from a sub-task already
loaded): our samples (`dataset`), the
default solver — `generate()`, or with `tools=True` the sample's literature tools
(`tools.literature_tools`) and `generate(tool_calls="loop")` — and our scorer (`scorer`).
Any other solver or agent (`inspect eval … --solver`, AstaBench's) replaces the default one;
the scorer reads its final reply.

`register_tasks()` registers one `@task` per sub-task of every benchmark in the registry
(`scholarbench list benchmark`), named `<benchmark>_<sub-task>` with `-` as `_`
(`taxobench_bottom_up`); inspect-ai lists them under the package, `scholarbench/
taxobench_bottom_up`, once its entry point imports `_registry`. Their arguments (`-T`):
`limit`, `tools`, `message_limit`, and the benchmark's own `run` options by their names
(`-T gold=FILE`, `-T corpus=DIR`; `scholarbench run BENCH --help` lists them).
"""
from __future__ import annotations

from typing import Any, Callable

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError   # Inspect's one-line (no traceback)
from inspect_ai._util.registry import registry_name     # the name inspect-ai would give
from inspect_ai.solver import generate                   # error for a task's bad input

from scholarbench.core.lookup import benchmark_class, engine_benchmarks
from scholarbench.errors import ScholarbenchError
from scholarbench.inspect_tasks.dataset import TaskData, inspect_samples, load_task_data
from scholarbench.inspect_tasks.scorer import benchmark_scorer
from scholarbench.inspect_tasks.tools import literature_tools

# the default bound of a tool loop: the endpoint agent's `max_steps` (8) model turns, each
# with its tool results, beside the system and user messages
TOOL_MESSAGE_LIMIT = 40
# arguments inspect-ai passes every task that are not the benchmark's options
NOT_OPTIONS = ("model",)


def task_name(benchmark: str, subtask: str) -> str:
    """`taxobench_bottom_up`: the Inspect name of a sub-task (without the package)."""
    return f"{benchmark}_{subtask}".replace("-", "_")


def benchmark_task(benchmark: str, subtask: str, *, limit: int | None = None,
                   tools: bool = False, message_limit: int | None = None,
                   **options: Any) -> Task:
    """`benchmark`'s `subtask` as an Inspect task (module docstring); `options`: the
    benchmark's own options, at their defaults where not given."""
    options = {k: v for k, v in options.items() if k not in NOT_OPTIONS}
    return data_task(load_task_data(benchmark, subtask, options, limit), tools, message_limit)


def data_task(data: TaskData, tools: bool = False, message_limit: int | None = None) -> Task:
    """The Inspect task of a loaded sub-task (`dataset.load_task_data`)."""
    if tools:
        solver: Any = [literature_tools(data), generate(tool_calls="loop")]
    else:
        solver = generate()
    meta = {"benchmark": data.bench.name, "subtask": data.subtask, "family": data.family,
            "options": data.manifest.get("options"), "tools": bool(tools),
            "unscorable": data.unscorable}
    return Task(dataset=inspect_samples(data, tools), solver=solver,
                scorer=benchmark_scorer(data), metadata={"scholarbench": meta},
                message_limit=message_limit if message_limit is not None
                else TOOL_MESSAGE_LIMIT if tools else None)


def _subtask_task(benchmark: str, subtask: str) -> Callable[..., Task]:
    def make(limit: int | None = None, tools: bool = False,
             message_limit: int | None = None, **options: Any) -> Task:
        try:
            return benchmark_task(benchmark, subtask, limit=limit, tools=tools,
                                  message_limit=message_limit, **options)
        except ScholarbenchError as exc:
            raise PrerequisiteError(f"scholarbench/{task_name(benchmark, subtask)}: {exc}"
                                    ) from None
    make.__name__ = make.__qualname__ = task_name(benchmark, subtask)
    make.__doc__ = f"{benchmark_class(benchmark).title or benchmark}: {subtask}."
    return make


def _namespaced(make: Callable[..., Task], name: str) -> str:
    """The name to give `task` so that it registers as `scholarbench/NAME`: inspect-ai prefixes
    the package itself only when it finds the module in site-packages or an editable install
    whose metadata it reads first on sys.path — not when an `egg-info` left in `src/` by the
    editable build (or a checkout on PYTHONPATH) comes first, where `inspect eval
    scholarbench/NAME` would then find nothing."""
    return name if "/" in registry_name(make, name) else f"scholarbench/{name}"


def register_tasks() -> dict[str, Callable[..., Task]]:
    """Register (and return, by name) one `@task` per sub-task of every benchmark."""
    out = {}
    for benchmark in engine_benchmarks():
        for subtask in benchmark_class(benchmark).subtasks:
            name = task_name(benchmark, subtask)
            make = _subtask_task(benchmark, subtask)
            out[name] = task(name=_namespaced(make, name))(make)
    return out


__all__ = ["NOT_OPTIONS", "TOOL_MESSAGE_LIMIT", "benchmark_task", "data_task",
           "register_tasks", "task_name"]
