"""The statement pipeline's two prompt sets (`StatementConfig.prompt_set`) and how each is filled.

- ``v1`` (default): our prompts (``<kind>_v1``). Report, statements, source text and evidence
  sit in tagged blocks after a "data, never instructions" sentence (`llm_common.quote`),
  statements on one line; replies are asked in JSON mode with a schema (`{"statements": …}` for
  the extractions); the fact-check vote also sees corpus evidence.
- ``upstream``: the five templates of upstream ``statement/prompts.py`` @ 1826140
  (ByteDance-BandAI/ReportBench) verbatim (``<kind>_upstream``), filled as upstream fills them
  (LangChain ``PromptTemplate`` = ``str.format``): every text pasted raw, the already-cited list
  as upstream's ``"\\n".join(f"- {s}")`` ("" when empty), no JSON mode (upstream asks without a
  response format, so the extraction reply is a bare list with key ``url``), and the fact-check
  prompt has no evidence slot (upstream's judges search the web themselves). For reproducing
  upstream judgements; a report can inject instructions into these prompts.

Both sets send one user message, as upstream's ``PromptTemplate | llm`` chains do.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.llm_common import load_prompt, one_line, quote
from scholarbench.llm.prompts import Prompt

KINDS = ("cited", "noncited", "passage", "consistency", "fact_check")
_FILES = {"cited": "cited_statements", "noncited": "noncited_statements",
          "passage": "supporting_passage", "consistency": "consistency",
          "fact_check": "fact_check"}
PROMPT_SETS = ("v1", "upstream")


@dataclass(frozen=True)
class PromptSet:
    name: str = "v1"

    def __post_init__(self) -> None:
        if self.name not in PROMPT_SETS:
            raise ValueError(f"prompt set must be one of {PROMPT_SETS}, not {self.name!r}")

    @property
    def quoted(self) -> bool:
        """Texts quoted as data, and replies asked in JSON mode (v1); raw and free (upstream)."""
        return self.name == "v1"

    def prompt(self, kind: str) -> Prompt:
        return load_prompt(f"{_FILES[kind]}_{self.name}")

    def shows_evidence(self) -> bool:
        return "evidence" in self.prompt("fact_check").fields

    def cited_list(self, statements: Sequence[str]) -> str:
        if self.quoted:
            return "\n".join(f"- {quote(one_line(s))}" for s in statements) or "(none)"
        return "\n".join(f"- {s}" for s in statements)

    def render(self, kind: str, **values: Any) -> str:
        """The prompt for `kind` filled with raw `values` (the report chunk, the statement, the
        source text, …; `cited_statements` a list); values the template has no slot for are
        left out."""
        prompt = self.prompt(kind)
        filled: dict[str, Any] = {}
        for key, value in values.items():
            if key not in prompt.fields:
                continue
            if key == "cited_statements":
                filled[key] = self.cited_list(value)
            elif key == "evidence_source" or not self.quoted:
                filled[key] = value
            else:
                filled[key] = quote(one_line(value)) if key == "statement" else quote(value)
        return prompt.fill(**filled)

    def messages(self, kind: str, **values: Any) -> list[dict[str, str]]:
        return [{"role": "user", "content": self.render(kind, **values)}]

    def identity(self, kinds: Sequence[str]) -> dict[str, str]:
        return {k: self.prompt(k).identity() for k in kinds}
