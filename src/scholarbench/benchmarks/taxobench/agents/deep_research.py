"""`deep-research` (TaxoBench, Deep Research mode): the generic deep-research loop
(`agents/deep_research.py`: search → read → decide → answer) finds the papers for the survey
topic in the offline corpus, then `llm-taxonomy`'s builder organises them.

Retrieval. The environment is the literature tools (`tools/`, `ToolEnv`; under the engine the
sample's own session, its calls in tools.jsonl) with BM25 over `fields` (default "title", as
`bm25-title`) and one rule, the TaxoBench leakage rule of `bm25-title` and
`llm-taxonomy`: every corpus paper whose normalised title is the survey's or the topic's
(`Corpus.resolve_all`) is excluded before any top k is taken. TaxoBench gives no cut-off date, so
there is no date filter (as in `bm25-title`). The first query is the topic. Reading shows titles
(and years) only by default (``abstract_chars=0``, ``paragraph_chars=0``): in the default corpus
only TaxoBench's own papers carry abstracts, so showing them would let "has an abstract" steer
the model's relevance judgements towards the expert papers (the reason `bm25-title` indexes
titles only). The loop's answer — papers judged relevant first, then the fused search lists,
then the papers judged irrelevant — is cut to `k` (50, llm-taxonomy's default); that whole list
is ``retrieved_papers`` and the builder's input.

Building. The retrieved papers are handed to an `LLMTaxonomyAgent` (all of its options pass
through: ``input``, ``max_depth``, ``extract_batch``, ``dropped``, ``max_tokens``, …) as a
Bottom-Up instance whose paper set is the retrieved list: the same prompts, parsing rules and
counts as `llm-taxonomy`, no copy. ``retrieved_papers`` is set on the builder's prediction
whatever became of the taxonomy, so retrieval is scored even when the tree is not.

Failures (never raised):
- a decide call that fails after the client's retries, or whose JSON stays malformed after one
  repair, ends the loop with what was found so far (the loop's rule: ``stopped =
  "llm_failure"``, the answer is the fused ranking of the searches already run); counted in
  ``info["research_llm_failed"]`` / ``["research_llm_unscored"]`` and named in
  ``info["fallback"]``;
- the taxonomy call failing gives llm-taxonomy's outcome: no tree, an ``error``, the retrieved
  list kept;
- a loop that retrieves nothing gives no tree and the error "the deep-research loop retrieved no
  paper for the topic" (as `llm-taxonomy`'s empty retrieval).

``info`` (generate.jsonl; whole numbers are summed in summary.json ``agent_info``): the builder's
counts, ``research_llm_calls``/``_failed``/``_unscored``, ``research_queries``,
``judged_relevant``, ``judged_irrelevant``, and ``research`` (queries, notes, stop reason,
per-step trace).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.taxobench.agents.base import AgentContext
from scholarbench.agents.deep_research import (DECIDE_PROMPT, DeepResearchSettings, ToolEnv,
                                               deep_research, session_for)
from scholarbench.benchmarks.taxobench.agents.llm_taxonomy import LLMTaxonomyAgent
from scholarbench.agents.llm_common import Retrieval, load_prompt, positive_int
from scholarbench.records import TaxoPrediction, TaxoTask
from scholarbench.benchmarks.taxobench.agents import register_taxo_agent
from scholarbench.corpus.store import Corpus
from scholarbench.text.normalize import normalize_title
from scholarbench.tools.rules import AccessRules

NOTHING_FOUND = "the deep-research loop retrieved no paper for the topic"


def survey_exclusions(corpus: Any, task: TaxoTask) -> set[str]:
    """bm25-title's leakage rule: every corpus paper whose normalised title is the survey's or
    the topic's (paper ids derive from the normalised title, so every spelling goes)."""
    return {pid for t in (task.survey, task.topic) if normalize_title(t)
            for pid in corpus.resolve_all(t)}


