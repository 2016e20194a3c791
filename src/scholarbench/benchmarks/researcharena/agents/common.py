"""What ResearchArena's LLM agents share: their prompts (this package's ``prompts/``), the
discovery / selection agents' common part, and the helpers of `scholarbench.agents.llm_common`
(re-exported: query clean-up, retrieval with the leakage filters, rank fusion, `LLMTrace`).

Prompt files are read verbatim and versioned by their file name (see `agents.llm_common`); an
agent records the names and sha256 of the prompts it uses in its config. A name not among this
benchmark's prompts is looked up among the shared ones (the deep-research loop's decide prompt).
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from scholarbench.agents.llm_common import (FUSIONS, SEARCHES, LLMTrace, Retrieval,  # noqa: F401
                                            bullet_lines, clean_query, fuse, indices, numbered,
                                            pinned_ranking, positive_int, tagged_block, user)
from scholarbench.agents.llm_common import load_prompt as load_shared_prompt
from scholarbench.llm.prompts import Prompt, load_package_prompt

PACKAGE = "scholarbench.benchmarks.researcharena"


def load_prompt(name: str) -> Prompt:
    """``benchmarks/researcharena/prompts/<name>.txt``, else the shared prompt of that name."""
    try:
        return load_package_prompt(PACKAGE, name)
    except ValueError:
        return load_shared_prompt(name)


def load_lines(name: str) -> list[dict[str, Any]]:
    """A JSON-lines data file among the prompts (e.g. the few-shot examples)."""
    return [json.loads(line) for line in load_prompt(name).text.splitlines() if line.strip()]


class LLMRankingAgent:
    """Discovery / selection agents that ask the run's agent model (`ctx.llm`) and search the
    corpus with the leakage filters (`base.search_filters`)."""
    name = ""
    uses_llm = True
    tasks = ("discovery", "selection")
    needs_corpus = True
    needs_embedder = False        # set per instance: dense and hybrid search need one

    def _setup(self, k: int, search: str, fields: str, max_tokens: int) -> None:
        self.k = positive_int(self.name, "k", k)
        self.retrieval = Retrieval(search, fields)
        self.needs_embedder = self.retrieval.needs_embedder
        self.max_tokens = positive_int(self.name, "max_tokens", max_tokens)

    def _choice(self, option: str, value: str, choices: Sequence[str]) -> str:
        """`value` when it is one of `choices`, else ValueError naming the agent and option."""
        if value not in choices:
            raise ValueError(f"{self.name}: {option} must be one of {', '.join(choices)}")
        return value

    def _base_config(self, *prompts: str) -> dict[str, Any]:
        return {"k": self.k, **self.retrieval.config(), "max_tokens": self.max_tokens,
                "prompts": [load_prompt(p).identity() for p in prompts],
                "filters": "non-survey, before cut-off, survey excluded"}

    def _context(self, ctx: Any) -> tuple[Any, LLMTrace]:
        """The corpus and a fresh trace over the agent model; ValueError when either is absent."""
        if ctx.corpus is None:
            raise ValueError(f"{self.name} needs a corpus (run with --corpus, or let the CLI "
                             "build the default one)")
        if ctx.llm is None:
            raise ValueError(f"{self.name} needs the agent chat model (ctx.llm)")
        if self.needs_embedder and ctx.embedder is None:
            raise ValueError(f"{self.name} with search={self.retrieval.search} needs an embedder")
        return ctx.corpus, LLMTrace(ctx.llm, self.max_tokens)
