"""`replay`: outputs produced elsewhere, read from a TaxoBench prediction file."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.agents.base import AgentContext
from scholarbench.data.taxobench import load_predictions
from scholarbench.records import TaxoPrediction, TaxoTask
from scholarbench.registry import register_agent


@register_agent("replay")
class ReplayAgent:
    name = "replay"
    modes = ("bottom-up", "deep-research")

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            raise ValueError("replay needs the prediction file: --agent-arg path=PRED.jsonl")
        self.path = Path(path)
        self._loaded = load_predictions(self.path)

    def config(self) -> dict[str, Any]:
        from scholarbench.files import sha256_file
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path),
                "unreadable_lines": len(self._loaded.problems)}

    def generate(self, task: TaxoTask, ctx: AgentContext) -> TaxoPrediction:
        pred = self._loaded.by_id.get(task.id)
        if pred is None:
            raise LookupError(f"no prediction for id {task.id!r} in {self.path}")
        return pred
