"""An agent's answer → the fields of its generate.jsonl line (`ResearchArena.record`).

Two kinds of answers arrive:

- a built-in agent's `ArenaOutput` (corpus paper_ids already): `ranking` [(paper_id, score)]
  or `mindmap`, an `error` note and `info`;
- a family answer (a user's function or class, the endpoint agent, `replay` of the family
  schema or of a TREC run): `{"papers": [REF | {"id": REF, "score": x}, …]}` for discovery and
  selection, `{"taxonomy": TREE, "retrieved": [REF, …]}` for organisation
  (`core.families`). REFs are resolved offline (`refs.py`) and counted in `info`; in
  organisation a REF may also be the number of a reference in the prompt's numbered list, or
  its id or title (`core.refs`), as the prompt lists them.

The line keeps the fields it always had — `{"ranking": [[paper_id, score], …] | null}` or
`{"mindmap": {"name", "children"} | null}`, `error`, `info` — plus the engine's `status`:

- `ok`: an answer (its list may be empty);
- `malformed` with `missing: true`: the agent returned nothing (no ranking / no mind-map,
  e.g. an unparseable model reply), or `replay` has no line for the sample — scored as an
  empty answer and counted as missing;
- `malformed`: an answer that does not fit (a ranking entry that is not [id without spaces,
  finite number], a family answer with a wrong field) — scored as empty and counted;
- `error` (set by the engine): the agent raised or its model failed — never a result.

A TREE becomes a mind-map with its papers removed: a root with a name is the single top-level
heading (as the CLUSTERING baseline's trees, `data.typology.mindmap_from_taxonomy`); a root
named "" is a virtual root whose sub-topics are the top-level headings (as upstream typologies
parse).
"""
from __future__ import annotations

import math
from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import ArenaOutput
from scholarbench.benchmarks.researcharena.records import ArenaTask, mindmap_to_json
from scholarbench.benchmarks.researcharena.refs import RefResolver
from scholarbench.core.families import Malformed, answer_info, parse_answer
from scholarbench.records import TaxoNode
from scholarbench.data.typology import VIRTUAL_ROOT, mindmap_from_taxonomy


def parse_ranking(raw: object) -> tuple[list[str] | None, int, str | None]:
    """(paper_ids in rank order with repeats dropped, repeats dropped, problem) — None ids and a
    problem string when the ranking is malformed."""
    if not isinstance(raw, list):
        return None, 0, f"ranking must be a list, got {type(raw).__name__}"
    ids: list[str] = []
    seen: set[str] = set()
    dropped = 0
    for i, entry in enumerate(raw):
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
            return None, 0, f"ranking[{i}]: expected [paper_id, score]"
        pid, score = entry
        if not isinstance(pid, str) or not pid or any(c.isspace() for c in pid):
            return None, 0, f"ranking[{i}]: paper_id must be a non-empty string without spaces"
        if isinstance(score, bool) or not isinstance(score, (int, float)) \
                or not math.isfinite(score):
            return None, 0, f"ranking[{i}]: score must be a finite number, got {score!r}"
        if pid in seen:
            dropped += 1
            continue
        seen.add(pid)
        ids.append(pid)
    return ids, dropped, None


def tree_to_mindmap(tree: Any) -> TaxoNode:
    """A family TREE (`core.families.TreeNode`) as a mind-map (module docstring)."""
    root = TaxoNode(name=tree.name.strip())
    stack = [(tree, root)]
    while stack:
        src, dst = stack.pop()
        dst.children = [TaxoNode(name=c.name) for c in src.subtopics]
        stack.extend(zip(src.subtopics, dst.children))
    if root.name == VIRTUAL_ROOT:
        return root
    return mindmap_from_taxonomy(root)


def tree_refs(tree: Any) -> list[str]:
    out: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.extend(node.papers)
        stack.extend(node.subtopics)
    return out


def _missing(key: str, error: str | None, info: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {key: None, "error": error or f"the agent returned no {key}",
                           "status": "missing", "missing": True}
    if info:
        out["info"] = info
    return out


def from_output(output: ArenaOutput, subtask: str) -> dict[str, Any]:
    """A built-in agent's output."""
    info = dict(output.info or {})
    if subtask == "organisation":
        if output.mindmap is None:
            return _missing("mindmap", output.error, info)
        fields: dict[str, Any] = {"mindmap": mindmap_to_json(output.mindmap),
                                  "error": output.error}
    else:
        if output.ranking is None:
            return _missing("ranking", output.error, info)
        ranking = [[pid, score] for pid, score in output.ranking]
        _, _, problem = parse_ranking(ranking)
        if problem is not None:
            out: dict[str, Any] = {"ranking": None, "error": problem, "status": "malformed"}
            if info:
                out["info"] = info
            return out
        fields = {"ranking": ranking, "error": output.error}
    if info:
        fields["info"] = info
    return fields


def from_family(answer: Any, subtask: str, task: ArenaTask, resolver: RefResolver,
                listed: Any = None) -> dict[str, Any]:
    """A family answer (dict or model); `Malformed` when it does not fit. `listed`
    (`core.refs.TaskRefs`): the references the organisation prompt numbers — an answer item
    naming one (its number, id or title) resolves to it; the rest go to the corpus."""
    info = answer_info(answer)
    if subtask == "organisation":
        parsed = parse_answer("taxonomy", answer)
        refs = tree_refs(parsed.taxonomy) + list(parsed.retrieved or [])
        if listed is not None:
            refs = [r for r, at in zip(refs, listed.resolve_all(refs)) if at is None]
            counts = resolver.count(refs, task)
            counts["refs"] += len(tree_refs(parsed.taxonomy) + list(parsed.retrieved or [])) \
                - len(refs)
        else:
            counts = resolver.count(refs, task)
        return {"mindmap": mindmap_to_json(tree_to_mindmap(parsed.taxonomy)), "error": None,
                "info": {**info, **counts}}
    parsed = parse_answer("ranking", answer)
    entries = [(p, None) if isinstance(p, str) else (p.id, p.score) for p in parsed.papers]
    for i, (_, score) in enumerate(entries):
        if score is not None and not math.isfinite(score):
            raise Malformed(f"ranking answer, field papers.{i}.score: not a finite number")
    ranking, counts = resolver.ranking(entries, task)
    return {"ranking": ranking, "error": None, "info": {**info, **counts}}


def record_answer(answer: Any, subtask: str, task: ArenaTask, resolver: RefResolver,
                  listed: Any = None) -> dict[str, Any]:
    if isinstance(answer, ArenaOutput):
        return from_output(answer, subtask)
    return from_family(answer, subtask, task, resolver, listed)


__all__ = ["parse_ranking", "tree_to_mindmap", "from_output", "from_family", "record_answer"]
