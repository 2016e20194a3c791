"""What LLM agents of several benchmarks share: versioned prompts, model calls that count
their failures, query clean-up, corpus retrieval with the leakage filters, and rank fusion.

Prompts are the files ``prompts/<name>.txt`` (package data) of the agents' package; the file
name carries the version (``deep_research_decide_v1``), and an agent records the names and the
sha256 of the prompts it uses in its config, so a changed prompt is a changed configuration (a
run directory will not resume with it). Files are read verbatim (the final newline included: upstream's templates end with one).
Placeholders are ``{name}`` with a lower-case name; they are filled in one pass, so a value that
itself contains ``{topic}`` stays literal, and JSON braces in a template are left alone.

Model calls go through `LLMTrace`, which never raises on a model failure: a call that fails
after the client's retries (`LLMCallError`) or a JSON reply that stays unusable after the repair
turn (`ask_json`'s "unscored") returns None, and is counted. The agent then takes its stated
fallback and says so with `LLMTrace.fallback`. What the trace counted goes into the sample's
``info`` (generate.jsonl):

    "llm": {"calls": n, "failed": n, "unscored": n}      calls = requests asked for (cache hits
                                                           included; repairs count as calls)
    "fallback": ["query: the topic (call failed: ...)", ...]   only when a fallback was taken
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from scholarbench.llm.prompts import Prompt, load_package_prompt
from scholarbench.corpus.hybrid import K as RRF_K, rrf
from scholarbench.llm.trace import LLMTrace  # noqa: F401  (re-exported for the agents)


def load_prompt(name: str) -> Prompt:
    """``scholarbench/agents/prompts/<name>.txt``: prompts shared by several benchmarks' agents
    (the deep-research loop's). A benchmark's own agents load theirs from its package."""
    return load_package_prompt("scholarbench.agents", name)


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


# ---- queries --------------------------------------------------------------------------------

_LABEL = re.compile(r"^\W*(?:search\s+)?query\W*?:\s*(.+)$", re.IGNORECASE)
_QUOTES = "\"'`“”‘’"


def clean_query(reply: str, max_chars: int = 1000) -> str:
    """A search query from a model's free-text reply (ZERO-SHOT, SELF-RAG's first query).

    Upstream sends GPT's whole reply to Elasticsearch. We keep the whole reply too, with three
    clean-ups that only remove formatting: code-fence lines are dropped; when a line is labelled
    ``Query:`` / ``Search query:`` (any case, Markdown bold allowed) the text after the first such
    label is the query (the rest is commentary); surrounding quotes are stripped. Whitespace is
    collapsed and the result cut to `max_chars` characters. May return "" (the caller falls back).
    """
    lines = [ln for ln in reply.strip().splitlines() if not ln.strip().startswith("```")]
    for line in lines:
        labelled = _LABEL.match(line.strip())
        if labelled and labelled.group(1).strip(_QUOTES + "* "):
            lines = [labelled.group(1)]
            break
    text = " ".join(" ".join(lines).split())
    text = text.strip("*").strip().strip(_QUOTES).strip()
    return text[:max_chars].strip()


_BULLET = re.compile(r"^\s*(?:[-*•+]+|\d+[.)])\s*")


def tagged_block(reply: str, tag: str) -> str | None:
    """The text between ``<tag>`` and ``</tag>`` (upstream's partition: after the first opening
    tag, up to the next closing tag or the end); None when there is no opening tag."""
    head, sep, rest = reply.partition(f"<{tag}>")
    if not sep:
        return None
    return rest.partition(f"</{tag}>")[0]


def bullet_lines(block: str) -> list[str]:
    """Non-empty lines of a bullet list, bullets (``-``, ``*``, ``•``, ``1.``, ``2)``) removed,
    repeated lines dropped (first kept)."""
    out: list[str] = []
    for line in block.splitlines():
        text = " ".join(_BULLET.sub("", line).split())
        if text and text not in out:
            out.append(text)
    return out


# ---- retrieval ------------------------------------------------------------------------------

SEARCHES = {"bm25": "search_bm25", "dense": "search_dense", "hybrid": "search_hybrid"}
FUSIONS = ("rrf", "max-score")


@dataclass(frozen=True)
class Retrieval:
    """A `Corpus` search (BM25, dense or hybrid over `fields`) with filters given per call."""
    search: str = "bm25"
    fields: str = "title"

    def __post_init__(self) -> None:
        if self.search not in SEARCHES:
            raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {self.search!r}")
        if self.fields not in ("title", "title+abstract"):
            raise ValueError(f"fields must be 'title' or 'title+abstract', got {self.fields!r}")

    @property
    def needs_embedder(self) -> bool:
        return self.search != "bm25"

    def config(self) -> dict[str, Any]:
        return {"search": self.search, "fields": self.fields}

    def run(self, corpus: Any, text: str, k: int, filters: dict[str, Any],
            embedder: Any = None) -> list[tuple[str, float]]:
        """[(paper_id, score)] best first, at most k, the filters applied before the cut."""
        args: list[Any] = [text, k]
        if self.needs_embedder:
            if embedder is None:
                raise ValueError(f"{self.search} search needs an embedder")
            args.append(embedder)
        hits = getattr(corpus, SEARCHES[self.search])(*args, fields=self.fields, **filters)
        return [(p.paper_id, float(s)) for p, s in hits if p.paper_id]


def fuse(lists: Sequence[Sequence[tuple[str, float]]], k: int, method: str = "rrf",
         rrf_k: int = RRF_K) -> list[tuple[str, float]]:
    """Fuse ranked lists into the top k [(paper_id, score)].

    ``rrf``: reciprocal rank fusion (`corpus.hybrid.rrf`, K = 60, ties by paper_id) — the
    paper's DECOMPOSER. ``max-score``: upstream's merge (`retrieve_bge.py`): every hit of every
    list pooled, each paper at its best retrieval score, sorted by score (ties by paper_id).
    Raw BM25 scores of different queries are not comparable, which is why the paper fuses ranks.
    """
    if method == "rrf":
        return rrf([[pid for pid, _ in hits] for hits in lists], k=rrf_k)[:k]
    if method == "max-score":
        best: dict[str, float] = {}
        for hits in lists:
            for pid, score in hits:
                if pid not in best or score > best[pid]:
                    best[pid] = score
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]
    raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, got {method!r}")


def pinned_ranking(first: Iterable[str], rest: Iterable[str], last: Iterable[str], k: int
                   ) -> list[tuple[str, float]]:
    """`first` in order, then `rest`, then `last` (each id once, at its first place), cut to k;
    scores n - i for rank i of n (the order is the ranking)."""
    order: list[str] = []
    seen: set[str] = set()
    for group in (first, rest, last):
        for pid in group:
            if pid not in seen:
                seen.add(pid)
                order.append(pid)
    order = order[:k]
    return [(pid, float(len(order) - i)) for i, pid in enumerate(order)]


def positive_int(agent: str, name: str, value: object, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{agent}: {name} must be an integer >= {minimum}, got {value!r}")
    return value


def numbered(items: Iterable[str]) -> str:
    lines = [f"{i}. {text}" for i, text in enumerate(items, start=1)]
    return "\n".join(lines) if lines else "(none)"


def indices(value: object, n: int, field_name: str) -> list[int]:
    """A JSON list of 1-based item numbers, each in 1..n, as 0-based indices (repeats dropped);
    ValueError otherwise (strict: a number outside the list is a malformed reply)."""
    if not isinstance(value, list):
        raise ValueError(f"{field_name!r} must be a list of numbers")
    out: list[int] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int):
            raise ValueError(f"{field_name!r} must hold whole numbers, got {item!r}")
        if not 1 <= item <= n:
            raise ValueError(f"{field_name!r}: {item} is not one of the numbers 1..{n}")
        if item - 1 not in out:
            out.append(item - 1)
    return out
