"""What a benchmark offers the literature tools for one sub-task (`Benchmark.tool_source`).

A benchmark that offers the tools returns a `ToolSource`; the base default is None, and every
way in — a run's agent with `needs.tools` (`provider.ToolProvider`), `tools serve`, Inspect's
`tools=true` — refuses such a benchmark with one line (`offered`). Making the record opens
nothing: the corpus is opened by `open_corpus`, which the callers call only when the tools are
about to be used (after the agent's context; for `tools serve --task`, after the task was
found), exactly as often as before.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from scholarbench.errors import ScholarbenchError

if TYPE_CHECKING:       # rules.py pulls in numpy and pydantic; this module stays light
    from scholarbench.tools.rules import AccessRules


@dataclass(frozen=True)
class ToolSource:
    """The corpus, the per-sample rules and how `tools serve --task ID` finds its sample.

    `samples` is every sample of the sub-task (typically `load(subtask, None).samples`): by
    default `sample` picks from it by id and `task_hint` names some ids. A benchmark whose
    `load` builds costly gold passes `find` (the sample with only what `rules` reads of it, or
    None) and `hint` instead, and may leave `samples` out."""
    open_corpus: Callable[[], tuple[Any, Path | None]]   # (open Corpus, its directory); may
                                                          # be called more than once
    rules: Callable[[Any], "AccessRules"]                 # a Sample → what its tools hide
    samples: Callable[[], Sequence[Any]] | None = None
    find: Callable[[str], Any | None] | None = None
    hint: Callable[[], str] | None = None

    def __post_init__(self) -> None:
        if self.samples is None and (self.find is None or self.hint is None):
            raise TypeError("a ToolSource needs `samples`, or both `find` and `hint`")

    def sample(self, task_id: str) -> Any | None:
        """The sample `task_id` with what `rules` reads of it, or None when there is none."""
        if self.find is not None:
            return self.find(task_id)
        assert self.samples is not None
        return next((s for s in self.samples() if s.id == task_id), None)

    def task_hint(self) -> str:
        """Which task ids there are, for the one-line error naming an unknown one."""
        if self.hint is not None:
            return self.hint()
        assert self.samples is not None
        return ids_hint([s.id for s in self.samples()])


def offered(bench: Any, subtask: str) -> ToolSource:
    """`bench`'s tool source for `subtask`, or one line saying it offers none."""
    source = bench.tool_source(subtask)
    if source is None:
        raise ScholarbenchError(f"{bench.name} does not offer the literature tools")
    return source


def ids_hint(ids: Sequence[str], n: int = 5) -> str:
    """"101 tasks, e.g. a, b, c, d, e"."""
    return f"{len(ids)} tasks, e.g. {', '.join(ids[:n])}"
