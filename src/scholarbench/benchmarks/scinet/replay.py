"""`run scinet --agent replay --agent-arg path=FILE`: answers from a file, in SciNet's own answer
lines `{"task_id", "papers": [...]}` or the family schema `{"id", "papers": [...]}` (either per
line; `answers.read_answer_file`). A task with no line is a missing answer (scored as empty,
counted); a line that does not fit is malformed (the same); the references are resolved offline
by `Benchmark.record` like every agent's."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.core.replay import Missing, select_lines


class SciNetReplay:
    name = "replay"
    needs = Needs()

    def __init__(self, path: str | Path | None = None, *, benchmark: str | None = None,
                 subtask: str | None = None) -> None:
        from scholarbench.benchmarks.scinet.answers import read_answer_file
        if not path:
            raise ScholarbenchError("replay needs --agent-arg path=FILE")
        self.path = Path(path)
        # this run's lines of a suite's file: tags removed, first of each id
        selected = select_lines(self.path, benchmark, subtask, ("task_id", "id"))
        self.problems = selected.problems
        self.answers = read_answer_file(self.path, selected.lines)

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return True

    def config(self) -> dict[str, Any]:
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path)}

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        if task.id not in self.answers:
            raise Missing(f"no line for task {task.id!r} in {self.path}")
        return self.answers[task.id]
