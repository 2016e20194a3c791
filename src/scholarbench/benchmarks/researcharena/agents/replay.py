"""`replay` (ResearchArena): outputs produced elsewhere, in today's formats or the family schema.

- discovery / selection:
  - a TREC run file (`qid Q0 docid rank score tag`, e.g. upstream's `retrieve_bm25.py` output);
    each query's documents in trec_eval's order (score descending, ties by docid descending —
    `data.trec.trec_eval_order`);
  - or JSON lines, one per sample: the ranking family's schema `{"id": …, "papers": [REF |
    {"id": REF, "score": x}, …]}` (best first), or a run's own generate.jsonl lines
    `{"id": …, "ranking": [[paper_id, score], …]}`.
- organisation: JSON lines `{"id": …, "typology": …}` with the upstream typology form (a JSON
  string or object, `data.typology`), `{"id": …, "mindmap": {"name", "children"}}`, or the
  taxonomy family's schema `{"id": …, "taxonomy": TREE}`.

A file is read as JSON lines when its first non-blank character is `{`, else as a TREC run; it is read when the agent is made (a
file that cannot be read stops the run before it starts). Every
reference (a TREC docid, a REF) is resolved offline by the benchmark (`refs.py`: corpus ids,
DOIs, arXiv ids, titles); what does not resolve is counted in the sample's `info`. A sample with
no entry raises `Missing`: scored as an empty answer and counted as missing; an entry that does
not parse (a typology, a mind-map) is that sample's malformed answer.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, arena_agent)
from scholarbench.benchmarks.researcharena.records import mindmap_from_json
from scholarbench.core.families import Malformed
from scholarbench.core.replay import Missing, select_lines
from scholarbench.data.trec import read_run, trec_eval_order
from scholarbench.data.typology import parse_typology
from scholarbench.errors import DataError
from scholarbench.files import sha256_file

ANSWER_KEYS = {"discovery": ("papers", "ranking"), "selection": ("papers", "ranking"),
               "organisation": ("taxonomy", "mindmap", "typology")}


def _is_jsonl(path: Path) -> bool:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                return line.lstrip().startswith("{")
    return False


@arena_agent("replay")
class ArenaReplay:
    name = "replay"
    tasks = ("discovery", "selection", "organisation")
    needs_corpus = False
    needs_embedder = False

    def __init__(self, path: str | Path | None = None, *, benchmark: str | None = None,
                 subtask: str | None = None) -> None:
        if path is None:
            raise ValueError("replay needs a file: --agent-arg path=run.trec (discovery, "
                             "selection) or path=mindmaps.jsonl (organisation)")
        self.path = Path(path)
        if not self.path.is_file():
            raise ValueError(f"replay: {self.path} is not a file")
        # read now: a file that cannot be read is a set-up error, before any run directory
        self.jsonl = _is_jsonl(self.path)
        self._run = None if self.jsonl else read_run(self.path)
        self._lines: dict[str, tuple[int, dict[str, Any]]] = {}
        self.problems: list[str] = []
        if self.jsonl:      # this run's lines of a suite's file: tags removed, first of each id
            selected = select_lines(self.path, benchmark, subtask)
            self.problems = selected.problems
            for line, obj in selected.lines:
                if "id" not in obj:
                    raise DataError("missing id", file=str(self.path), line=line, field="id")
                self._lines[str(obj["id"])] = (line, obj)

    def config(self) -> dict[str, Any]:
        return {"path": str(self.path.resolve()), "sha256": sha256_file(self.path)}

    def _line(self, sample_id: str) -> tuple[int, dict[str, Any]]:
        if sample_id not in self._lines:
            raise Missing(f"no line for sample {sample_id!r} in {self.path}")
        return self._lines[sample_id]

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput | dict[str, Any]:
        if self.jsonl:
            line, obj = self._line(query.id)
            key = next((k for k in ANSWER_KEYS[ctx.task] if k in obj), None)
            try:
                if key == "mindmap":
                    return ArenaOutput(mindmap=mindmap_from_json(obj["mindmap"]))
                if key == "typology":
                    return ArenaOutput(mindmap=parse_typology(obj.get("typology"),
                                                              file=str(self.path), line=line))
            except (ValueError, DataError) as exc:     # this sample's answer is wrong
                raise Malformed(str(exc)) from None
            if key == "ranking":
                return {"papers": [{"id": e[0], "score": e[1]} if isinstance(e, list)
                                   and len(e) == 2 else e for e in obj["ranking"] or []]}
            # the family schema (a line that does not fit it is the sample's malformed answer)
            return {k: v for k, v in obj.items() if k != "id"}
        if ctx.task == "organisation":
            raise Malformed(f"{self.path} is a TREC run; organisation replays JSON lines")
        scores = self._run.scores.get(query.id)
        if not scores:
            raise Missing(f"no ranking for query {query.id!r} in {self.path}")
        return {"papers": [{"id": docid, "score": score}
                           for docid, score in trec_eval_order(scores)]}
