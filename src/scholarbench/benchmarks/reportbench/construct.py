"""ReportBench prompt construction: a survey -> the research request it answers (paper §2.1.2).

The paper gives the model "the publication date and the full text of a survey paper" and asks
for "a query whose ideal answer is precisely that paper", at three granularities:

- ``sentence``: "A single sentence that succinctly defines the overarching academic field
  covered by the survey."
- ``paragraph``: "A short paragraph elaborating the research area, its main subtopics, and the
  methodological perspectives covered in the survey."
- ``detail``: "A detailed question that comprehensively describes the specific research
  domain, key research directions, and the methodological approaches of interest. Additional
  constraints may be included, such as preferred conferences or journals, language of the
  cited literature (e.g., English, Chinese), participating institutions or laboratories."

with "a cutoff date corresponding to the most recent update of the paper". Neither the paper
nor the upstream repository publishes the generation prompt itself, so ours
(``prompts/construct_<granularity>_v1.txt``) is built from those sentences verbatim, and shows
the paper's appendix A.3 example of the same granularity as a one-shot example of the form.
The three examples are the shipped prompts of three of the 100 tasks (2312.04861, 2006.00648,
2304.11534); when the survey being processed is the example's own, the example is left out
(``(no example for this survey)``), so it cannot be copied.

The cut-off: the shipped data fixes the rule — for all 99 prompts that state one, the month
named is the month of the survey's latest arXiv version ("before April 2025" for a v3 of
21 April 2025). `SurveySource.cutoff` is that month's first day, and the model is told to
write it as "published before <Month YYYY>".

Inputs (`SurveySource`): title, abstract, the latest version's date and the full text as
(section, paragraph) pairs (from the corpus: `Corpus.paragraphs`, unarXive full text where the
corpus has it; else the abstract only — recorded as `full_text_paragraphs = 0`). The full text
is cut at `max_text_chars` (default 40,000, about 10k tokens) at a paragraph boundary, with a
line saying how many paragraphs were left out.

The reply is plain text, cleaned (surrounding quotes, a code fence or a "Prompt:" label
removed) and checked: empty, or a cut-off that `tasks.parse_cutoff` does not read as the
expected month, gets ONE repair turn naming the problem. An empty reply after the repair (or a
failed call) is `unscored`; a prompt whose cut-off is still wrong is kept and flagged
(`cutoff_ok = False`), and so is one that names the survey's title (`mentions_title`). The
replies of a construction that ends unusable (unscored, or its cut-off still wrong) are dropped
from the reply cache (`ChatClient.forget`), so a rebuild asks the model again instead of
replaying them.

`compare_prompts(generated, shipped, title)` sets a constructed prompt beside the shipped one:
both cut-offs and whether they agree, word counts, the shipped prompt's granularity as guessed
from its form (`guess_granularity`: a heuristic — ≤ 45 words: sentence; a Markdown list or
emphasis, or ≥ 120 words: detail; else paragraph), and the content-word overlap F1 (lower-cased
``\\w\\w+`` tokens without English stopwords, as sets).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Sequence

from scholarbench.llm.client import LLMCallError
from scholarbench.llm.structured import forget_reply
from scholarbench.benchmarks.reportbench.llm_common import load_prompt, quote
from scholarbench.benchmarks.reportbench.tasks import Task, parse_cutoff
from scholarbench.text.normalize import normalize_title

GRANULARITIES = ("sentence", "paragraph", "detail")
PROMPT_NAMES = {g: f"construct_{g}_v1" for g in GRANULARITIES}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
NO_EXAMPLE = "(no example for this survey)"

# The paper's appendix A.3 examples (the shipped prompts of these three surveys).
EXAMPLES: dict[str, tuple[str, str]] = {
    "sentence": ("2312.04861",
                 "Please help me research the academic advancements in different radar data "
                 "representation methods in the field of autonomous driving, and ensure only "
                 "papers published before April 2025 are referenced."),
    "paragraph": ("2006.00648",
                  "I am conducting a literature review on 3D LiDAR localization technology for "
                  "autonomous vehicles. I hope you can summarize and analyze the major research "
                  "directions and methods in this field, particularly methods based on 3D point "
                  "cloud registration, methods based on 3D features, and emerging methods based "
                  "on deep learning. Please ensure that all the referenced literature is "
                  "published before November 2020."),
    "detail": ("2304.11534",
               "I need a detailed academic research report on using Graph Neural Networks (GNN) "
               "for text classification. The report should systematically review advancements "
               "in this field, with a focus on the following aspects:\n"
               "1. **Core Methodology**: Provide a detailed explanation and comparison of two "
               "main approaches: corpus-level GNNs and document-level GNNs. For each method, "
               "thoroughly analyze graph construction strategies (e.g., defining nodes and "
               "edges using PMI, TF-IDF, etc.), representation methods for nodes and edges, and "
               "graph learning algorithms (e.g., GCN, GAT, etc.).\n"
               "2. **Key Model Analysis**: List and analyze representative models, such as "
               "TextGCN, SGC, BertGCN (corpus-level), and Text-Level-GNN, TextING "
               "(document-level).\n"
               "3. **Evaluation and Challenges**: Summarize commonly used benchmark datasets in "
               "this field (e.g., 20NG, R8, MR) and evaluation metrics (e.g., Accuracy, "
               "F1-score), and discuss major challenges faced by current research, such as "
               "scalability, computational costs, and integration with pre-trained language "
               "models.\n"
               "**Restrictions**:\n"
               "- Only refer to and cite papers published **before July 2024**.\n"
               "- Focus on English literature published in top conferences/journals in natural "
               "language processing and artificial intelligence (e.g., ACL, EMNLP, NAACL, AAAI, "
               "WWW, ICLR)."),
}


def check_granularity(granularity: str) -> str:
    if granularity not in GRANULARITIES:
        raise ValueError(f"unknown granularity {granularity!r}; use one of "
                         f"{', '.join(GRANULARITIES)}")
    return granularity


def prompt_identity(granularity: str) -> str:
    return load_prompt(PROMPT_NAMES[check_granularity(granularity)]).identity()


def cutoff_phrase(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.year}"


@dataclass(frozen=True)
class SurveySource:
    arxiv_id: str
    title: str
    abstract: str = ""
    updated: date | None = None                      # the latest version's date
    paragraphs: tuple[tuple[str, str], ...] = ()     # (section, text), in reading order

    @property
    def cutoff(self) -> date | None:
        return date(self.updated.year, self.updated.month, 1) if self.updated else None


def survey_source(task: Task, corpus: Any = None) -> SurveySource:
    """A task's survey: title and abstract from the task file, the latest version's date, and
    the full text from the corpus when it has the survey's paragraphs."""
    paragraphs: tuple[tuple[str, str], ...] = ()
    if corpus is not None:
        pid = corpus.resolve(f"arxiv:{task.arxiv_id}")
        if pid:
            paragraphs = tuple((p.section or "", p.text) for p in corpus.paragraphs(pid)
                               if p.text and p.text.strip())
    return SurveySource(task.arxiv_id, task.title, task.abstract,
                        task.updated or task.published, paragraphs)


