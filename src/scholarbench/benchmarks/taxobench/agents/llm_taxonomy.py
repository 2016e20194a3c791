"""`llm-taxonomy`: a chat model builds the taxonomy (TaxoBench §4, appendix C.2, E.1-E.2).

Bottom-Up mode: the model gets the survey topic and the expert paper set and returns one tree with
the papers at its leaves. Deep Research mode: the papers are first retrieved from the corpus by
the `bm25-title` agent's retrieval (BM25 with the topic as query, the survey excluded, top `k`),
then organised the same way; `retrieved_papers` is the whole retrieved list.

Input granularities (paper §4 "Input Settings", upstream `setting_pipeline/eval_setting{1,2,3}`):

    input=title-abstract   Title + Abstract
    input=summary          + a structured summary of each paper, extracted by the model
    input=core-task        + each paper's core task and contributions, extracted by the model

Extraction reads only the title and abstract (we have no full texts). Papers are extracted in
batches of `extract_batch` (fixed chunks of the instance's paper list, so a re-run asks the same
questions and is answered from the persistent reply cache); the reply must cover exactly the
batch's papers. A batch that still fails after its repair turn is retried one paper at a time; a
paper whose extraction fails even alone is shown as "N/A" (upstream's placeholder) and counted
in `info["extraction_failures"]`.

The taxonomy reply is parsed strictly into a tree (`name`, `subtopics`, `papers`, nothing else),
its leaves holding paper *numbers* from the prompt's Paper List (upstream asks for titles; numbers
make the mapping exact and the reply short). Rules for what the model gets wrong:

- a number outside the list is ignored and counted (`invented`);
- a paper placed twice keeps its first place in pre-order; the rest are counted (`duplicates`);
- papers never placed (`dropped`) go to one leaf "Unassigned" under the root
  (`dropped="unassigned-leaf"`, the default) or are left out (`dropped="omit"`);
- a reply that is not such a tree, has no category under the root (a flat list is not a
  taxonomy), or places no listed paper at all, gets one repair turn; if
  that fails too the sample's prediction is None with `error` (counted as malformed by the
  runner), never a crash.

Everything that changes the output is in `config()`; the counts are in the prediction's `info`,
which the runner writes to generate.jsonl and sums in summary.json.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.taxobench.agents.base import AgentContext
from scholarbench.benchmarks.taxobench.agents.bm25_title import BM25TitleAgent
from scholarbench.benchmarks.taxobench.agents.llm_taxonomy_replies import (
    Extracted, ParsedTree, validate_extraction, extract_schema, parse_taxonomy_reply,
    taxonomy_schema)
from scholarbench.llm.structured import ask_json
from scholarbench.records import Paper, TaxoNode, TaxoPrediction, TaxoTask
from scholarbench.benchmarks.taxobench.agents import register_taxo_agent
from scholarbench.text.normalize import normalize_title

INPUTS = ("title-abstract", "summary", "core-task")
DROPPED_RULES = ("unassigned-leaf", "omit")
UNASSIGNED = "Unassigned"
TAXONOMY_PROMPT = "taxobench_taxonomy_v1"
EXTRACT_PROMPT = "taxobench_extract_v1"
NA = "N/A"

# ---------------------------------------------------------------------------------- prompts
# Taxonomy generation (paper Figures 11-13, images in the paper). Source: upstream
# KongLongGeFDU/TaxoBench at commit afdef9f552b4d0a2edebb2d0d9036fab15f10ec8,
# setting_pipeline/eval_setting1.py (its system prompt describes the "+ Summary" input: title,
# abstract and a structured summary; eval_setting2.py there is a byte-identical copy of
# eval_setting1.py, removed in 8607e74, so the title + abstract setting's own text is not in the
# repository and its wording is this prompt with the summary left out) and
# setting_pipeline/eval_setting3.py ("+ Core-task & Contributions"); `system_prompt`,
# `user_prompt` and `build_papers_prompt` there. Changes (docs/llm.md, "llm-taxonomy agent"):
# leaves list paper numbers instead of titles; every node carries "name", "subtopics" and
# "papers" (empty lists where upstream omits the key), which a strict JSON schema needs; the reply
# is the bare JSON object (JSON mode / schema) instead of a fenced code block; upstream's JSON
# "repair" call to gpt-5 is replaced by one repair turn to the same model.
_INPUT_TEXT = {
    "title-abstract": ("title and abstract", "title + abstract"),
    "summary": ("title, abstract, and an structured summary\n  (which may include research "
                "problem, motivation, methodology, and findings)",
                "title + abstract + summary"),
    "core-task": ("title, abstract, extracted Core Tasks (the primary problem addressed), \n  "
                  "and Contributions (key innovations)",
                  "title + abstract + Core Task + Contributions"),
}

_TAXONOMY_SYSTEM = """You are a senior researcher and survey-author with deep experience in structuring
high-quality academic survey papers.

