"""Transcripts: every chat call made in a scope, kept as the exchange it was (docs/reports.md,
"Transcripts").

`transcript_scope()` opens a transcript for the calling context (a sample being solved, a
judge request being asked); every `ChatClient.complete` made in that context — the built-in
agents', the endpoint agent's and its tool loop's, a judge's — adds one step: the messages
sent, the reply's text and tool calls, tokens, whether it came from the reply cache, latency,
or the error it raised. A Python agent adds its own steps with `AgentContext.note(...)`.

Known secrets (keys, credentialed URLs) are masked in every text (`llm.secrets.redact_known`,
as every run file; the report masks credential-shaped text too). A transcript is capped: each
text at `MAX_TEXT` characters and the whole at `MAX_STEPS` steps and `MAX_CHARS` characters;
what is cut is counted (`truncated_steps`, `truncated_chars`), never silently dropped. Calls
made from a thread the agent started without copying its context (`contextvars.copy_context`)
are not in its transcript (their usage is still counted on the client).
"""
from __future__ import annotations

import contextvars
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from scholarbench.llm.secrets import redact_known

MAX_TEXT = 20_000          # characters of one message or reply kept
JUDGE_TEXT = 4_000         # of a judge's: its prompt is rebuilt from the sample and prompt
                           # version; a judge record per request, at any number of samples
MAX_STEPS = 200            # steps kept per transcript
MAX_CHARS = 400_000        # characters kept per transcript


@dataclass
class Transcript:
    steps: list[dict[str, Any]] = field(default_factory=list)
    truncated_steps: int = 0
    truncated_chars: int = 0
    chars: int = 0
    max_text: int | None = None         # of one text (None: `MAX_TEXT`)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _text(self, text: Any) -> str:
        body = redact_known(str(text or ""))   # as every run file (`RunDir.append`): cheap
                                               # on the hot path of every call
        room = max(0, min(self.max_text or MAX_TEXT, MAX_CHARS - self.chars))
        if len(body) > room:
            self.truncated_chars += len(body) - room
            body = body[:room] + f" … [{len(body) - room} characters cut]"
        self.chars += len(body)
        return body

    def add(self, kind: str, **data: Any) -> None:
        """One step (`kind`: "chat", or an agent's own name for a step of its own)."""
        with self._lock:
            if len(self.steps) >= MAX_STEPS or self.chars >= MAX_CHARS:
                self.truncated_steps += 1
                return
            step: dict[str, Any] = {"kind": kind}
            for key, value in data.items():
                if key == "messages":
                    value = [{"role": str(m.get("role", "")),
                              "content": self._text(m.get("content"))}
                             | ({"tool_calls": m["tool_calls"]} if m.get("tool_calls") else {})
                             for m in value if isinstance(m, dict)]
                elif isinstance(value, str):
                    value = self._text(value)
                step[key] = value
            self.steps.append(step)

    def as_record(self) -> dict[str, Any]:
        with self._lock:
            return {"steps": list(self.steps), "truncated_steps": self.truncated_steps,
                    "truncated_chars": self.truncated_chars}

    def __bool__(self) -> bool:
        return bool(self.steps or self.truncated_steps)


_CURRENT: contextvars.ContextVar[Transcript | None] = contextvars.ContextVar(
    "transcript", default=None)


@contextmanager
def transcript_scope(max_text: int | None = None) -> Iterator[Transcript]:
    """A fresh transcript for the calls made in this context (an inner scope has its own);
    `max_text`: characters kept of one text (default `MAX_TEXT`)."""
    transcript = Transcript(max_text=max_text)
    token = _CURRENT.set(transcript)
    try:
        yield transcript
    finally:
        _CURRENT.reset(token)


def current() -> Transcript | None:
    return _CURRENT.get()


def record_chat(model: str, messages: Sequence[dict[str, Any]], params: dict[str, Any],
                reply: Any = None, *, seconds: float, error: str | None = None) -> None:
    """One chat call into the current transcript (none open: nothing)."""
    transcript = _CURRENT.get()
    if transcript is None:
        return
    data: dict[str, Any] = {"model": model, "messages": list(messages),
                            "params": {k: v for k, v in params.items()
                                       if k in ("temperature", "max_tokens", "seed")
                                       and v is not None},
                            "seconds": round(seconds, 3)}
    if reply is not None:
        data.update(reply=reply.text, cached=bool(reply.cached),
                    prompt_tokens=reply.prompt_tokens,
                    completion_tokens=reply.completion_tokens)
        if reply.tool_calls:
            data["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments}
                                  for c in reply.tool_calls]
    if error is not None:
        data["error"] = error
    transcript.add("chat", **data)


def note(kind: str, **data: Any) -> None:
    """An agent's own step (a search, a decision) into the current transcript."""
    transcript = _CURRENT.get()
    if transcript is not None:
        transcript.add(str(kind), **{k: v if isinstance(v, (str, int, float, bool, type(None)))
                                     else str(v) for k, v in data.items()})


__all__ = ["JUDGE_TEXT", "MAX_CHARS", "MAX_STEPS", "MAX_TEXT", "Transcript", "current", "note",
           "record_chat", "transcript_scope"]
