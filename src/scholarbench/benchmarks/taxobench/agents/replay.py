"""`replay`: outputs produced elsewhere, read from a file — TaxoBench's upstream prediction form
(`{"id", "hierarchy_tree", "retrieved_papers"}`) or the taxonomy answer schema of
`core.families` (`{"id", "taxonomy", "retrieved"}`), one JSON line per sample. A sample with no
line is missing (scored as an empty taxonomy and counted)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.taxobench.agents import register_taxo_agent
from scholarbench.benchmarks.taxobench.agents.base import AgentContext
from scholarbench.core.replay import Missing, select_lines
from scholarbench.data.taxobench import load_predictions, normalise_id
from scholarbench.records import TaxoPrediction, TaxoTask
from scholarbench.files import sha256_file


@register_taxo_agent("replay")
class ReplayAgent:
    name = "replay"
    modes = ("bottom-up", "deep-research")

    def __init__(self, path: str | Path | None = None, *, benchmark: str | None = None,
                 subtask: str | None = None) -> None:
        if path is None:
            raise ValueError("replay needs the prediction file: --agent-arg path=PRED.jsonl")
        self.path = Path(path)
        # this run's lines of a suite's file (`core.replay`): tags removed, first of each id
        selected = select_lines(self.path, benchmark, subtask)
        self._family: dict[str, dict[str, Any]] = {}
        upstream = []
        for lineno, obj in selected.lines:
            if "taxonomy" in obj and normalise_id(obj.get("id")):
                self._family.setdefault(normalise_id(obj["id"]),
                                        {k: v for k, v in obj.items() if k != "id"})
            else:
                upstream.append((lineno, obj))
        self._loaded = load_predictions(self.path, lines=upstream)
        self._loaded.problems[:0] = selected.problems
        for key in self._family:          # an upstream line for an id answered above
            self._loaded.by_id.pop(key, None)

    @property
    def problems(self) -> list[str]:
        return self._loaded.problems

    def config(self) -> dict[str, Any]:
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path),
                "unreadable_lines": len(self._loaded.problems)}

    def generate(self, task: TaxoTask, ctx: AgentContext) -> TaxoPrediction | dict[str, Any]:
        if task.id in self._family:
            return self._family[task.id]          # an answer in the family schema
        pred = self._loaded.by_id.get(task.id)
        if pred is None:
            raise Missing(f"no prediction for id {task.id!r} in {self.path}")
        return pred
