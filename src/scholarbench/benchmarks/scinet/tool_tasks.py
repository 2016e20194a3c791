"""Which SciNet tasks `tools serve --task` may serve (`ToolSource.find` of
`SciNet.tool_source`) and how to name them (`ToolSource.hint`), without building the tasks' gold. `tasks` (numpy, the graph's
measures) is imported only when called."""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.scinet.answers import FAMILY
from scholarbench.benchmarks.scinet.records import read_tasks
from scholarbench.benchmarks.scinet.review_tasks import review_ids
from scholarbench.benchmarks.scinet.tasks import ID_FORMS, has_built_id_form
from scholarbench.core.agent import Task
from scholarbench.core.benchmark import Sample
from scholarbench.tools.source import ids_hint


def tool_sample(bench: Any, subtask: str, task_id: str) -> Sample | None:
    """Every SciNet task has the same rules (`SciNet._tool_rules`) and listing the built tasks
    means building their gold (the graph measures: seconds), so a built task's id is
    checked by its form (`tasks.has_built_id_form`) and the graph is not opened; a task
    file's (`--tasks`) is looked up in it."""
    if subtask == "review":             # review/<its path task's id>
        if bench.options.get("tasks"):
            known = task_id in review_ids(bench.options["tasks"])
        else:
            known = has_built_id_form("path", task_id.removeprefix("review/")) and \
                task_id.startswith("review/")
        return Sample(task_id, Task(id=task_id, benchmark=bench.name, subtask=subtask,
                                    family="report", prompt="")) if known else None
    if bench.options.get("tasks"):
        known = any(t.family == subtask and t.task_id == task_id
                    for t in read_tasks(bench.tasks_file(bench.options["tasks"])))
    else:
        known = has_built_id_form(subtask, task_id)
    if not known:
        return None
    return Sample(task_id, Task(id=task_id, benchmark=bench.name, subtask=subtask,
                                family=FAMILY[subtask], prompt=""))


def tool_task_hint(bench: Any, subtask: str) -> str:
    """Which task ids `subtask` has (built: their form; a task file's: some of them)."""
    if subtask == "review":
        if bench.options.get("tasks"):
            return ids_hint(review_ids(bench.options["tasks"]))
        return f"built review task ids are review/{ID_FORMS['path']}"
    if bench.options.get("tasks"):
        given = read_tasks(bench.tasks_file(bench.options["tasks"]))
        return ids_hint([t.task_id for t in given if t.family == subtask])
    return f"built task ids are {ID_FORMS[subtask]}"
