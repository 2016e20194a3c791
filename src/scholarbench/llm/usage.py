"""Per-client accounting: calls, cache hits, retries, tokens and cost, safe across threads.

Besides each client's totals, every count also goes to the *sample scope* active in the calling
context (`sample_scope()`), so an engine running several samples at once still knows which
sample's model calls failed and what each sample used. The scope lives in a `contextvars`
variable: it follows the sample into asyncio tasks and into threads started with
`contextvars.copy_context().run`, not into bare threads an agent starts itself (docs/agents.md).
"""
from __future__ import annotations

import contextvars
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partialmethod
from typing import Iterator


@dataclass
class Usage:
    calls: int = 0              # replies received from the model (after the cache)
    requests: int = 0           # every attempt sent, retries and abandoned ones included
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0           # calls that still failed after every retry
    recovered: int = 0          # of those, failures the caller mended (a 400 on a JSON-schema
                                # request asked again in a plainer form): not the agent's fault
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_tokens: int = 0   # tokens counted offline because the server gave no usage
    warnings: int = 0           # replies with implausible usage numbers (counted offline) or
                                # too long to cache (`llm.cache.MAX_CACHED_CHARS`)
    cost_usd: float | None = None
    unusable: int = 0           # JSON replies still unusable after the repair turn
                                # (`llm.structured.ask_json`; the judges' accounting)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _outer: "Usage | None | bool" = field(default=False, repr=False, compare=False)

    def _next(self) -> "Usage | None":
        """Where a count made here goes too: a client's usage to the active scope; a scope to
        the scope it was opened in (so an outer scope counts its nested scopes' calls)."""
        if self._outer is not False:
            return self._outer  # type: ignore[return-value]
        scope = _SCOPE.get()
        return scope if scope is not self else None

    def add_call(self, prompt_tokens: int, completion_tokens: int, *, estimated: bool,
                 cost: float | None) -> None:
        if (scope := self._next()) is not None:
            scope.add_call(prompt_tokens, completion_tokens, estimated=estimated, cost=cost)
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
            if estimated:
                self.estimated_tokens += prompt_tokens + completion_tokens
            if cost is not None:
                self.cost_usd = (self.cost_usd or 0.0) + cost

    def _add_one(self, counter: str) -> None:
        """One more of ``counter``, here and in the active sample scope."""
        if (scope := self._next()) is not None:
            scope._add_one(counter)
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)

    add_hit = partialmethod(_add_one, "cache_hits")
    add_request = partialmethod(_add_one, "requests")
    add_retry = partialmethod(_add_one, "retries")
    add_failure = partialmethod(_add_one, "failures")
    add_warning = partialmethod(_add_one, "warnings")
    add_recovered = partialmethod(_add_one, "recovered")
    add_unusable = partialmethod(_add_one, "unusable")

    def unrecovered_failures(self) -> int:
        with self._lock:
            return self.failures - self.recovered

    def as_dict(self) -> dict:
        with self._lock:
            return {"calls": self.calls, "requests": self.requests,
                    "cache_hits": self.cache_hits, "retries": self.retries,
                    "failures": self.failures, "prompt_tokens": self.prompt_tokens,
                    "completion_tokens": self.completion_tokens,
                    "estimated_tokens": self.estimated_tokens, "warnings": self.warnings,
                    "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6)}


_SCOPE: contextvars.ContextVar[Usage | None] = contextvars.ContextVar("sample_usage",
                                                                     default=None)


@contextmanager
def sample_scope() -> Iterator[Usage]:
    """Count every model call made in this context (by any client) in a fresh `Usage` too;
    a scope opened inside another passes its counts on to it."""
    scope = Usage(_outer=_SCOPE.get())
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def current_scope() -> Usage | None:
    """The sample scope of the calling context, if any."""
    return _SCOPE.get()