Your task is to organize a set of research papers into a **hierarchical topic tree**
(bottom-up), given:
- a survey topic,
- for each paper: {paper_fields}.

Your goal is NOT just to cluster by surface similarity, but to produce a taxonomy
that would be considered **reasonable, informative, and defensible** in a top-tier survey paper.

### Hard Constraints
1. Output must be **strictly valid JSON**.
2. Only leaf nodes may contain papers; all internal nodes must contain subtopics.
3. **Every paper must appear exactly once** in the entire tree.
4. NO duplicate papers anywhere.
5. The tree must eventually merge into **one single root node**.

### CLASSIFICATION RULES
- Group papers by semantic similarity using both {group_by}.
- Create meaningful names for leaf-level themes.

### ANTI-DUPLICATION PROCEDURE (MANDATORY)
Before constructing the tree:
1. Produce an internal list of all given paper numbers.
2. Assign each paper to exactly one leaf node.
3. After assignment, verify that:
   - the number of assigned papers equals the number of input papers,
   - no paper appears in more than one group.

### Output Format
Use a JSON structure like this (replace placeholders with the actual paper numbers from the
Paper List). Every node has "name", "subtopics" and "papers": a leaf node has "subtopics": [],
an internal node has "papers": []. Output only the JSON object:

{{
  "name": "AI Research",
  "papers": [],
  "subtopics": [
    {{
      "name": "NLP",
      "papers": [],
      "subtopics": [
        {{
          "name": "Text Summarization",
          "subtopics": [],
          "papers": [<actual paper numbers>]
        }},
        {{
          "name": "Machine Translation",
          "subtopics": [],
          "papers": [<actual paper numbers>]
        }}
      ]
    }}
  ]
}}"""

_TAXONOMY_USER = """Perform a bottom-up hierarchical clustering of the following {num_paper} papers and produce a JSON research topic tree.

Survey Topic: {survey_name}

Paper List:
{papers}

Before returning, check that:
- Every paper number appears exactly once.
- Only leaf nodes have papers.
- All intermediate nodes have subtopics.
- The JSON is strictly valid and parsable.

### Output:"""

# Extraction (paper Figures 14-16: summary, core task, contributions; images in the paper, and
# not in the upstream repository). TaxoBench's `pdfs[].summary` field has the shape of
# OpenNovelty's phase-1 extraction (Zhang et al., 2026, the paper's "prior work" for the input
# settings): `core_task.text` and `contributions[{name, description, ...}]`; upstream's prompt
# builders read only `core_task.text` and each contribution's `name` and `description`. The
# wording below is ours, following the constraints of OpenNovelty's `CoreTaskExtractor` and
# `ContributionsExtractor` (paper_novelty_pipeline/phases/phase1 in the public OpenNovelty code,
# e.g. january-blue/OpenNovelty): one short task statement in the authors' terms, no results;
# at most three claimed contributions, name <= 15 words, description <= 60 words, nothing
# invented. The structured summary's aspects are those eval_setting1.py names (research
# problem, motivation, methodology, findings). Inputs are title + abstract only.
_EXTRACT_COMMON = (
    "You read research papers for a survey author. You get a numbered list of papers, each "
    "with its title and abstract. Use only what the title and abstract say; never invent "
    "facts. Use the authors' terminology where possible. Reply with only a JSON object of the "
    "form shown, with exactly one entry per paper in the list, using the paper numbers given.")
_EXTRACT = {
    "summary": (
        _EXTRACT_COMMON + "\n\nFor each paper write a structured summary of 2 to 4 items, in "
        "this order where the abstract supports them: the research problem, the motivation, "
        "the methodology, the findings. Each item has \"name\" (a concise noun phrase, at most "
        "15 words) and \"description\" (1-2 sentences, at most 60 words).\n\n"
        "Form: {\"papers\": [{\"paper\": 1, \"summary\": [{\"name\": \"...\", "
        "\"description\": \"...\"}]}]}"),
    "core_task": (
        _EXTRACT_COMMON + "\n\nFor each paper state its core task: the central research "
        "problem or goal, as one short phrase or sentence (at most 20 words). Do not include "
        "contributions or results, only the task.\n\n"
        "Form: {\"papers\": [{\"paper\": 1, \"core_task\": \"...\"}]}"),
    "contributions": (
        _EXTRACT_COMMON + "\n\nFor each paper list the main contributions its authors claim "
        "(at most three): new methods, architectures, algorithms, training procedures, "
        "frameworks, tasks, benchmarks, datasets, objectives, theoretical formalisms or problem "
        "definitions. Leave out contributions that only report performance numbers. Each has "
        "\"name\" (a concise noun phrase, at most 15 words) and \"description\" (1-2 sentences, "
        "at most 60 words, paraphrasing the claim without adding facts).\n\n"
        "Form: {\"papers\": [{\"paper\": 1, \"contributions\": [{\"name\": \"...\", "
        "\"description\": \"...\"}]}]}"),
}
def _positive_int(name: str, value: object, low: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"llm-taxonomy: {name} must be an integer >= {low}, got {value!r}")
    return value



