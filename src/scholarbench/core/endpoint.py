"""`--agent endpoint --model M --base-url URL`: an OpenAI-compatible endpoint is the whole agent.

Each sample's own task prompt (ReportBench's prompt, the TaxoBench / ResearchArena topic request,
the DeepSynth request with its constraints, the SciNet query) is sent as the user message, with a
short system message saying which answer form the benchmark reads (`format_hint=false` sends the
prompt alone, for products that must see nothing else). The reply is read into the family's
answer by `core.parse_text` (a reply that is not the family's answer — e.g. a judge-style
`{"score": 3}` — is `malformed`, with the reason); the benchmark resolves the references offline,
per task: a paper number the prompt asked for, an id or a title (`core.refs`). A failed call (after
the client's retries) raises, so the sample is `error` and retried on resume — never a result.

With `tools=true` (`--tools`) the endpoint gets the literature tools as OpenAI function-calling
tools and runs the bounded tool loop of `tools.function_calling` (budgets `max_steps`,
`max_calls`, `max_loop_tokens`) before its final answer is read as above; the engine binds the
tools to each sample's leakage rules and records every call.
"""
from __future__ import annotations

from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.parse_text import papers_from_text, report_from_text, taxonomy_from_text
from scholarbench.errors import ScholarbenchError

HINTS = {
    "taxonomy": "Answer with the taxonomy as Markdown headings (# root, ## categories, ### "
                "sub-categories), listing each paper's title as a bullet under its category; "
                "or as JSON {\"name\", \"subtopics\": [...], \"papers\": [titles]}.",
    "ranking": "Answer with a numbered list of papers, best first, one per line: the title, "
               "with its DOI or arXiv id when you know it.",
    "path": "Answer with the citation path as a numbered list of papers in order, from the "
            "first paper to the last, one per line: the title, with its DOI or arXiv id.",
    "report": "Answer with the report in Markdown, citing your sources with a numbered "
              "reference list at the end (titles, with DOIs, arXiv ids or URLs).",
}


class EndpointAgent:
    name = "endpoint"

    def __init__(self, format_hint: bool = True, max_tokens: int | None = None,
                 system: str | None = None, tools: bool = False, max_steps: int = 8,
                 max_calls: int = 24, max_loop_tokens: int | None = None) -> None:
        self.format_hint, self.max_tokens, self.system = bool(format_hint), max_tokens, system
        self.tools = bool(tools)
        self.budget = None
        if self.tools:
            # deferred: pulls in duckdb, pyarrow
            from scholarbench.tools.function_calling import ToolBudget
            try:
                self.budget = ToolBudget(max_steps, max_calls, max_loop_tokens)
            except ValueError as exc:
                raise ScholarbenchError(f"--agent endpoint: {exc}") from None
        self.needs = Needs(llm=True, tools=self.tools)

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return family in HINTS

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format_hint": self.format_hint, "max_tokens": self.max_tokens,
                               "system": self.system}
        if self.budget is not None:     # runs without tools keep their recorded config
            out["tools"] = self.budget.config()
        return out

    def messages(self, task: Task) -> list[dict[str, str]]:
        system = self.system or (HINTS[task.family] if self.format_hint else None)
        if self.tools and not self.system:
            # deferred: pulls in duckdb, pyarrow
            from scholarbench.tools.function_calling import GUIDE
            system = f"{GUIDE}\n\n{system}" if system else GUIDE
        msgs = [{"role": "system", "content": system}] if system else []
        return msgs + [{"role": "user", "content": task.prompt}]

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        if ctx.llm is None:
            raise RuntimeError("the endpoint agent needs the agent model (--model, --base-url)")
        if self.budget is not None:
            if ctx.tools is None:
                raise RuntimeError("--tools: the engine gave this sample no tools")
            # deferred: pulls in duckdb, pyarrow
            from scholarbench.tools.function_calling import tool_loop
            text, info = tool_loop(ctx.llm, ctx.tools, self.messages(task), self.budget,
                                   self.max_tokens, request_seed(ctx))
            info["reply_chars"] = len(text)
        else:
            seed = request_seed(ctx)
            reply = ctx.llm.complete(self.messages(task), max_tokens=self.max_tokens,
                                     **({} if seed is None else {"seed": seed}))
            text = reply.text or ""
            info = {"reply_chars": len(text)}
        return read_reply(task, text, info)


def read_reply(task: Task, text: str, info: dict[str, Any]) -> dict[str, Any]:
    """The family's answer read from a reply's text (offline; the benchmark resolves its
    references), with `info` beside it: the endpoint agent's, and an Inspect solver's
    (`inspect_tasks.scorer`)."""
    if task.family == "report":
        return {"report": report_from_text(text), "info": info}
    if task.family == "taxonomy":
        topic = str(task.fields.get("topic") or "root")
        return {**taxonomy_from_text(text, topic), "info": info}
    return {"papers": papers_from_text(text), "info": info}


def request_seed(ctx: AgentContext) -> int | None:
    """The chat request's seed in epoch e > 1 of `--epochs K`: the model's configured seed
    (0 if none) plus the epoch's (`core.epochs`), so the epoch is a new request (not the reply
    cache's answer to epoch 1); None (the configured seed) otherwise."""
    if ctx.epoch is None or ctx.epoch == 1:
        return None
    configured = getattr(getattr(ctx.llm, "config", None), "seed", None)
    return (configured if isinstance(configured, int) else 0) + ctx.seed
