"""`--agent replay --agent-arg path=FILE`: answers from a file, one JSON line per sample.

Each line is `{"id": SAMPLE_ID, **answer}` in the task family's schema (`core.families`). A line
that is not JSON is reported with its line number; a sample with no line is `missing` (scored as
an empty answer and counted); a line that does not fit the schema is `malformed`. Benchmarks that
also accept upstream formats read them in their own replay agent.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.families import Malformed
from scholarbench.data.jsonl import iter_jsonl_lines
from scholarbench.errors import DataError, ScholarbenchError


class Missing(Malformed):
    """No answer for this sample (scored as an empty answer, counted as missing)."""


class ReplayAgent:
    name = "replay"
    needs = Needs()

    def __init__(self, path: str | Path | None = None, id_key: str = "id") -> None:
        if not path:
            raise ScholarbenchError("replay needs --agent-arg path=FILE")
        self.path = Path(path)
        if not self.path.is_file():
            raise ScholarbenchError(f"replay: {self.path} is not a file")
        self.answers: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = []
        for lineno, obj, problem in iter_jsonl_lines(self.path):
            if problem is None and id_key not in obj:
                problem = f"no {id_key!r}"
            if problem is not None:
                self.problems.append(f"{self.path}, line {lineno}: {problem}")
                continue
            self.answers[str(obj[id_key])] = obj
        if not self.answers and not self.problems:
            raise DataError("no answers in the file", file=str(self.path))

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return True

    def config(self) -> dict[str, Any]:
        from scholarbench.files import sha256_file
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path)}

    def solve(self, task: Task, ctx: AgentContext) -> Any:
        if task.id not in self.answers:
            raise Missing(f"no line for sample {task.id!r} in {self.path}")
        return {k: v for k, v in self.answers[task.id].items() if k != "id"}
