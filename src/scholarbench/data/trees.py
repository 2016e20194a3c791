"""Parse TaxoBench's nested-dict trees (`name` / `subtopics` / `papers`) into TaxoNode."""
from __future__ import annotations

from scholarbench.records import TaxoNode


class TreeError(ValueError):
    """A tree is malformed; `field` is the path to the offending value (e.g. gt.subtopics[2].name)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def parse_tree(obj: object, where: str) -> TaxoNode:
    """Iterative parse (a tree may be thousands of levels deep). `where` names the root field."""
    if not isinstance(obj, dict):
        raise TreeError(f"expected an object with 'name', got {type(obj).__name__}", where)
    root = TaxoNode(name="")
    stack: list[tuple[object, TaxoNode, str]] = [(obj, root, where)]
    while stack:
        raw, node, path = stack.pop()
        if not isinstance(raw, dict):
            raise TreeError(f"expected an object, got {type(raw).__name__}", path)
        unknown = set(raw) - {"name", "subtopics", "papers", "children"}
        if unknown:
            raise TreeError(f"unknown key(s) {sorted(unknown)}", path)
        name = raw.get("name")
        if not isinstance(name, str):
            raise TreeError(f"'name' must be a string, got {type(name).__name__}", f"{path}.name")
        node.name = name
        if "subtopics" in raw and "children" in raw:
            raise TreeError("give 'subtopics' or 'children', not both", path)
        key = "subtopics" if "subtopics" in raw else "children"
        subs = raw.get(key) or []
        if not isinstance(subs, list):
            raise TreeError(f"'{key}' must be a list", f"{path}.{key}")
        papers = raw.get("papers") or []
        if not isinstance(papers, list):
            raise TreeError("'papers' must be a list of titles", f"{path}.papers")
        for i, title in enumerate(papers):
            if not isinstance(title, str):
                raise TreeError(f"paper title must be a string, got {type(title).__name__}",
                                f"{path}.papers[{i}]")
        node.papers = list(papers)
        node.children = [TaxoNode(name="") for _ in subs]
        for i in range(len(subs) - 1, -1, -1):
            stack.append((subs[i], node.children[i], f"{path}.{key}[{i}]"))
    return root
