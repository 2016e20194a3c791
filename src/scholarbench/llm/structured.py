"""JSON replies: ask with a schema where the server supports it, parse strictly, repair once.

Strict parsing means the whole reply must be one JSON value; the only leniency is one Markdown
code fence around it (```json … ```), which small models add even in JSON mode. A reply that
fails to parse or validate, or holds a lone surrogate (no run file could record it), gets one
repair turn naming the problem; if that fails too, the item is "unscored" with the reason, for the
caller to count and show. A reply that did not parse is
dropped from the reply cache, so the next run or re-score asks again. Nothing here raises on bad
model output.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from scholarbench.llm.client import ChatClient, LLMCallError, Messages

_FENCE = re.compile(r"^```(?:json|JSON)?\s*\n(.*)\n\s*```$", re.DOTALL)


@dataclass(frozen=True)
class JsonOutcome:
    value: Any = None
    unscored: str | None = None     # why no value could be had; None when `value` is good
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.unscored is None


def parse_json_strict(text: str) -> Any:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    return json.loads(body)


JSON_MODES = ("llama", "schema", "object", "none")


def response_formats(schema: dict | None, name: str) -> dict[str, dict | None]:
    """Each way of asking for JSON, strongest first. "llama" is llama-cpp-python's own form (a
    grammar from the schema); "schema" is OpenAI's structured outputs."""
    if schema is None:
        return {"llama": {"type": "json_object"}, "schema": {"type": "json_object"},
                "object": {"type": "json_object"}, "none": None}
    return {"llama": {"type": "json_object", "schema": schema},
            "schema": {"type": "json_schema",
                       "json_schema": {"name": name, "schema": schema, "strict": True}},
            "object": {"type": "json_object"}, "none": None}


REPAIR_HINT = "Reply again with only the JSON value asked for, nothing before or after it."


def ask_json(client: ChatClient, messages: Messages, *, validate: Callable[[Any], Any],
             schema: dict | None = None, name: str = "reply", repairs: int = 1,
             parse: Callable[[str], Any] = parse_json_strict, constrain: bool = True,
             repair_hint: str = REPAIR_HINT, **sampling: Any) -> JsonOutcome:
    """`validate(parse(reply))` returns the value to keep or raises ValueError naming what is
    wrong. A reply format with its own wrapping (e.g. JSON inside tags) passes its own `parse`
    and `constrain=False`, so the server is not told to emit bare JSON."""
    history = list(messages)
    formats = response_formats(schema, name) if constrain else None
    problem = "no reply"
    for attempt in range(1, repairs + 2):
        used: dict | None = None
        try:
            if formats is not None:
                text, used = _complete(client, history, formats, sampling)
            else:
                text = client.complete(history, **sampling).text
        except LLMCallError as exc:
            return JsonOutcome(unscored=f"call failed: {exc}", attempts=attempt)
        try:
            problem = not_utf8(text) or ""
            if not problem:
                value = parse(text)      # `"\\ud800"` in JSON text parses to a lone surrogate
                problem = not_utf8(json.dumps(value, ensure_ascii=False, default=str)) or ""
            if not problem:
                return JsonOutcome(value=validate(value), attempts=attempt)
        except json.JSONDecodeError as exc:
            problem = f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        except (ValueError, TypeError, KeyError) as exc:
            problem = f"JSON of the wrong shape ({exc})"
        forget_reply(client, history, response_format=used, **sampling)
        history = history + [
            {"role": "assistant", "content": text.encode("utf-8", "replace").decode("utf-8")},
            {"role": "user", "content": f"Your reply was {problem}. {repair_hint}"}]
    usage = getattr(client, "usage", None)
    if hasattr(usage, "add_unusable"):          # counted per judge (core.judging)
        usage.add_unusable()
    return JsonOutcome(unscored=f"after {repairs} repair(s): {problem}", attempts=repairs + 1)


def not_utf8(text: str) -> str | None:
    """Why a reply cannot be kept (a lone surrogate, which JSON carries as `\\ud800` but UTF-8
    cannot hold, so no run file could record it), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"not UTF-8 (a lone surrogate, {text[exc.start:exc.end]!a})"
    return None


def forget_reply(client: Any, messages: Messages, **params: Any) -> None:
    """Drop a reply that did not parse from the client's cache (llm.cache), if it has one."""
    forget = getattr(client, "forget", None)
    if callable(forget):
        forget(messages, **params)


def _complete(client: ChatClient, messages: Messages, formats: dict[str, dict | None],
              sampling: dict[str, Any]) -> tuple[str, dict | None]:
    """Ask with the schema; a server that rejects that form (HTTP 400) is asked in the next one,
    and the client remembers the form that worked."""
    mode = getattr(client, "json_mode", "schema")
    order = JSON_MODES[JSON_MODES.index(mode):]
    last: LLMCallError | None = None
    for current in order:
        try:
            reply = client.complete(messages, response_format=formats[current], **sampling)
            client.json_mode = current
            return reply.text, formats[current]
        except LLMCallError as exc:
            if "400" not in str(exc) and "BadRequest" not in str(exc):
                raise
            if current != order[-1]:
                client.usage.add_recovered()     # asked again in the next form
            last = exc
    raise last  # type: ignore[misc]