@register_taxo_agent("deep-research")
class DeepResearchTaxoAgent:
    name = "deep-research"
    modes = ("deep-research",)
    needs_corpus = True
    uses_llm = True
    uses_tools = True          # searches and reads through the literature tools

    def __init__(self, k: int = 50, max_steps: int = 4, depth: int = 50, read_per_step: int = 5,
                 max_read: int = 20, abstract_chars: int = 0, paragraph_chars: int = 0,
                 fields: str = "title", research_tokens: int = 384,
                 **builder_params: Any) -> None:
        self.settings = DeepResearchSettings(max_steps=max_steps, depth=depth,
                                             read_per_step=read_per_step, max_read=max_read,
                                             k=positive_int(self.name, "k", k),
                                             max_tokens=research_tokens)
        self.retrieval = Retrieval("bm25", fields)
        self.abstract_chars = positive_int(self.name, "abstract_chars", abstract_chars, 0)
        self.paragraph_chars = positive_int(self.name, "paragraph_chars", paragraph_chars, 0)
        # the builder: llm-taxonomy itself (its own retrieval is never used here)
        self.builder = LLMTaxonomyAgent(k=self.settings.k, **builder_params)
        self._corpus: Any = None
        self._corpus_dir: Path | None = None

    def config(self) -> dict[str, Any]:
        builder = {k: v for k, v in self.builder.config().items() if k != "retrieval"}
        return {"research": {**self.settings.config(), **self.retrieval.config(),
                             "abstract_chars": self.abstract_chars,
                             "paragraph_chars": self.paragraph_chars,
                             "first_query": "topic",
                             "exclude": "survey and topic titles (bm25-title's rule)",
                             "prompt": load_prompt(DECIDE_PROMPT).identity()},
                "builder": {"agent": "llm-taxonomy", **builder}}

    def corpus(self, corpus_dir: Path | None) -> Any:
        """The opened corpus, cached per directory."""
        if corpus_dir is None:
            raise ValueError("deep-research needs a corpus: ctx.corpus_dir is None")
        corpus_dir = Path(corpus_dir)
        if self._corpus is None or self._corpus_dir != corpus_dir:
            self._corpus, self._corpus_dir = Corpus.open(corpus_dir), corpus_dir
        return self._corpus

    def research(self, task: TaxoTask, ctx: AgentContext):
        """The loop's result for the task's topic (`DeepResearchResult`) and the corpus."""
        corpus = self.corpus(ctx.corpus_dir)
        tools = session_for(getattr(ctx, "tools", None), corpus,
                            AccessRules(exclude_ids=tuple(sorted(survey_exclusions(corpus,
                                                                                   task)))),
                            ctx.embedder)
        env = ToolEnv(tools, self.retrieval.search, self.retrieval.fields, self.abstract_chars,
                      self.paragraph_chars)
        return deep_research(task.topic, env, ctx.llm, self.settings), corpus

    def generate(self, task: TaxoTask, ctx: AgentContext) -> TaxoPrediction:
        if ctx.llm is None:
            raise ValueError("deep-research needs the agent role's chat client (ctx.llm)")
        result, corpus = self.research(task, ctx)
        found = corpus.get_by_ids([pid for pid, _ in result.ranking])
        retrieved = [p.title for p in found]
        trace = result.trace.info() if result.trace is not None else {"llm": {}}
        info: dict[str, Any] = {
            "research_llm_calls": trace["llm"].get("calls", 0),
            "research_llm_failed": trace["llm"].get("failed", 0),
            "research_llm_unscored": trace["llm"].get("unscored", 0),
            "research_queries": len(result.queries), "judged_relevant": len(result.relevant),
            "judged_irrelevant": len(result.irrelevant)}
        if "fallback" in trace:
            info["fallback"] = trace["fallback"]
        info["research"] = {k: v for k, v in result.info().items()
                            if k not in ("llm", "fallback", "judged_relevant",
                                         "judged_irrelevant")}
        if not found:
            return TaxoPrediction(task.id, None, retrieved=[], error=NOTHING_FOUND, info=info)
        pred = self.builder.generate(replace(task, papers=found), replace(ctx, mode="bottom-up"))
        pred.retrieved = retrieved
        pred.info = {**pred.info, **info}
        return pred
