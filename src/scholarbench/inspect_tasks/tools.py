"""The literature tools (docs/tools.md) as Inspect tools, bound to each sample's leakage rules.

`literature_tools(data)` is a solver step: for the sample being solved it opens a
`tools.session.ToolSession` on the benchmark's tool corpus with that sample's rules
(`Benchmark.tool_source`: as the engine's `tools.provider.ToolProvider` and the MCP server do)
and sets `state.tools` to one Inspect tool per literature tool — same names, descriptions and
argument schemas (`tools.schemas.TOOLS`, the models the MCP server and the function-calling
loop use). Every call goes through `ToolSession.call`: arguments validated, hidden papers never
returned; a call the tool cannot answer is an Inspect `ToolError`, whose text goes back to the
model. A result is cut at the endpoint loop's cap (`function_calling.RESULT_CHARS`), as the
endpoint agent's model reads it. Inspect's own `ToolEvent`s keep the calls and results in the
sample's log.
"""
from __future__ import annotations

import json
from typing import Any

import anyio
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolDef, ToolError as InspectToolError, ToolParams

from scholarbench.inspect_tasks.dataset import TaskData
from scholarbench.tools.function_calling import RESULT_CHARS
from scholarbench.tools.provider import ToolProvider
from scholarbench.tools.schemas import TOOLS, ToolSpec
from scholarbench.tools.session import ToolError, ToolSession

def tool_provider(data: TaskData) -> ToolProvider:
    """The benchmark's tool corpus, opened once for the task (a benchmark without tools says
    so as a `ScholarbenchError`)."""
    return ToolProvider(data.bench, data.subtask)


def inspect_tool(session: ToolSession, spec: ToolSpec) -> Tool:
    """`spec` as an Inspect tool calling `session`."""
    async def run(**arguments: Any) -> str:
        try:
            result = await anyio.to_thread.run_sync(
                lambda: session.call(spec.name, arguments, via="inspect"))
        except ToolError as exc:
            raise InspectToolError(str(exc)) from None
        text = json.dumps(result, ensure_ascii=False, default=str)
        return text if len(text) <= RESULT_CHARS else text[:RESULT_CHARS] + " …(cut)"

    return ToolDef(run, name=spec.name, description=spec.description,
                   parameters=ToolParams.model_validate(spec.json_schema())).as_tool()


@solver
def literature_tools(data: TaskData) -> Solver:
    """Offer the sample its literature tools (module docstring)."""
    if data.tools is None:
        data.tools = tool_provider(data)
    provider: ToolProvider = data.tools

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sample = data.samples[str(state.sample_id)]
        session = provider.for_sample(sample, None).session
        state.tools = [inspect_tool(session, spec) for spec in TOOLS.values()]
        return state

    return solve


__all__ = ["inspect_tool", "literature_tools", "tool_provider"]
