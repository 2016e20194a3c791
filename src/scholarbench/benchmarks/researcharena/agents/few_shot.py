"""`few-shot`: ResearchArena's FEW-SHOT typology baseline for organisation (§6.1, appendix C.3).

"FEW-SHOT is achieved by providing a few random examples of extracted typologies and
instructing GPT-4 to generate another topic-oriented mind-map."

Prompt: the paper's C.3 text with its two examples (LiDAR scanning mechanisms; LLMs for
recommendation; ``prompts/few_shot_examples_v1.txt``, one JSON line each — the paper prints the
second one with a closing brace missing, a typesetting slip we mend). Two forms:

- ``papers=True`` (default): ``prompts/few_shot_papers_v1.txt`` — the paper's prompt plus the
  task's papers as a ``<papers>`` list of titles (at most `max_papers`, 80, in the order given,
  "Title (year)"), and one instruction line saying the typology should organise them. This is
  the paper's intermediate setting ("references R from the original survey paper could be
  provided to the agents"), the one `cluster` runs in.
- ``papers=False``: ``prompts/few_shot_v1.txt`` — the paper's prompt exactly (topic only; its
  Table 3 lists FEW-SHOT under "Oracle: No").

An example whose topic equals the task's topic (normalised titles) is left out of the prompt
(``info["examples_dropped"]``): its typology is that task's gold mind-map.

Parsing is strict: the reply must hold ``<typology>`` … ``</typology>`` (the last such block),
or else be a JSON object on its own (one Markdown code fence allowed); its content must parse as
an upstream typology (`data.typology.parse_typology`: nested objects of headings, null leaves,
no empty headings). A reply that fails gets one repair turn naming the problem; if that fails
too, or the call fails after the client's retries, the sample's output is an error (no
mind-map: the runner scores it as an empty mind-map and counts it as missing), never a crash.
"""
from __future__ import annotations

import json
import re
from typing import Any

from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaOutput,
                                                               ArenaQuery, arena_agent)
from scholarbench.benchmarks.researcharena.agents.common import (LLMTrace, load_lines, load_prompt,
                                                                 positive_int, user)
from scholarbench.data.typology import parse_typology
from scholarbench.errors import DataError
from scholarbench.records import TaxoNode
from scholarbench.text.normalize import normalize_title

PROMPT, PAPERS_PROMPT, EXAMPLES = "few_shot_v1", "few_shot_papers_v1", "few_shot_examples_v1"
_BLOCK = re.compile(r"<typology>(.*?)</typology\s*>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```(?:json|JSON)?\s*\n(.*)\n\s*```$", re.DOTALL)


def parse_reply(text: str) -> TaxoNode:
    """The mind-map in a FEW-SHOT reply; ValueError naming what is wrong."""
    blocks = _BLOCK.findall(text)
    body = (blocks[-1] if blocks else text).strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not blocks and not body.startswith("{"):
        raise ValueError("no <typology>...</typology> block and the reply is not a JSON object")
    try:
        return parse_typology(body, field="typology")
    except DataError as exc:
        raise ValueError(str(exc)) from None


def examples_block(topic: str) -> tuple[str, int]:
    """The prompt's examples (those on another topic) and how many were left out."""
    key = normalize_title(topic)
    kept, dropped = [], 0
    for ex in load_lines(EXAMPLES):
        if normalize_title(ex["topic"]) == key:
            dropped += 1
            continue
        kept.append(f"<topic>\n{ex['topic']}\n</topic>\n<typology>\n"
                    f"{json.dumps(ex['typology'], ensure_ascii=False)}\n</typology>")
    return "\n".join(kept), dropped


@arena_agent("few-shot")
class FewShot:
    name = "few-shot"
    uses_llm = True
    tasks = ("organisation",)
    needs_corpus = True
    needs_embedder = False

    def __init__(self, papers: bool = True, max_papers: int = 80, repairs: int = 1,
                 max_tokens: int = 1024) -> None:
        if not isinstance(papers, bool):
            raise ValueError(f"{self.name}: papers must be true or false, got {papers!r}")
        self.papers = papers
        self.max_papers = positive_int(self.name, "max_papers", max_papers)
        self.repairs = positive_int(self.name, "repairs", repairs, minimum=0)
        self.max_tokens = positive_int(self.name, "max_tokens", max_tokens)
        self.needs_corpus = papers

    @property
    def prompt_name(self) -> str:
        return PAPERS_PROMPT if self.papers else PROMPT

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {"papers": self.papers, "repairs": self.repairs,
                               "max_tokens": self.max_tokens,
                               "prompts": [load_prompt(n).identity()
                                           for n in (self.prompt_name, EXAMPLES)]}
        if self.papers:
            out.update(max_papers=self.max_papers, references="given (oracle)")
        return out

    def _prompt(self, query: ArenaQuery, ctx: ArenaContext) -> tuple[str, dict[str, Any]]:
        examples, dropped = examples_block(query.topic)
        info: dict[str, Any] = {"examples_dropped": dropped} if dropped else {}
        if not self.papers:
            return load_prompt(PROMPT).fill(examples=examples, topic=query.topic), info
        if ctx.corpus is None:
            raise ValueError(f"{self.name} with papers=true needs a corpus")
        refs = list(query.references or ())
        papers = [p for p in ctx.corpus.get_by_ids(refs[:self.max_papers]) if p.title.strip()]
        lines = "\n".join(f"- {' '.join(p.title.split())}" + (f" ({p.year})" if p.year else "")
                          for p in papers) or "(none)"
        info.update(papers_shown=len(papers), papers_total=len(refs))
        return (load_prompt(PAPERS_PROMPT).fill(examples=examples, papers=lines,
                                                topic=query.topic), info)

    def generate(self, query: ArenaQuery, ctx: ArenaContext) -> ArenaOutput:
        if ctx.llm is None:
            raise ValueError(f"{self.name} needs the agent chat model (ctx.llm)")
        prompt, info = self._prompt(query, ctx)
        trace = LLMTrace(ctx.llm, self.max_tokens)
        mindmap = trace.ask(user(prompt), step="typology", validate=lambda tree: tree,
                            parse=parse_reply, constrain=False, repairs=self.repairs,
                            repair_hint="Reply again with only the typology as a JSON object of "
                            "nested headings (null for a leaf) inside <typology>...</typology>.")
        if mindmap is not None:
            return ArenaOutput(mindmap=mindmap, info={**info, "repairs_used":
                                                      trace.last_attempts - 1, **trace.info()})
        problem = trace.problems[-1].removeprefix("typology: ")
        if trace.failed:          # failed after the client's retries: no mind-map
            return ArenaOutput(error=f"no typology: {problem}", info={**info, **trace.info()})
        return ArenaOutput(error=f"unparseable typology: {problem}",
                           info={**info, "unparseable": 1, **trace.info()})
