"""The Oracle Context (DeepSynth-Eval §3.4, appendix A.1): one summary per reference of the
survey, each with a stable citation id ``[n]``.

**The reference list.** DeepSynth-Eval's task file carries no bibliography (only ``survey_id``,
an arXiv id) and upstream never released the Oracle Context (``../shared/data/deepsynth/
PROVENANCE.md``), so it is rebuilt per task, from the first source that has one:

1. a *reference-list file* (``references=``): JSON lines ``{"task_id": …}`` or
   ``{"survey_id": …}`` plus ``"references": [...]``, each reference an identifier or title
   string, or ``{"title"?, "id"?, "ids"?}``. ``n`` = the position in that list (1-based).
2. the *corpus*: the survey resolved by its ``survey_id`` (``Corpus.resolve``), its reference
   list ``Corpus.references(survey)`` — sorted by corpus ``paper_id``, so ``n`` = the rank
   of the paper_id in that sorted list (1-based). Stable for a given corpus build; a rebuilt
   corpus with other edges renumbers.
3. neither: the task has no oracle (``source = "none"``); the run then gives the writer no
   oracle, and writers search the corpus instead (counted in the run summary).

On the shared data the default corpus resolves 2 of the 4 surveys (2209.15179: 32 references,
2210.09292: 49, from the arXiv-2023 citation graph; far fewer than the surveys cite) and
almost none of those references has an abstract or full text there.

**Each reference**, in list order (``status`` records what it got):

- not in the corpus (a file reference whose ids and title resolve to no corpus paper, or no
  corpus at all): kept with its title only (the title as written, else its first id) —
  ``not_in_corpus``, counted;
- in the corpus without an abstract or full-text paragraphs: title only — ``title_only``;
- otherwise its source text is the abstract, then the full-text paragraphs where the corpus has
  them (``Corpus.paragraphs``, source/position order), cut to ``source_tokens`` (2500) by
  ``budget.truncate_tokens`` (keep the head). With ``mode="summary"`` (default, the paper's)
  the text is summarised by a chat model (``prompts/oracle_summary_v1.txt``: the writing
  request — the unified prompt cut to ``request_tokens``, 600 — the title, the text; reply
  cap ``summary_tokens``, 300; asked for at most ``summary_words``, 150) — ``summarized``.
  A call that fails after the client's retries, or an empty reply, falls back to the source
  text cut to ``summary_tokens`` — ``summary_failed``, counted. With ``mode="abstract"`` no
  model is used: the source text cut to ``summary_tokens`` — ``abstract``.

Every summary request is sized by ``TokenBudget`` so it fits the model's context; replies come
from the LLM layer's persistent cache when the same request was made before, so rebuilding an
oracle costs no model calls. The paper summarises with the judge's model (DeepSeek-V3.2 for
judging and "summary reading"); the run does the same by default (``oracle_role="judge"``),
so the oracle context is the same input for every agent compared.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any, Sequence

from scholarbench.agents.writers.base import OracleReference
from scholarbench.agents.writers.budget import TokenBudget, truncate_tokens
from scholarbench.agents.writers.common import fill_within, load_prompt
from scholarbench.data.jsonl import iter_jsonl
from scholarbench.benchmarks.deepsynth.loader import unified_prompt
from scholarbench.benchmarks.deepsynth.records import Task
from scholarbench.errors import DataError
from scholarbench.llm.client import LLMCallError
from scholarbench.data.identifiers import parse_id
from scholarbench.data.sources.dates import earliest_date

MODES = ("summary", "abstract")
SUMMARIZED, ABSTRACT, SUMMARY_FAILED, TITLE_ONLY, NOT_IN_CORPUS = (
    "summarized", "abstract", "summary_failed", "title_only", "not_in_corpus")
ENTRY_STATUSES = (SUMMARIZED, ABSTRACT, SUMMARY_FAILED, TITLE_ONLY, NOT_IN_CORPUS)
SOURCES = ("file", "corpus", "none")
PROMPT = "oracle_summary_v1"


@dataclass(frozen=True)
class ReferenceSpec:
    """One reference as a reference-list file gives it."""
    title: str = ""
    ids: tuple[str, ...] = ()

    def label(self) -> str:
        return self.title or (self.ids[0] if self.ids else "")


@dataclass(frozen=True)
class OracleEntry:
    n: int
    title: str
    paper_id: str | None
    status: str
    text: str = ""
    full_text: bool = False          # the corpus has full-text paragraphs for it

    def reference(self) -> OracleReference:
        return OracleReference(self.n, self.title, self.paper_id, self.text)


@dataclass(frozen=True)
class OracleContext:
    task_id: int | str
    source: str                      # file | corpus | none
    entries: tuple[OracleEntry, ...] = ()
    survey_paper_id: str | None = None

    @property
    def available(self) -> bool:
        return self.source != "none"

    def references(self) -> tuple[OracleReference, ...] | None:
        """What the writer gets: None when the task has no reference list."""
        return tuple(e.reference() for e in self.entries) if self.available else None

    def counts(self) -> dict[str, int]:
        out = {"n_references": len(self.entries),
               "n_full_text": sum(e.full_text for e in self.entries)}
        out.update({f"n_{s}": sum(e.status == s for e in self.entries) for s in ENTRY_STATUSES})
        return out

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "source": self.source,
                "survey_paper_id": self.survey_paper_id, "counts": self.counts(),
                "references": [asdict(e) for e in self.entries]}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "OracleContext":
        return cls(obj["task_id"], obj["source"],
                   tuple(OracleEntry(**e) for e in obj.get("references") or []),
                   obj.get("survey_paper_id"))


# ---- reference-list files ----------------------------------------------------------------

def _spec(value: Any, file: str, line: int, field: str) -> ReferenceSpec:
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise DataError("empty reference", file=file, line=line, field=field)
        return (ReferenceSpec(title=text) if parse_id(text).kind == "title"
                else ReferenceSpec(ids=(text,)))
    if not isinstance(value, dict):
        raise DataError("a reference is a string or an object", file=file, line=line,
                        field=field)
    unknown = sorted(set(value) - {"title", "id", "ids"})
    if unknown:
        raise DataError("unknown field (allowed: id, ids, title)", file=file, line=line,
                        field=f"{field}.{unknown[0]}")
    title = value.get("title") or ""
    ids = [value["id"]] if value.get("id") else []
    ids += list(value.get("ids") or [])
    if not isinstance(title, str) or not all(isinstance(i, str) and i.strip() for i in ids):
        raise DataError("title and ids must be strings", file=file, line=line, field=field)
    if not title.strip() and not ids:
        raise DataError("a reference needs a title or an id", file=file, line=line,
                        field=field)
    return ReferenceSpec(" ".join(title.split()), tuple(i.strip() for i in ids))


def read_reference_lists(path: str | Path) -> dict[str, list[ReferenceSpec]]:
    """Reference lists by key: ``task:<task_id>`` and/or ``survey:<survey_id>``."""
    path = Path(path)
    out: dict[str, list[ReferenceSpec]] = {}
    for lineno, obj in iter_jsonl(path):
        unknown = sorted(set(obj) - {"task_id", "survey_id", "references"})
        if unknown:
            raise DataError("unknown field (allowed: task_id, survey_id, references)",
                            file=str(path), line=lineno, field=unknown[0])
        refs = obj.get("references")
        if not isinstance(refs, list):
            raise DataError("missing or not a list", file=str(path), line=lineno,
                            field="references")
        keys = ([f"task:{obj['task_id']}"] if obj.get("task_id") is not None else []) + \
               ([f"survey:{obj['survey_id']}"] if obj.get("survey_id") else [])
        if not keys:
            raise DataError("needs task_id or survey_id", file=str(path), line=lineno)
        specs = [_spec(r, str(path), lineno, f"references[{i}]") for i, r in enumerate(refs)]
        for key in keys:
            if key in out:
                raise DataError(f"a second reference list for {key}", file=str(path),
                                line=lineno)
            out[key] = specs
    return out


# ---- building ------------------------------------------------------------------------------

def survey_paper_id(task: Task, corpus: Any) -> str | None:
    """The survey's corpus paper_id (from ``survey_id``), or None."""
    if corpus is None or not task.survey_id:
        return None
    try:
        return corpus.resolve(task.survey_id)
    except Exception:
        return None


