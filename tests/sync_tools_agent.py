"""A user's plain function that searches with the synchronous tools handle: no asyncio, no
MCP SDK — `task["tools"].search(...)`, then the citations of the best hit; a refused call
raises `ToolError`, which the agent catches and goes on."""
from __future__ import annotations

from scholarbench.tools.session import ToolError


def solve(task: dict) -> dict:
    tools = task["tools"]
    assert tools["mcp_url"].startswith("http://127.0.0.1:")      # the MCP address is beside it
    hits = tools.search(task["topic"], k=5)["results"]
    ids = [h["id"] for h in hits]
    if ids:
        tools.citations(ids[0], k=3)
    try:
        tools.search("", k=5)                  # refused: the query may not be empty
    except ToolError:
        pass
    return {"papers": ids}


solve.tools = True
