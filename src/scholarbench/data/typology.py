"""ResearchArena mind-maps ("typologies") as TaxoNode trees, and TaxoBench trees as mind-maps.

Upstream format (ResearchArena `survey.jsonl`, field `typology`; paper §3.3, Fig. 2-3, App. C.3):
a JSON *string* (or null when the survey has no mind-map) holding a JSON object whose keys are
headings. A heading's value is

- ``null``: the heading is a leaf (the paper's "children are NULL-terminated");
- an object: its keys are the sub-headings, recursively;
- a string: one leaf sub-heading with that text. GPT-4's extraction sometimes wrote annotations
  this way (``{"Distributed Access Control": {"example": "(e.g., [38])"}}``); they are kept
  as ordinary headings, with no special case for keys such as "example";
- a list: each item is a string (a leaf sub-heading), an object (its keys are sub-headings, in
  order) or null (ignored).

Anything else (numbers, booleans, empty or blank headings, an empty top-level object, invalid
JSON) is malformed: `DataError` naming the file, the line and the field path, e.g.
``typology["Applications"]["DApp"][2]``.

A mind-map is a forest (the top-level object may hold several headings), so it is returned under a
*virtual root* whose name is `VIRTUAL_ROOT` (the empty string); a real heading is never empty.
Metrics skip the virtual root when they list headings, and two virtual roots match at no cost in
the tree distance. Sibling order is kept (the tree distance is ordered), and so are repeated
sibling headings (parsed with `object_pairs_hook`, so a duplicate JSON key is not silently lost).
Parsing is iterative, so a decoded object may be thousands of levels deep; the standard JSON
decoder itself stops at about 1,000 levels (a DataError; upstream mind-maps have 3-7).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.errors import DataError
from scholarbench.records import TaxoNode

VIRTUAL_ROOT = ""


class _Pairs(list):
    """A JSON object as its (key, value) pairs in file order, duplicates kept."""


def _decode(text: str) -> object:
    return json.loads(text, object_pairs_hook=_Pairs)


def _key_path(path: str, key: object) -> str:
    return f"{path}[{json.dumps(key, ensure_ascii=False, default=str)}]"


def parse_typology(value: object, *, file: str | None = None, line: int | None = None,
                   field: str = "typology") -> TaxoNode:
    """Parse one typology (the JSON string, or the already-decoded object) into a mind-map.

    Returns a virtual root (name `VIRTUAL_ROOT`) whose children are the top-level headings.
    Papers are never attached: a mind-map has headings only.
    """
    def fail(msg: str, where: str) -> DataError:
        return DataError(msg, file=file, line=line, field=where)

    if isinstance(value, str):
        try:
            value = _decode(value)
        except json.JSONDecodeError as exc:
            raise fail(f"typology is not valid JSON ({exc.msg} at column {exc.colno})",
                       field) from exc
        except RecursionError as exc:
            raise fail("typology is nested too deeply for the JSON decoder (about 1,000 "
                       "levels; pass the decoded object instead)", field) from exc
    value = _as_pairs(value)
    if value is None:
        raise fail("typology is null (this survey has no mind-map)", field)
    if not isinstance(value, _Pairs):
        raise fail(f"typology must be a JSON object of headings, got {_kind(value)}", field)
    if not value:
        raise fail("typology has no headings", field)

    root = TaxoNode(name=VIRTUAL_ROOT)
    # (raw value of a heading, its node, field path of the value)
    stack: list[tuple[object, TaxoNode, str]] = [(value, root, field)]
    while stack:
        raw, node, path = stack.pop()
        children: list[tuple[object, TaxoNode, str]] = []
        if raw is None:
            pass
        elif (leaves := _children(raw, path, fail)) is not None:
            children.extend(leaves)
        elif isinstance(raw, list):
            for i, item in enumerate(raw):
                where = f"{path}[{i}]"
                if item is None:
                    continue
                if (leaves := _children(item, where, fail)) is None:
                    raise fail(f"a list item must be a heading string or an object, "
                               f"got {_kind(item)}", where)
                children.extend(leaves)
        else:
            raise fail(f"a heading's value must be null, an object, a list or a string, "
                       f"got {_kind(raw)}", path)
        node.children = [child for _, child, _ in children]
        stack.extend(reversed(children))
    return root


def _as_pairs(value: object) -> object:
    """An object already decoded with plain dicts (duplicate keys already lost) as pairs."""
    if isinstance(value, dict):
        return _Pairs(value.items())
    return value


def _children(raw: object, path: str, fail) -> list[tuple[object, TaxoNode, str]] | None:
    """The headings a string (one leaf) or an object (one per key) stands for; None for any
    other value."""
    if isinstance(raw, str):
        return [(None, _heading(raw, path, fail), path)]
    if isinstance(raw, (_Pairs, dict)):
        return _pairs_children(_as_pairs(raw), path, fail)
    return None


def _pairs_children(pairs: _Pairs, path: str, fail) -> list[tuple[object, TaxoNode, str]]:
    out = []
    for key, sub in pairs:
        where = _key_path(path, key)
        out.append((sub, _heading(key, where, fail), where))
    return out


def _heading(text: object, where: str, fail) -> TaxoNode:
    if not isinstance(text, str):
        raise fail(f"a heading must be a string, got {_kind(text)}", where)
    if not text.strip():
        raise fail("empty heading", where)
    return TaxoNode(name=text)


def _kind(value: object) -> str:
    if isinstance(value, (_Pairs, dict)):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(
        type(value), type(value).__name__)


def mindmap_from_taxonomy(tree: TaxoNode) -> TaxoNode:
    """A TaxoBench taxonomy as a mind-map: the same headings and order, papers removed.

    The taxonomy's root (the survey topic) becomes the single top-level heading under a virtual
    root, exactly as the typology ``{"<root name>": {...}}`` would parse. Iterative copy.
    """
    copy = TaxoNode(name=tree.name)
    stack = [(tree, copy)]
    while stack:
        src, dst = stack.pop()
        dst.children = [TaxoNode(name=c.name) for c in src.children]
        stack.extend(zip(src.children, dst.children))
    return TaxoNode(name=VIRTUAL_ROOT, children=[copy])


def typology_from_mindmap(mindmap: TaxoNode) -> dict:
    """The upstream nested-dict form (leaves are null), e.g. for few-shot prompts.

    A virtual root is unwrapped; a real root becomes the single top-level key. Repeated sibling
    headings cannot be keys of one JSON object, so they raise ValueError.
    """
    tops = mindmap.children if mindmap.name == VIRTUAL_ROOT else [mindmap]
    out: dict = {}
    stack: list[tuple[list[TaxoNode], dict]] = [(tops, out)]
    while stack:
        nodes, target = stack.pop()
        for node in nodes:
            if node.name in target:
                raise ValueError(f"repeated sibling heading {node.name!r}")
            if node.children:
                target[node.name] = {}
                stack.append((node.children, target[node.name]))
            else:
                target[node.name] = None
    return out


@dataclass
class SurveyTypology:
    """One ResearchArena survey with a mind-map: its id, title and parsed typology."""
    id: str
    title: str
    mindmap: TaxoNode


def load_typologies(path: str | Path) -> list[SurveyTypology]:
    """Every survey in a ResearchArena `survey.jsonl` whose `typology` is not null.

    Surveys with a null or absent typology have no mind-map and are left out (upstream has 1,884
    mind-maps for 7,952 surveys); a malformed one is an error naming file, line and field.
    """
    out: list[SurveyTypology] = []
    for line, obj in iter_jsonl(path):
        raw = obj.get("typology")
        if raw is None:
            continue
        survey_id = obj.get("id")
        if isinstance(survey_id, bool) or not isinstance(survey_id, (int, str)) \
                or not str(survey_id).strip():
            raise DataError("missing or not an int/string id", file=str(path), line=line,
                            field="id")
        title = obj.get("title", "")
        if not isinstance(title, str):
            raise DataError("'title' must be a string", file=str(path), line=line, field="title")
        mindmap = parse_typology(raw, file=str(path), line=line, field="typology")
        out.append(SurveyTypology(id=str(survey_id).strip(), title=title, mindmap=mindmap))
    return out