def survey_cutoff(task: Task, corpus: Any) -> date | None:
    """The first day the survey may have appeared (its exact date, else the first day of its
    arXiv month, else 1 January of its year); None when unknown. Writers that search keep to
    papers known before it."""
    pid = survey_paper_id(task, corpus)
    if pid is not None:
        row = corpus.get_rows([pid])[0]
        return earliest_date(row.get("published"), row.get("ids") or [pid], row.get("year"))
    if task.survey_id:
        parsed = parse_id(task.survey_id)
        if parsed.kind == "arxiv":
            return earliest_date(None, [str(parsed)], None)
    return None


@dataclass
class OracleBuilder:
    """Builds oracle contexts; ``chat`` (a ChatClient) is needed for ``mode="summary"``."""
    chat: Any = None
    mode: str = "summary"
    source_tokens: int = 2500
    summary_tokens: int = 300
    summary_words: int = 150
    request_tokens: int = 600
    budget: TokenBudget = TokenBudget()
    workers: int = 1

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown oracle mode {self.mode!r}; use one of {', '.join(MODES)}")
        for name in ("source_tokens", "summary_tokens", "summary_words", "request_tokens",
                     "workers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if self.mode == "summary":
            if self.chat is None:
                raise ValueError("oracle mode 'summary' needs a chat model")
            self.budget.prompt_tokens(self.summary_tokens)
        self.prompt = load_prompt(PROMPT, "scholarbench.benchmarks.deepsynth")

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode, "source_tokens": self.source_tokens,
                               "summary_tokens": self.summary_tokens}
        if self.mode == "summary":
            out.update(summary_words=self.summary_words, request_tokens=self.request_tokens,
                       prompt=self.prompt.identity(), **self.budget.config())
        return out

    def build(self, task: Task, corpus: Any = None,
              lists: dict[str, list[ReferenceSpec]] | None = None) -> OracleContext:
        """The task's oracle context (see the module docstring for the order of sources)."""
        survey = survey_paper_id(task, corpus)
        specs = (lists or {}).get(f"task:{task.task_id}") or \
            ((lists or {}).get(f"survey:{task.survey_id}") if task.survey_id else None)
        items: list[tuple[str | None, str]]     # (corpus paper_id or None, label)
        if specs is not None:
            source = "file"
            items = [(_resolve(corpus, spec), spec.label()) for spec in specs]
        elif survey is not None:
            source = "corpus"
            items = [(pid, "") for pid in corpus.references(survey)]
        else:
            return OracleContext(task.task_id, "none", (), survey)
        request = truncate_tokens(unified_prompt(task), self.request_tokens)
        jobs = [(n, pid, label) for n, (pid, label) in enumerate(items, start=1)]
        if self.workers > 1 and len(jobs) > 1:
            with ThreadPoolExecutor(self.workers, thread_name_prefix="oracle") as pool:
                entries = list(pool.map(lambda j: self._entry(*j, corpus, request), jobs))
        else:
            entries = [self._entry(*job, corpus, request) for job in jobs]
        return OracleContext(task.task_id, source, tuple(entries), survey)

    def _entry(self, n: int, pid: str | None, label: str, corpus: Any,
               request: str) -> OracleEntry:
        if pid is None:
            return OracleEntry(n, label, None, NOT_IN_CORPUS)
        row = corpus.get_rows([pid])[0]
        title = " ".join((row.get("title") or label or pid).split())
        paragraphs = corpus.paragraphs(pid)
        parts = [row.get("abstract") or ""] + [p.text for p in paragraphs]
        text = "\n\n".join(p.strip() for p in parts if p and p.strip())
        full = bool(paragraphs)
        if not text:
            return OracleEntry(n, title, pid, TITLE_ONLY, "", full)
        source_text = truncate_tokens(text, self.source_tokens)
        if self.mode == "abstract":
            return OracleEntry(n, title, pid, ABSTRACT,
                               truncate_tokens(source_text, self.summary_tokens), full)
        summary = self._summarize(request, title, source_text)
        if summary is None:
            return OracleEntry(n, title, pid, SUMMARY_FAILED,
                               truncate_tokens(source_text, self.summary_tokens), full)
        return OracleEntry(n, title, pid, SUMMARIZED, summary, full)

    def _summarize(self, request: str, title: str, text: str) -> str | None:
        prompt = fill_within(self.prompt, self.budget.prompt_tokens(self.summary_tokens),
                             {"request": request, "title": title,
                              "words": str(self.summary_words)},
                             lambda room: {"text": truncate_tokens(text, room)})
        try:
            reply = self.chat.complete([{"role": "user", "content": prompt}],
                                       max_tokens=self.summary_tokens).text
        except LLMCallError:
            return None
        reply = " ".join(reply.split())
        return reply or None