def full_text(source: SurveySource, max_chars: int) -> tuple[str, int]:
    """The paragraphs under their section names, cut at `max_chars` at a paragraph boundary;
    (text, paragraphs used)."""
    if not source.paragraphs:
        return "(not available; use the title and abstract)", 0
    out: list[str] = []
    size, used, section = 0, 0, None
    for name, text in source.paragraphs:
        piece = (f"## {name}\n" if name and name != section else "") + text.strip()
        if size + len(piece) + 2 > max_chars and used:
            break
        out.append(piece)
        size += len(piece) + 2
        used += 1
        section = name
    left = len(source.paragraphs) - used
    if left:
        out.append(f"[… {left} more paragraphs left out]")
    return "\n\n".join(out), used


@dataclass
class ConstructedPrompt:
    arxiv_id: str
    granularity: str
    prompt: str | None                    # None when unscored
    unscored: str | None
    cutoff_expected: str | None           # ISO date (first day of the month)
    cutoff_found: str | None              # what parse_cutoff reads in the prompt
    cutoff_ok: bool
    mentions_title: bool
    attempts: int
    full_text_paragraphs: int
    prompt_version: str
    example_used: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_LABEL = re.compile(r"^\s*(?:\*\*)?\s*(?:(?:research\s+)?prompt|request|query)\s*:\s*(?:\*\*)?\s*",
                    re.IGNORECASE)
