"""`replay` (ResearchArena): outputs produced elsewhere.

- discovery / selection: a TREC run file (`qid Q0 docid rank score tag`, e.g. upstream's
  `retrieve_bm25.py` output); each query's documents in trec_eval's order (score descending,
  ties by docid descending — `data.trec.trec_eval_order`).
- organisation: JSON lines `{"id": ..., "typology": ...}` with the upstream typology form (a
  JSON string or object, `data.typology`), or `{"id": ..., "mindmap": {"name", "children"}}`.

A task with no entry raises LookupError, which the runner records as a missing output.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.agents.researcharena.base import ArenaContext, ArenaOutput, ArenaQuery
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.data.researcharena import mindmap_from_json
from scholarbench.data.trec import read_run, trec_eval_order
from scholarbench.data.typology import parse_typology
from scholarbench.errors import DataError
from scholarbench.files import sha256_file
from scholarbench.registry import register_agent


@register_agent("researcharena/replay")
class ArenaReplay:
    name = "replay"
    tasks = ("discovery", "selection", "organisation")
    needs_corpus = False
    needs_embedder = False

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            raise ValueError("replay needs a file: --agent-arg path=run.trec (discovery, "
                             "selection) or path=mindmaps.jsonl (organisation)")
        self.path = Path(path)
        self._run = None
        self._maps: dict[str, Any] | None = None

    def config(self) -> dict[str, Any]:
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path)}

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        if ctx.task == "organisation":
            if self._maps is None:
                self._maps = {}
                for line, obj in iter_jsonl(self.path):
                    if "id" not in obj:
                        raise DataError("missing id", file=str(self.path), line=line, field="id")
                    self._maps[str(obj["id"])] = (line, obj)
            if query.id not in self._maps:
                raise LookupError(f"no mind-map for id {query.id!r} in {self.path}")
            line, obj = self._maps[query.id]
            if "mindmap" in obj:
                return ArenaOutput(mindmap=mindmap_from_json(obj["mindmap"]))
            return ArenaOutput(mindmap=parse_typology(obj.get("typology"), file=str(self.path),
                                                      line=line))
        if self._run is None:
            self._run = read_run(self.path)
        scores = self._run.scores.get(query.id)
        if not scores:
            raise LookupError(f"no ranking for query {query.id!r} in {self.path}")
        return ArenaOutput(ranking=trec_eval_order(scores))
