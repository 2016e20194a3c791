"""`run scinet --agent replay --agent-arg path=FILE`: answers from a file, in SciNet's own answer
lines `{"task_id", "papers": [...]}` or the family schema `{"id", "papers": [...]}` (either per
line; `answers.read_answer_file`). A task with no line is a missing answer (scored as empty,
counted); a line that does not fit is malformed (the same); the references are resolved offline
by `Benchmark.record` like every agent's. Everything but the reading of the lines (`fits`, the
config: path and sha256) is the family replay agent's (`core.replay.ReplayAgent`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.core.agent import AgentContext, Task
from scholarbench.core.replay import Missing, ReplayAgent, select_lines
from scholarbench.errors import ScholarbenchError


class SciNetReplay(ReplayAgent):
    def __init__(self, path: str | Path | None = None, *, benchmark: str | None = None,
                 subtask: str | None = None) -> None:
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.answers import read_answer_file
        if not path:
            raise ScholarbenchError("replay needs --agent-arg path=FILE")
        self.path = Path(path)
        # this run's lines of a suite's file: tags removed, first of each id
        selected = select_lines(self.path, benchmark, subtask, ("task_id", "id"))
        self.problems = selected.problems
        self.answers = read_answer_file(self.path, selected.lines)

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        if task.id not in self.answers:
            raise Missing(f"no line for task {task.id!r} in {self.path}")
        return self.answers[task.id]