_FENCED = re.compile(r"^```[^\n]*\n(.*)\n```$", re.DOTALL)


def clean_reply(text: str) -> str:
    body = text.strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group(1).strip()
    body = _LABEL.sub("", body, count=1).strip()
    if len(body) >= 2 and body[0] in "\"“'" and body[-1] in "\"”'":
        body = body[1:-1].strip()
    return body


def mentions_title(prompt: str, title: str) -> bool:
    norm = normalize_title(title)
    return bool(norm) and f" {norm} " in f" {normalize_title(prompt)} "


def build_messages(source: SurveySource, granularity: str, max_text_chars: int
                   ) -> tuple[list[dict[str, str]], int, bool]:
    prompt = load_prompt(PROMPT_NAMES[check_granularity(granularity)])
    if source.cutoff is None:
        raise ValueError(f"{source.arxiv_id}: no version date, so no cut-off to ask for")
    example_id, example = EXAMPLES[granularity]
    use_example = example_id != source.arxiv_id
    text, used = full_text(source, max_text_chars)
    content = prompt.fill(cutoff=cutoff_phrase(source.cutoff),
                          example=example if use_example else NO_EXAMPLE,
                          title=quote(source.title),
                          updated=source.updated.isoformat() if source.updated else "unknown",
                          abstract=quote(source.abstract or "(none)"), full_text=quote(text))
    return [{"role": "user", "content": content}], used, use_example


def construct_prompt(client: Any, source: SurveySource, granularity: str, *,
                     max_text_chars: int = 40_000, max_tokens: int | None = 1024
                     ) -> ConstructedPrompt:
    """One prompt at `granularity` for `source` (see the module docstring). Never raises on
    model output; a failed call is `unscored`."""
    messages, used, use_example = build_messages(source, granularity, max_text_chars)
    expected = source.cutoff
    phrase = cutoff_phrase(expected)  # type: ignore[arg-type]
    history = list(messages)
    text, problem, attempts = "", "no reply", 0
    asked: list[list[dict[str, str]]] = []
    for attempt in (1, 2):
        attempts = attempt
        try:
            reply = client.complete(history, max_tokens=max_tokens)
        except LLMCallError as exc:
            problem = f"call failed: {exc}"
            break
        asked.append(history)
        cleaned = clean_reply(reply.text)
        text = cleaned or text            # a usable text survives an empty repair reply
        if not cleaned:
            problem = "the reply was empty"
        elif parse_cutoff(cleaned) != expected:
            problem = f"it does not state the cut-off as \"published before {phrase}\""
        else:
            problem = ""
            break
        if attempt == 1:
            history = history + [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": f"Your prompt is not usable: {problem}. Reply again "
                 f"with the whole prompt only, stating the cut-off exactly as \"published before "
                 f"{phrase}\"."}]
    if problem:     # not usable as asked: none of its replies is served again from the cache
        for sent in asked:
            forget_reply(client, sent, max_tokens=max_tokens)
    found = parse_cutoff(text) if text else None
    unscored = None if text else (problem if problem.startswith("call failed")
                                  else f"after {attempts - 1} repair(s): {problem}")
    return ConstructedPrompt(
        arxiv_id=source.arxiv_id, granularity=granularity, prompt=text or None,
        unscored=unscored, cutoff_expected=expected.isoformat() if expected else None,
        cutoff_found=found.isoformat() if found else None,
        cutoff_ok=bool(text) and found == expected,
        mentions_title=bool(text) and mentions_title(text, source.title), attempts=attempts,
        full_text_paragraphs=used, prompt_version=prompt_identity(granularity),
        example_used=use_example)


