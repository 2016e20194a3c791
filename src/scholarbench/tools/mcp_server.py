"""The literature tools as an MCP server (the official `mcp` SDK's low-level `Server`).

The low-level server is used rather than `MCPServer`'s decorators so the input schemas are the
pydantic models of `schemas.py` — the same ones the OpenAI function-calling loop sends — and
every call goes through `ToolSession.call` (validation, leakage rules, recording). A failed call
is an MCP tool error (`isError`), never a crash of the server. Tool work runs in a worker thread,
so one slow query does not stall other requests of an HTTP server.

Transports: stdio (`serve_stdio`), and streamable HTTP on a loopback address only (`HttpServer`,
uvicorn in a background thread; used by the engine to hand an agent process a URL, and by
`scholarbench tools serve --http PORT`).
"""
from __future__ import annotations

import functools
import json
import threading
import time
from typing import Any

import anyio

from scholarbench.errors import ScholarbenchError
from scholarbench.hosts import is_loopback_host
from scholarbench.tools.schemas import TOOLS
from scholarbench.tools.session import ToolError, ToolSession



def build_server(session: ToolSession, via: str, name: str = "scholarbench-literature") -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=spec.name, description=spec.description,
                        input_schema=spec.json_schema()) for spec in TOOLS.values()]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        try:
            result = await anyio.to_thread.run_sync(
                functools.partial(session.call, params.name, params.arguments or {}, via=via))
        except ToolError as exc:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(exc))],
                                        is_error=True)
        text = json.dumps(result, ensure_ascii=False, default=str)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=json.loads(text))

    return Server(name, instructions=instructions(session), on_list_tools=list_tools,
                  on_call_tool=call_tool)


def instructions(session: ToolSession) -> str:
    task = f" for task {session.sample_id}" if session.sample_id else ""
    return (f"Offline scholarly literature{task}: {session.rules.describe()}. "
            f"{session.visible.count()} papers are visible. Papers the task may not see are "
            "never returned: a lookup of one fails as for a paper that does not exist.")


def serve_stdio(session: ToolSession) -> None:
    from mcp.server.stdio import stdio_server
    server = build_server(session, "stdio")

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    anyio.run(main)


class HttpServer:
    """Streamable HTTP on a loopback port (0 = any free port), in a daemon thread.
    `with HttpServer(session) as url:` — stopped on exit."""

    def __init__(self, session: ToolSession, host: str = "127.0.0.1", port: int = 0) -> None:
        if not is_loopback_host(host):
            raise ScholarbenchError(f"the tools server listens on loopback only, not {host!r}")
        import uvicorn
        app = build_server(session, "http").streamable_http_app(streamable_http_path="/mcp", host=host)
        self._server = uvicorn.Server(uvicorn.Config(app, host=host, port=port,
                                                     log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, daemon=True,
                                        name="scholarbench-mcp")
        self.host = host

    @property
    def url(self) -> str:
        sock = self._server.servers[0].sockets[0]
        return f"http://{self.host}:{sock.getsockname()[1]}/mcp"

    def start(self, timeout: float = 30.0) -> str:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ScholarbenchError("the MCP tools server did not start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
