"""Samples at once: how many (`--max-samples`) and the bounded pool that runs them.

Threads, not asyncio: every agent contract here is a plain synchronous call (a user's function,
the openai SDK's sync client, llama.cpp through its HTTP server), the waits are network and
subprocess I/O that release the GIL, and a thread pool runs them unchanged. bench/bench_concurrency.py
measured it against a scripted endpoint (README, docs/scaling.md).

The default is sized to the endpoint: the agent role's own `concurrency` (4 for a remote
endpoint unless configured, 1 for the packaged local model), capped by the agent's
`max_samples` attribute when it declares one; an agent with no chat model of ours runs one
sample at a time unless `--max-samples` asks for more (its `solve` must then be thread-safe).
"""
from __future__ import annotations

import contextvars
import queue
import threading
from typing import Any, Callable, Iterable, Iterator, TypeVar

from scholarbench.errors import ScholarbenchError

T = TypeVar("T")
R = TypeVar("R")


def check_max_samples(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise ScholarbenchError(f"--max-samples must be at least 1, got {value}")
    return value


def samples_at_once(requested: int | None, agent: Any, llm: Any) -> int:
    """`requested` if given (capped by the agent's own `max_samples`), else the default above."""
    own = getattr(agent, "max_samples", None)
    if requested is not None:
        n = requested
    elif llm is not None and getattr(getattr(llm, "config", None), "concurrency", None):
        n = int(llm.config.concurrency)
    else:
        n = 1
    return max(1, min(n, int(own))) if isinstance(own, int) and own >= 1 else max(1, n)


def in_flight(items: Iterable[T], work: Callable[[T], R], max_workers: int
              ) -> Iterator[tuple[T, R]]:
    """`(item, work(item))` in completion order, at most `max_workers` running at once (the
    standard library's `Executor.map` submits every item up front and yields in input order,
    so one slow sample would hold back the writing of all later ones); each
    call runs in a copy of the caller's context (so context variables reach it). With one
    worker the calls run in the calling thread, one after another, exactly as a loop.

    Closing the iterator early (an exception in the consumer, Ctrl-C) starts no more items;
    those running are left to their threads and their results dropped — the engine redoes
    them on resume, since nothing was written for them. The threads are daemons (not a
    `ThreadPoolExecutor`'s, which the interpreter joins at exit), so Ctrl-C ends the process
    at once instead of after the slowest sample in flight."""
    if max_workers <= 1:
        for item in items:
            yield item, work(item)
        return
    pending = iter(items)
    finished: queue.SimpleQueue[tuple[T, bool, Any]] = queue.SimpleQueue()

    def start_next() -> bool:
        item = next(pending, _END)
        if item is _END:
            return False
        context = contextvars.copy_context()

        def run() -> None:
            try:
                finished.put((item, True, context.run(work, item)))
            except BaseException as exc:          # re-raised in the consumer, as before
                finished.put((item, False, exc))
        threading.Thread(target=run, name="sample", daemon=True).start()
        return True

    running = 0
    while running < max_workers and start_next():
        running += 1
    while running:
        item, ok, value = finished.get()
        running -= 1
        if not ok:
            raise value
        yield item, value
        running += start_next()


_END: Any = object()