def _resolve(corpus: Any, spec: ReferenceSpec) -> str | None:
    """The corpus paper a file reference names: its first id that resolves, else its title
    (when exactly one corpus paper has it)."""
    if corpus is None:
        return None
    for identifier in spec.ids + ((spec.title,) if spec.title else ()):
        try:
            found = corpus.resolve(identifier)
        except Exception:
            found = None
        if found is not None:
            return found
    return None


def oracle_counts(contexts: Sequence[OracleContext]) -> dict[str, int]:
    """Totals over tasks: how many had each source, and the entry counts summed."""
    return oracle_totals([{"source": c.source, **c.counts()} for c in contexts])


def oracle_totals(tasks: Sequence[dict[str, Any]]) -> dict[str, int]:
    """`oracle_counts` from each task's ``{"source", **OracleContext.counts()}`` (what a
    score row keeps of its oracle context)."""
    out = {f"tasks_{s}": sum(t.get("source") == s for t in tasks) for s in SOURCES}
    for task in tasks:
        for key, value in task.items():
            if key != "source":
                out[key] = out.get(key, 0) + value
    return out


__all__ = ["ENTRY_STATUSES", "MODES", "OracleBuilder", "OracleContext", "OracleEntry",
           "ReferenceSpec", "oracle_counts", "oracle_totals", "read_reference_lists",
           "survey_cutoff", "survey_paper_id"]
