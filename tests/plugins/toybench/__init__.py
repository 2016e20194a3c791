"""A sixth benchmark from outside the package: one folder and an entry point, nothing else.

Tests install it by writing a dist-info with an entry point (group `scholarbench.benchmarks`)
beside this folder's parent on sys.path, so the registry finds it the way it finds any
installed plug-in. Sub-task `rank` (ranking family): name the papers on a topic; scored by
hit@3 = |gold ∩ first three answers| / |gold|, answers matched by lower-cased title.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core import Benchmark, Loaded, Sample, Task, parse_answer, register_agent
from scholarbench.core.registry import register_benchmark

ITEMS = [
    {"id": "t1", "topic": "graph neural networks", "gold": ["GCN", "GAT"]},
    {"id": "t2", "topic": "transformers", "gold": ["Attention Is All You Need"]},
    {"id": "t3", "topic": "retrieval", "gold": ["BM25", "DPR", "ColBERT"]},
]


@register_benchmark("toybench")
class ToyBench(Benchmark):
    name = "toybench"
    title = "Toy benchmark"
    subtasks = {"rank": "ranking"}
    subtask_flag = "--task"
    headline = {"rank": ("hit@3",)}

    @classmethod
    def add_options(cls, parser: Any, command: str) -> None:
        parser.add_argument("--items", help="toybench: a JSON file of items (default: built in)")

    def load(self, subtask: str, limit: int | None) -> Loaded:
        items = json.loads(Path(self.options["items"]).read_text()) if self.options.get("items") \
            else ITEMS
        samples = [Sample(i["id"], Task(id=i["id"], benchmark=self.name, subtask=subtask,
                                        family="ranking", prompt=f"Name papers on {i['topic']}.",
                                        fields={"topic": i["topic"]}),
                          gold=[g.lower() for g in i["gold"]]) for i in items]
        return Loaded(samples[:limit] if limit is not None else samples, {"n_items": len(items)})

    def score(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
              manifest: dict[str, Any], run_dir: Any) -> list[dict[str, Any]]:
        rows = []
        for s in samples:
            rec = generated.get(s.id)
            row: dict[str, Any] = {"id": s.id}
            refs: list[str] = []
            if rec is None:
                row["status"] = "missing"
            elif rec.get("status") in ("malformed", "error"):
                row["status"] = rec["status"]
            else:
                refs = [r.lower() for r in parse_answer("ranking", rec["answer"]).refs()]
            row["hit@3"] = len(set(refs[:3]) & set(s.gold)) / len(s.gold)
            rows.append(row)
        return rows


@register_agent("toy-oracle", benchmarks=("toybench",))
class ToyOracle:
    """Answers with the gold (the toy's own built-in agent)."""
    name = "toy-oracle"

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return benchmark == "toybench"

    def config(self) -> dict[str, Any]:
        return {}

    def solve(self, task: Task, ctx: Any) -> dict[str, Any]:
        gold = {i["id"]: i["gold"] for i in ITEMS}[task.id]
        return {"papers": list(gold)}