# ---- comparison with the shipped prompts ------------------------------------------------------

def _content_words(text: str) -> set[str]:
    from bm25s.stopwords import STOPWORDS_EN
    stop = set(STOPWORDS_EN)
    return {w for w in re.findall(r"\w\w+", text.lower()) if w not in stop}


def guess_granularity(prompt: str) -> str:
    """A heuristic label for a shipped prompt (the data does not say which of the three it
    is): ≤ 45 words -> sentence; a Markdown list / emphasis or ≥ 120 words -> detail; else
    paragraph."""
    words = len(prompt.split())
    if words <= 45:
        return "sentence"
    if words >= 120 or "**" in prompt or re.search(r"^\s*(?:\d+\.|[-*])\s", prompt, re.MULTILINE):
        return "detail"
    return "paragraph"


def overlap_f1(a: str, b: str) -> float:
    wa, wb = _content_words(a), _content_words(b)
    return 2 * len(wa & wb) / (len(wa) + len(wb)) if wa or wb else 0.0


def compare_prompts(generated: str, shipped: str, title: str = "") -> dict[str, Any]:
    cut_g, cut_s = parse_cutoff(generated), parse_cutoff(shipped)
    return {"cutoff_generated": cut_g.isoformat() if cut_g else None,
            "cutoff_shipped": cut_s.isoformat() if cut_s else None,
            "cutoff_agrees": cut_g == cut_s,
            "words_generated": len(generated.split()), "words_shipped": len(shipped.split()),
            "shipped_granularity_guess": guess_granularity(shipped),
            "generated_granularity_guess": guess_granularity(generated),
            "content_overlap_f1": round(overlap_f1(generated, shipped), 4),
            "mentions_title": mentions_title(generated, title) if title else False}


COMPARED = ("cutoff_agrees", "content_overlap_f1", "words_generated",
            "shipped_granularity_guess")


def constructed_fields(record: dict[str, Any]) -> dict[str, Any]:
    """What `summarise_constructed` reads of one prompts.jsonl record: the score row carries
    it (`prompt_construction`) so the summary is rebuilt from the score rows alone."""
    comparison = record.get("comparison")
    return {"prompt": bool(record.get("prompt")), "cutoff_ok": record.get("cutoff_ok"),
            "mentions_title": record.get("mentions_title"),
            "granularity": record.get("granularity"),
            "comparison": {k: comparison.get(k) for k in COMPARED}
            if isinstance(comparison, dict) and comparison else None}


def summarise_constructed(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts and means over prompts.jsonl records (unscored ones counted, not averaged)."""
    done = [r for r in records if r.get("prompt")]
    pairs = [(r, r["comparison"]) for r in done if r.get("comparison")]
    comps = [c for _, c in pairs]
    return {"n": len(records), "n_unscored": len(records) - len(done),
            "n_cutoff_ok": sum(1 for r in done if r.get("cutoff_ok")),
            "n_mentions_title": sum(1 for r in done if r.get("mentions_title")),
            "n_cutoff_agrees_with_shipped": sum(1 for c in comps if c["cutoff_agrees"]),
            "mean_overlap_f1_with_shipped": (sum(c["content_overlap_f1"] for c in comps)
                                             / len(comps) if comps else None),
            "mean_words": (sum(c["words_generated"] for c in comps) / len(comps)
                           if comps else None),
            "shipped_same_granularity_guess": sum(
                1 for r, c in pairs
                if c["shipped_granularity_guess"] == r.get("granularity"))}
