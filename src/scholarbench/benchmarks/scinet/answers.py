"""Answers in, the way SciNet reads them: the family schema or SciNet's own answer lines, every
reference resolved offline to a paper of the graph.

An answer is a list of references, best first (ego, pair: task family `ranking`) or in path
order (path: family `path`). A reference is a graph id in any spelling the resolver knows
(`arxiv:2301.12345`, `2301.12345v2`, an arxiv.org URL, the arXiv DOI `10.48550/arXiv.2301.12345`,
`ogbn:<n>`), or a title that exactly one paper of the graph has (normalised: case, accents,
punctuation) — `SciNetEnv.resolve` — else the same title once a trailing year is cut ("Residual
networks (2012)", as chat replies write them). Anything else (another DOI — the graph has arXiv
ids only —, a title with other extra words, an OpenAlex id) does not resolve: it stays in the answer as written and scores as a miss (counted as
*not in the graph* by the metrics), and the sample's `info` counts it (`unresolved`).

`record_fields` is what `Benchmark.record` writes to generate.jsonl: `papers` (each resolvable
reference replaced by its graph id, the others kept as written, same length and order — so the
scores are those of the references as given) and `info` (the agent's own info, plus `refs` and
`unresolved`).

Answer files (`--answers` of `score scinet`, `--agent replay --agent-arg path=…`), one JSON
object per line, either form:

- SciNet's: `{"task_id": …, "papers": [...]}` (and `"review"` for the review sub-task; other
  keys ignored, so a run's generate.jsonl can be scored again as it is);
- the family schema: `{"id": …, "papers": [...]}` (unknown keys make the answer malformed).

In SciNet's lines, SciNet's released answer items — `{"id": …, "title": …}` objects and nulls —
are read as `upstream.items_of` says (the id when it is a graph paper, else the title; nulls
dropped and counted in `info.null_items`); the positions of items with no id are kept in
`info.idless_items`, so `--variant upstream` can drop them where upstream's scripts do.

A line without a string `task_id` / `id`, or a task answered twice, is a `DataError` naming the
file, line and field; `papers` that is not a list of references makes that answer malformed
(scored as a missing answer and counted).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

from scholarbench.core.families import answer_info, parse_answer
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.errors import DataError
from scholarbench.benchmarks.scinet.upstream import is_upstream_items
from scholarbench.benchmarks.scinet.upstream import idless_positions, items_of

FAMILY = {"ego": "ranking", "pair": "ranking", "path": "path"}   # SciNet sub-task → family


_TRAILING_YEAR = re.compile(r"[\s,;.]*[(\[]?(?:19|20)\d{2}[a-z]?[)\]]?[\s.]*$")


def resolve_ref(ref: str, env: Any) -> str | None:
    """The graph id a reference names: `env.resolve` (ids in any spelling, exact titles), else
    the same after cutting a trailing year ("Residual networks (2012)", "…, 2012."); None."""
    gid = env.resolve(ref)
    if gid is None and isinstance(ref, str):
        cut = _TRAILING_YEAR.sub("", ref)
        if cut and cut != ref:
            gid = env.resolve(cut)
    return gid


def resolve_refs(refs: list[str], env: Any) -> tuple[list[str], int]:
    """(each reference as its graph id where it resolves, else as written; how many did not)."""
    out, unresolved = [], 0
    for ref in refs:
        gid = resolve_ref(ref, env)
        if gid is None:
            unresolved += 1
        out.append(gid if gid is not None else ref)
    return out, unresolved


def record_fields(subtask: str, answer: Any, env: Any) -> dict[str, Any]:
    """generate.jsonl fields of one answer; `core.families.Malformed` if it does not fit.
    SciNet's released answer items (`{"id", "title"}` objects, nulls) are read as
    `upstream.items_of` says."""
    nulls = None
    idless: list[int] = []
    if answer_info(answer).get("upstream_items") and is_upstream_items(answer.get("papers")):
        idless = idless_positions(answer["papers"])
        items, nulls = items_of(answer["papers"], env)
        answer = {**answer, "papers": items}
    refs = parse_answer(FAMILY[subtask], answer).refs()
    papers, unresolved = resolve_refs(refs, env)
    info = {**answer_info(answer), "refs": len(refs), "unresolved": unresolved}
    if nulls is not None:
        info["upstream_items"], info["null_items"] = True, nulls
        if idless:
            info["idless_items"] = idless
    return {"papers": papers, "info": info}


def read_answer_file(path: str | Path, lines: Iterable[tuple[int, dict[str, Any]]] | None = None
                     ) -> dict[str, dict[str, Any]]:
    """{task id: the answer (the family schema's body)} of an answers file, in file order;
    `lines`: (line number, object) already read (a replay file's lines for one run)."""
    path = Path(path)
    out: dict[str, dict[str, Any]] = {}
    first: dict[str, int] = {}
    for line, obj in (iter_jsonl(path) if lines is None else lines):
        key = "task_id" if "task_id" in obj else "id" if "id" in obj else "task_id"
        tid = obj.get(key)
        if not isinstance(tid, str) or not tid:
            raise DataError("need a non-empty string (SciNet's task id; the family schema's "
                            "`id` is read too)", file=str(path), line=line, field=key)
        if tid in out:
            raise DataError(f"task {tid!r} answered twice (first on line {first[tid]})",
                            file=str(path), line=line, field=key)
        if key == "task_id":        # SciNet's answer lines: the papers (and a review's text)
            out[tid] = {"papers": obj.get("papers")}
            if "review" in obj:
                out[tid]["review"] = obj["review"]
            if is_upstream_items(obj.get("papers")):      # SciNet's released item objects
                out[tid]["info"] = {"upstream_items": True}
        else:                       # the family schema, read strictly
            out[tid] = {k: v for k, v in obj.items() if k != "id"}
        first[tid] = line
    return out
