"""`task["tools"]` for a plain-function agent: the sample's literature tools as synchronous
Python methods beside the MCP addresses.

A function marked `tools = True` gets a `ToolsHandle`: a dict with the MCP server's `mcp_url`,
`mcp_stdio` and `rules` (as before, for an agent that is its own MCP client), and methods that
call the same session in process, with no asyncio and no MCP SDK:

    hits = task["tools"].search("graph attention", k=5)["results"]
    task["tools"].citations(hits[0]["id"])
    task["tools"].call("get_paper", {"paper": "arxiv:1706.03762"})

Each method takes the tool's first argument positionally and the others by keyword (the same
names and limits as the MCP tools, `tools.schemas`), returns the tool's JSON result as a dict,
and raises `tools.session.ToolError` on arguments the tool refuses. Every call is recorded in
the sample's trajectory (`tools.jsonl`) and runs under the sample's leakage rules, as over MCP.
"""
from __future__ import annotations

from typing import Any

# each tool's first (required) argument, given positionally
_FIRST = {"search": "query", "get_paper": "paper", "references": "paper", "citations": "paper",
          "co_cited": "paper", "coupled": "paper", "citation_contexts": "paper"}


class ToolsHandle(dict):  # type: ignore[type-arg]
    """The MCP addresses (dict keys) plus one synchronous method per tool (module docstring)."""

    def __init__(self, session: Any, addresses: dict[str, Any]) -> None:
        super().__init__(addresses)
        self._session = session

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Any tool by name with its arguments as a dict."""
        return self._session.call(name, dict(arguments or {}))

    def _tool(self, name: str, first: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        return self.call(name, {_FIRST[name]: first, **kwargs})

    def search(self, query: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("search", query, kwargs)

    def get_paper(self, paper: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("get_paper", paper, kwargs)

    def references(self, paper: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("references", paper, kwargs)

    def citations(self, paper: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("citations", paper, kwargs)

    def co_cited(self, paper: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("co_cited", paper, kwargs)

    def coupled(self, paper: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("coupled", paper, kwargs)

    def citation_contexts(self, paper: str, **kwargs: Any) -> dict[str, Any]:
        return self._tool("citation_contexts", paper, kwargs)
