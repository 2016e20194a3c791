"""An Inspect solver's final reply as our agent's answer.

`ReplyAgent(text)` is an agent (`core.agent`) whose answer is `text` read as the endpoint agent
reads its model's reply (`core.endpoint.read_reply`: the family's answer, references resolved
offline by the benchmark), so `core.solving.solve_one` makes the same generate record — and the
same `malformed`, `missing` or `oversized` status — as `scholarbench run --agent endpoint` on a
model that replied `text`."""
from __future__ import annotations

from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.endpoint import read_reply


class ReplyAgent:
    name = "inspect"
    needs = Needs()

    def __init__(self, text: str) -> None:
        self.text = text

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return True

    def config(self) -> dict[str, Any]:
        return {}

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        return read_reply(task, self.text, {"reply_chars": len(self.text)})


__all__ = ["ReplyAgent"]
