"""`llm-taxonomy`'s replies: the JSON schemas a reply must fit, and their strict reading —
the taxonomy tree of paper numbers (`parse_taxonomy_reply`, the rules in `llm_taxonomy`'s
docstring) and the per-paper extractions (summary, core task, contributions)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from scholarbench.records import TaxoNode

_ITEMS_SCHEMA = {"type": "array", "items": {
    "type": "object", "additionalProperties": False, "required": ["name", "description"],
    "properties": {"name": {"type": "string"}, "description": {"type": "string"}}}}
_EXTRACT_FIELD_SCHEMA = {
    "summary": {**_ITEMS_SCHEMA, "minItems": 1, "maxItems": 4},
    "core_task": {"type": "string"},
    "contributions": {**_ITEMS_SCHEMA, "maxItems": 3},
}


def taxonomy_schema(max_depth: int) -> dict[str, Any]:
    """A node schema nested `max_depth` levels below the root (no $ref: every server takes it);
    the root needs at least one subtopic (a taxonomy, not a flat list)."""
    node: dict[str, Any] = {"type": "object", "additionalProperties": False,
                            "required": ["name", "papers"],
                            "properties": {"name": {"type": "string"},
                                           "papers": {"type": "array",
                                                      "items": {"type": "integer"}}}}
    for _ in range(max_depth):
        node = {"type": "object", "additionalProperties": False,
                "required": ["name", "subtopics", "papers"],
                "properties": {"name": {"type": "string"},
                               "subtopics": {"type": "array", "items": node},
                               "papers": {"type": "array", "items": {"type": "integer"}}}}
    node["properties"]["subtopics"]["minItems"] = 1
    return node


def extract_schema(kind: str) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["papers"],
            "properties": {"papers": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": ["paper", kind],
                "properties": {"paper": {"type": "integer"},
                               kind: _EXTRACT_FIELD_SCHEMA[kind]}}}}}


# ------------------------------------------------------------------------------ the records
@dataclass
class Extracted:
    summary: list[tuple[str, str]] | None = None
    core_task: str | None = None
    contributions: list[tuple[str, str]] | None = None


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a string, got {type(value).__name__}")
    return value


# ------------------------------------------------------------------------- reply validation
@dataclass
class ParsedTree:
    root: TaxoNode              # papers as numbers (strings) until mapped
    invented: list[int]
    duplicates: int
    placed: list[int]


def parse_taxonomy_reply(value: Any, n_papers: int) -> ParsedTree:
    """The reply as a tree of paper numbers; ValueError (for the repair turn) naming the path."""
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object for the root node, got {type(value).__name__}")
    root = TaxoNode("")
    placed: list[int] = []
    seen: set[int] = set()
    invented: list[int] = []
    duplicates = 0
    stack: list[tuple[Any, TaxoNode, str]] = [(value, root, "root")]
    while stack:       # pre-order, so "first place" is the first in pre-order
        raw, node, path = stack.pop()
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: expected an object, got {type(raw).__name__}")
        unknown = set(raw) - {"name", "subtopics", "papers"}
        if unknown:
            raise ValueError(f"{path}: unknown key(s) {sorted(unknown)}; a node has only "
                             "name, subtopics and papers")
        node.name = _text(raw.get("name"), f"{path}.name").strip()
        subs = raw.get("subtopics", [])
        papers = raw.get("papers", [])
        if not isinstance(subs, list):
            raise ValueError(f"{path}.subtopics must be a list")
        if not isinstance(papers, list):
            raise ValueError(f"{path}.papers must be a list of paper numbers")
        for i, number in enumerate(papers):
            if isinstance(number, bool) or not isinstance(number, int):
                raise ValueError(f"{path}.papers[{i}] is {json.dumps(number)[:60]}, not a paper "
                                 "number (an integer from the Paper List)")
            if not 1 <= number <= n_papers:
                invented.append(number)
            elif number in seen:
                duplicates += 1
            else:
                seen.add(number)
                placed.append(number)
                node.papers.append(str(number))
        node.children = [TaxoNode("") for _ in subs]
        for i in range(len(subs) - 1, -1, -1):
            stack.append((subs[i], node.children[i], f"{path}.subtopics[{i}]"))
    if not root.children:
        raise ValueError("the root has no subtopics; a taxonomy needs at least one category "
                         "under the root")
    if not placed:
        raise ValueError(f"no paper number from 1 to {n_papers} was placed in the tree")
    return ParsedTree(root, invented, duplicates, placed)


def validate_extraction(kind: str, numbers: list[int]) -> Callable[[Any], dict[int, Any]]:
    def validate(value: Any) -> dict[int, Any]:
        if not isinstance(value, dict) or not isinstance(value.get("papers"), list):
            raise ValueError('expected {"papers": [...]}')
        out: dict[int, Any] = {}
        for i, entry in enumerate(value["papers"]):
            where = f"papers[{i}]"
            if not isinstance(entry, dict) or set(entry) != {"paper", kind}:
                raise ValueError(f'{where} must have exactly "paper" and "{kind}"')
            number = entry["paper"]
            if not isinstance(number, int) or isinstance(number, bool) or \
                    number not in numbers:
                raise ValueError(f"{where}.paper is {number!r}, not one of {numbers}")
            if number in out:
                raise ValueError(f"paper {number} appears twice")
            out[number] = _extraction_value(kind, entry[kind], f"{where}.{kind}")
        missing = [n for n in numbers if n not in out]
        if missing:
            raise ValueError(f"no entry for paper(s) {missing}")
        return out
    return validate


def _extraction_value(kind: str, raw: Any, where: str) -> Any:
    if kind == "core_task":
        text = _text(raw, where).strip()
        if not text:
            raise ValueError(f"{where} is empty")
        return text
    limit = 4 if kind == "summary" else 3
    if not isinstance(raw, list) or len(raw) > limit or (kind == "summary" and not raw):
        raise ValueError(f"{where} must be a list of {'1' if kind == 'summary' else '0'} to "
                         f"{limit} items")
    items = []
    for j, item in enumerate(raw):
        if not isinstance(item, dict) or set(item) != {"name", "description"}:
            raise ValueError(f'{where}[{j}] must have exactly "name" and "description"')
        items.append((_text(item["name"], f"{where}[{j}].name").strip(),
                      _text(item["description"], f"{where}[{j}].description").strip()))
    return items
