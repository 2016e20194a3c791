"""The literature tools as OpenAI function-calling tools: the loop of `--agent endpoint --tools`.

Each step sends the conversation with the tool schemas (`schemas.TOOLS`, the MCP server's own);
a reply with tool calls gets each call run through the sample's `ToolSession` (so the leakage
rules and the recording are the MCP server's) and its JSON result — or the tool's error text —
appended as a `tool` message; a reply without tool calls is the final answer.

Budgets (`ToolBudget`), all recorded in the answer's `info`:
- `max_steps` model turns that may call tools (default 8);
- `max_calls` tool calls in all (default 24) — calls past it are answered "budget exhausted";
- `max_tokens` prompt + completion tokens over the whole loop (default none).
When a budget runs out, one last turn is sent with `tool_choice="none"` and an instruction to
answer now, so the sample still gets an answer from what was found.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from scholarbench.tools.schemas import TOOLS
from scholarbench.tools.session import ToolError

RESULT_CHARS = 20_000        # a tool result longer than this is cut before the model sees it
ANSWER_NOW = ("The tool budget is used up. Answer now with what you have found, in the answer "
              "form asked for.")
GUIDE = ("You can search an offline scholarly corpus with the tools given (search, get_paper, "
         "references, citations, co_cited, coupled, citation_contexts). Papers the task may "
         "not use are hidden from every tool. When you have enough, reply with the final "
         "answer and no tool calls.")


@dataclass(frozen=True)
class ToolBudget:
    max_steps: int = 8
    max_calls: int = 24
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_calls"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"tool budget {name} must be a positive integer")
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            raise ValueError("tool budget max_tokens must be a positive integer or none")

    def config(self) -> dict[str, Any]:
        return asdict(self)


def openai_tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": spec.name, "description": spec.description,
                                              "parameters": spec.json_schema()}}
            for spec in TOOLS.values()]


def _run_call(tools: Any, name: str, arguments: str) -> str:
    try:
        args = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        args, raw = None, arguments           # recorded in the trajectory as sent
    else:
        raw = None
    try:
        result = tools.call(name, args, raw=raw) if raw is not None else tools.call(name, args)
    except ToolError as exc:
        return f"error: {exc}"
    text = json.dumps(result, ensure_ascii=False, default=str)
    return text if len(text) <= RESULT_CHARS else text[:RESULT_CHARS] + " …(cut)"


def tool_loop(llm: Any, tools: Any, messages: list[dict[str, Any]], budget: ToolBudget,
              max_tokens: int | None = None, seed: int | None = None
              ) -> tuple[str, dict[str, Any]]:
    """(final text, info) for one sample; a model call that fails raises (the sample errors).
    `seed`: every call's seed (an epoch's, `core.endpoint.request_seed`; None: the model's)."""
    messages = list(messages)
    sampling = {} if seed is None else {"seed": seed}
    schemas = openai_tools()
    calls = tokens = steps = 0
    stopped = "answer"
    while True:
        final = steps >= budget.max_steps or calls >= budget.max_calls or (
            budget.max_tokens is not None and tokens >= budget.max_tokens)
        if final:
            stopped = ("max_steps" if steps >= budget.max_steps else
                       "max_calls" if calls >= budget.max_calls else "max_tokens")
            messages.append({"role": "user", "content": ANSWER_NOW})
        reply = llm.complete(messages, tools=schemas, tool_choice="none" if final else "auto",
                             max_tokens=max_tokens, **sampling)
        tokens += reply.prompt_tokens + reply.completion_tokens
        if final or not reply.tool_calls:
            return reply.text or "", {"tool_steps": steps, "tool_calls": calls,
                                      "tool_loop_tokens": tokens, "tool_stopped": stopped}
        steps += 1
        messages.append({"role": "assistant", "content": reply.text or None,
                         "tool_calls": [{"id": c.id, "type": "function",
                                         "function": {"name": c.name,
                                                      "arguments": c.arguments}}
                                        for c in reply.tool_calls]})
        for call in reply.tool_calls:
            if calls >= budget.max_calls:
                content = "error: tool-call budget exhausted"
            else:
                calls += 1
                content = _run_call(tools, call.name, call.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
