"""Try to reach hidden papers through every tool (no tests here; the test_tools_* modules use it).

`sweep_calls(hidden, visible)` lists the calls an agent could make to name or stumble on a hidden
paper — search by its title (each mode given, both field sets), lookup by each of its ids and by
its title, the graph tools on it, and references / citations / co_cited / coupled /
citation_contexts of every visible paper. `leaked(results, hidden)` is every hidden id anywhere
in the answers (results, contexts, `cites` lists). `run_in_process` runs them on a ToolSession.
"""
from __future__ import annotations

from typing import Any, Iterable

GRAPH_TOOLS = ("references", "citations", "co_cited", "coupled", "citation_contexts")


def sweep_calls(hidden: dict[str, dict[str, Any]], visible: Iterable[str],
                modes: Iterable[str] = ("bm25",)) -> list[tuple[str, dict[str, Any]]]:
    """`hidden`: paper_id → {"title": …, "ids": [every identifier]}."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for pid, info in sorted(hidden.items()):
        for mode in modes:
            for fields in ("title", "title+abstract"):
                calls.append(("search", {"query": info["title"], "k": 100, "mode": mode,
                                         "fields": fields}))
        for ref in sorted({pid, info["title"], *info.get("ids", ())}):
            calls.append(("get_paper", {"paper": ref, "paragraphs": 20}))
            calls.extend((tool, {"paper": ref}) for tool in GRAPH_TOOLS)
    for pid in sorted(visible):
        calls.append(("get_paper", {"paper": pid, "paragraphs": 20}))
        calls.extend((tool, {"paper": pid, "k": 50}) for tool in GRAPH_TOOLS)
    return calls


def ids_in(result: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(result, dict):
        for key, value in result.items():
            if key in ("id", "paper") and isinstance(value, str):
                found.add(value)
            elif key in ("cites", "also_cites", "ids") and isinstance(value, list):
                found.update(v for v in value if isinstance(v, str))
            else:
                found |= ids_in(value)
    elif isinstance(result, list):
        for item in result:
            found |= ids_in(item)
    return found


def leaked(results: Iterable[Any], hidden: dict[str, dict[str, Any]]) -> set[str]:
    names = set(hidden) | {i for info in hidden.values() for i in info.get("ids", ())}
    out: set[str] = set()
    for result in results:
        out |= ids_in(result) & names
    return out


def run_in_process(session: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's result, or the ToolError it raised."""
    from scholarbench.tools.session import ToolError
    out: list[Any] = []
    for name, args in calls:
        try:
            out.append(session.call(name, args))
        except ToolError as exc:
            out.append(exc)
    return out
