"""`--agent endpoint --model M --base-url URL`: an OpenAI-compatible endpoint is the whole agent.

Each sample's own task prompt (ReportBench's prompt, the TaxoBench / ResearchArena topic request,
the DeepSynth request with its constraints, the SciNet query) is sent as the user message, with a
short system message saying which answer form the benchmark reads (`format_hint=false` sends the
prompt alone, for products that must see nothing else). The reply is read into the family's
answer by `core.parse_text`; the benchmark resolves the references offline. A failed call (after
the client's retries) raises, so the sample is `error` and retried on resume — never a result.
"""
from __future__ import annotations

from typing import Any

from scholarbench.core.agent import AgentContext, Needs, Task
from scholarbench.core.parse_text import papers_from_text, taxonomy_from_text

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
    needs = Needs(llm=True)

    def __init__(self, format_hint: bool = True, max_tokens: int | None = None,
                 system: str | None = None) -> None:
        self.format_hint, self.max_tokens, self.system = bool(format_hint), max_tokens, system

    def fits(self, benchmark: str, subtask: str | None, family: str) -> bool:
        return family in HINTS

    def config(self) -> dict[str, Any]:
        return {"format_hint": self.format_hint, "max_tokens": self.max_tokens,
                "system": self.system}

    def messages(self, task: Task) -> list[dict[str, str]]:
        system = self.system or (HINTS[task.family] if self.format_hint else None)
        msgs = [{"role": "system", "content": system}] if system else []
        return msgs + [{"role": "user", "content": task.prompt}]

    def solve(self, task: Task, ctx: AgentContext) -> dict[str, Any]:
        if ctx.llm is None:
            raise RuntimeError("the endpoint agent needs the agent model (--model, --base-url)")
        reply = ctx.llm.complete(self.messages(task), max_tokens=self.max_tokens)
        text = reply.text or ""
        info = {"reply_chars": len(text)}
        if task.family == "report":
            return {"report": text, "info": info}
        if task.family == "taxonomy":
            topic = str(task.fields.get("topic") or "root")
            return {**taxonomy_from_text(text, topic), "info": info}
        return {"papers": papers_from_text(text), "info": info}
