"""A user's agent that is its own process talking MCP: a plain function (`tools = True`) that
gets the sample's tools server and drives it with the `mcp` SDK's client — over streamable HTTP,
and over stdio by launching the command it was given — then answers with what it found."""
from __future__ import annotations

import asyncio
import json


async def _ask(target, topic: str) -> list[str]:
    from mcp import Client
    async with Client(target, read_timeout_seconds=120) as client:
        found = await client.call_tool("search", {"query": topic, "k": 5})
        ids = [r["id"] for r in json.loads(found.content[0].text)["results"]]
        if ids:
            await client.call_tool("citations", {"paper": ids[0]})
        return ids


def solve(task: dict) -> dict:
    from mcp import StdioServerParameters
    tools = task["tools"]
    over_http = asyncio.run(_ask(tools["mcp_url"], task["topic"]))
    stdio = tools["mcp_stdio"]
    server = StdioServerParameters(command=stdio["command"], args=stdio["args"],
                                   env=stdio["env"])
    over_stdio = asyncio.run(_ask(server, task["topic"]))
    assert over_http == over_stdio, (over_http, over_stdio)
    return {"papers": over_http}


solve.tools = True
