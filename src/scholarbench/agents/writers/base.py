"""The report-writer interface shared by ReportBench and DeepSynth-Eval.

A writer gets a `WritingRequest` — the prompt the benchmark gives (ReportBench's evaluation prompt
with its cut-off date and "do not refer to the survey titled …"; DeepSynth-Eval's unified prompt)
and, where the benchmark provides one, an oracle context of references — and returns a Markdown
report with its citations. Writers that search do so in the offline corpus with the request's
filters (published before `cutoff`, `exclude_ids` never returned).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from scholarbench.core.registry import REGISTRY


@dataclass(frozen=True)
class OracleReference:
    """One reference of an oracle context, cited in the report as `[n]`."""
    n: int
    title: str
    paper_id: str | None = None
    text: str = ""             # what the writer may read: summary, abstract or full text


@dataclass(frozen=True)
class WritingRequest:
    task_id: str
    prompt: str                                    # exactly what the benchmark asks
    topic: str = ""                                # the short topic, for searching
    cutoff: date | None = None                     # only papers published before this
    exclude_ids: tuple[str, ...] = ()              # e.g. the survey itself
    oracle: tuple[OracleReference, ...] | None = None


@dataclass
class WrittenReport:
    markdown: str
    cited: list[str] = field(default_factory=list)     # corpus paper ids the report cites
    error: str | None = None                           # a failed write: counted, never raised
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class WriterContext:
    llm: Any = None                     # the agent role's ChatClient
    corpus_dir: Path | None = None
    corpus: Any = None                  # an open scholarbench.corpus.store.Corpus, if any
    embedder: Any = None
    params: dict[str, Any] = field(default_factory=dict)


class ReportWriter(Protocol):
    name: str
    uses_llm: bool

    def config(self) -> dict[str, Any]:
        """Everything that changes the output; recorded in the run manifest."""
        ...

    def write(self, request: WritingRequest, ctx: WriterContext) -> WrittenReport: ...


def make_writer(name: str, **params: Any) -> ReportWriter:
    factory = REGISTRY.get("agent", name)
    return factory(**params)  # type: ignore[operator]