# ------------------------------------------------------------------------------------ agent
@register_taxo_agent("llm-taxonomy")
class LLMTaxonomyAgent:
    name = "llm-taxonomy"
    modes = ("bottom-up", "deep-research")
    needs_corpus = True              # in Deep Research mode (BM25 retrieval first)
    uses_llm = True

    def __init__(self, input: str = "title-abstract", k: int = 50, fields: str = "title",
                 max_depth: int = 4, extract_batch: int = 5, extract_tokens_per_paper: int = 200,
                 max_abstract_chars: int | None = None, dropped: str = "unassigned-leaf",
                 max_tokens: int | None = None) -> None:
        if input not in INPUTS:
            raise ValueError(f"llm-taxonomy: input must be one of {', '.join(INPUTS)}, "
                             f"got {input!r}")
        if dropped not in DROPPED_RULES:
            raise ValueError(f"llm-taxonomy: dropped must be one of {', '.join(DROPPED_RULES)}")
        self.input = input
        self.max_depth = _positive_int("max_depth", max_depth)
        self.extract_batch = _positive_int("extract_batch", extract_batch)
        self.extract_tokens_per_paper = _positive_int("extract_tokens_per_paper",
                                                      extract_tokens_per_paper)
        self.max_abstract_chars = (None if max_abstract_chars is None
                                   else _positive_int("max_abstract_chars", max_abstract_chars))
        self.dropped = dropped
        self.max_tokens = None if max_tokens is None else _positive_int("max_tokens", max_tokens)
        self.retriever = BM25TitleAgent(k=k, fields=fields)   # Deep Research retrieval only

    def config(self) -> dict[str, Any]:
        return {"input": self.input, "taxonomy_prompt": TAXONOMY_PROMPT,
                "extract_prompt": EXTRACT_PROMPT if self.input != "title-abstract" else None,
                "extract_batch": self.extract_batch,
                "extract_tokens_per_paper": self.extract_tokens_per_paper,
                "max_depth": self.max_depth, "max_abstract_chars": self.max_abstract_chars,
                "dropped": self.dropped, "max_tokens": self.max_tokens, "repairs": 1,
                "paper_ids": "numbers", "retrieval": {"k": self.retriever.k,
                                                      "fields": self.retriever.fields,
                                                      "query": "topic", "used_in": "deep-research"}}

    # -- retrieval (Deep Research mode) -----------------------------------------------------------
    def retrieve(self, task: TaxoTask, ctx: AgentContext) -> list[Paper]:
        """bm25-title's retrieval (`BM25TitleAgent.retrieve`): BM25 over the corpus with the
        topic, the survey excluded, top `k`."""
        return self.retriever.retrieve(task, ctx)

    # -- generation --------------------------------------------------------------------------
    def generate(self, task: TaxoTask, ctx: AgentContext) -> TaxoPrediction:
        if ctx.llm is None:
            raise ValueError("llm-taxonomy needs the agent role's chat client (ctx.llm)")
        retrieved = None
        if ctx.mode == "deep-research":
            found = self.retrieve(task, ctx)
            retrieved = [p.title for p in found]
            if not found:
                return TaxoPrediction(task.id, None, retrieved=[],
                                         error="BM25 retrieved no paper for the topic")
            papers, n_repeated = _distinct(found)
        else:
            papers, n_repeated = _distinct(task.papers)
        info: dict[str, Any] = {"n_papers": len(papers), "repeated_input_titles": n_repeated}
        if not papers:
            return TaxoPrediction(task.id, None, retrieved=retrieved,
                                     error="no papers to organise", info=info)
        extracted, failures = self.extract(papers, ctx.llm)
        info["extraction_failures"] = failures
        messages = self.taxonomy_messages(task.topic, papers, extracted)
        sampling = {"max_tokens": self.max_tokens} if self.max_tokens is not None else {}
        outcome = ask_json(ctx.llm, messages, schema=taxonomy_schema(self.max_depth),
                           name="taxonomy", repairs=1,
                           validate=lambda v: parse_taxonomy_reply(v, len(papers)), **sampling)
        info["attempts"] = outcome.attempts
        if not outcome.ok:
            return TaxoPrediction(task.id, None, retrieved=retrieved, info=info,
                                     error=f"taxonomy reply unusable {outcome.unscored}")
        tree: ParsedTree = outcome.value
        placed = set(tree.placed)
        dropped = [i for i in range(1, len(papers) + 1) if i not in placed]
        for node in tree.root.walk():
            node.papers = [papers[int(number) - 1].title for number in node.papers]
        if dropped and self.dropped == "unassigned-leaf":
            tree.root.children.append(TaxoNode(UNASSIGNED,
                                               papers=[papers[i - 1].title for i in dropped]))
        info.update(placed=len(tree.placed), dropped=len(dropped), invented=len(tree.invented),
                    duplicates=tree.duplicates)
        return TaxoPrediction(task.id, tree.root, retrieved=retrieved, info=info)

    def taxonomy_messages(self, topic: str, papers: list[Paper],
                          extracted: list[Extracted]) -> list[dict[str, str]]:
        paper_fields, group_by = _INPUT_TEXT[self.input]
        system = _TAXONOMY_SYSTEM.format(paper_fields=paper_fields, group_by=group_by)
        blocks = [self._paper_block(i, p, e)
                  for i, (p, e) in enumerate(zip(papers, extracted), start=1)]
        user = _TAXONOMY_USER.format(num_paper=len(papers), survey_name=topic,
                                     papers="\n".join(blocks))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _abstract(self, paper: Paper) -> str:
        text = " ".join(paper.abstract.split()) or NA
        if self.max_abstract_chars is not None and len(text) > self.max_abstract_chars:
            text = text[: self.max_abstract_chars].rstrip() + " …"
        return text

    def _paper_block(self, i: int, paper: Paper, ext: Extracted) -> str:
        """upstream `build_papers_prompt`'s layout for the chosen input."""
        out = f"Paper {i}:\n  Title: {paper.title}\n  Abstract: {self._abstract(paper)}\n"
        if self.input == "summary":
            out += f"  Structured Summary:\n    {_items(ext.summary)}\n"
        elif self.input == "core-task":
            out += (f"  Core Task: {ext.core_task or NA}\n"
                    f"  Contributions:\n    {_items(ext.contributions)}\n")
        return out

    # -- extraction ----------------------------------------------------------------------------
    def extract(self, papers: list[Paper], client: Any) -> tuple[list[Extracted], int]:
        """Per paper, what the input setting adds (empty for title-abstract); failures counted."""
        extracted = [Extracted() for _ in papers]
        kinds = {"title-abstract": (), "summary": ("summary",),
                 "core-task": ("core_task", "contributions")}[self.input]
        failures = 0
        for kind in kinds:
            for start in range(0, len(papers), self.extract_batch):
                batch = list(range(start, min(start + self.extract_batch, len(papers))))
                values = self._extract_batch(kind, [papers[i] for i in batch], client)
                if values is None and len(batch) > 1:   # retry the batch one paper at a time
                    values = {}
                    for j, i in enumerate(batch, start=1):
                        alone = self._extract_batch(kind, [papers[i]], client)
                        if alone is not None:
                            values[j] = alone[1]
                for j, i in enumerate(batch, start=1):
                    value = (values or {}).get(j)
                    if value is None:
                        failures += 1
                    setattr(extracted[i], kind, value)
        return extracted, failures

    def _extract_batch(self, kind: str, papers: list[Paper], client: Any) -> dict[int, Any] | None:
        listing = "\n".join(f"Paper {j}:\n  Title: {p.title}\n  Abstract: {self._abstract(p)}\n"
                            for j, p in enumerate(papers, start=1))
        messages = [{"role": "system", "content": _EXTRACT[kind]},
                    {"role": "user", "content": f"Paper List:\n{listing}"}]
        numbers = list(range(1, len(papers) + 1))
        outcome = ask_json(client, messages, validate=validate_extraction(kind, numbers),
                           schema=extract_schema(kind), name=f"paper_{kind}", repairs=1,
                           max_tokens=self.extract_tokens_per_paper * len(papers))
        return outcome.value if outcome.ok else None


def _items(items: list[tuple[str, str]] | None) -> str:
    """upstream's "- name: description" lines, joined with a newline and four spaces."""
    return "\n    ".join(f"- {name}: {desc}" for name, desc in items) if items else NA


def _distinct(papers: list[Paper]) -> tuple[list[Paper], int]:
    """Papers with a distinct non-empty normalised title, first kept; and how many were not."""
    seen: set[str] = set()
    out = []
    for paper in papers:
        key = normalize_title(paper.title)
        if key and key not in seen:
            seen.add(key)
            out.append(paper)
    return out, len(papers) - len(out)
