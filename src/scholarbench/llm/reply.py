"""Read a 200 chat-completion reply defensively: the SDK builds its objects without validating
them, so a server may hand back any shape and any numbers.

- A reply that is not a chat completion (no choices, a choice without a message, content that is
  not text, a tool call without a function name) raises `BadReply`: the client retries it like a
  truncated body and, when every attempt fails, counts a failure.
- Token counts must be integers in [0, `MAX_TOKENS`]; anything else (1e308, -5, "12", true) is
  `None` here and the client counts the tokens offline, with a counted warning.
- Known secrets (`llm.secrets`) are masked in the text and in tool-call arguments, so an endpoint
  echoing its key into an answer leaves it in no record, cache or report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scholarbench.llm.secrets import redact_known

MAX_TOKENS = 10_000_000     # more than any model's context: larger is a broken server


class BadReply(Exception):
    """A 200 reply that is not a chat completion (retried, then a failure)."""


@dataclass(frozen=True)
class ReadReply:
    text: str
    calls: tuple[tuple[str, str, str], ...]     # (id, name, arguments)
    prompt_tokens: int | None                    # None: absent or invalid
    completion_tokens: int | None
    usage_invalid: bool                          # a usage block was there but unusable


def token_count(value: Any) -> int | None:
    """A usage number, or None when it is not a plausible token count."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_TOKENS:
        return value
    return None


def read_reply(response: Any) -> ReadReply:
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise BadReply("reply has no choices")
    message = getattr(choices[0], "message", None)
    if message is None or isinstance(message, (str, int, float, list, dict)):
        raise BadReply("reply's first choice has no message")
    content = getattr(message, "content", None)
    if content is not None and not isinstance(content, str):
        raise BadReply(f"reply content is {type(content).__name__}, not text")
    calls = []
    raw_calls = getattr(message, "tool_calls", None) or []
    if not isinstance(raw_calls, list):
        raise BadReply("reply's tool_calls is not a list")
    for call in raw_calls:
        function = getattr(call, "function", None)
        if function is None:
            continue
        name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, str)):
            raise BadReply("reply has a tool call without a function name or text arguments")
        calls.append((str(getattr(call, "id", "")), name, redact_known(arguments or "")))
    usage = getattr(response, "usage", None)
    prompt = completion = None
    invalid = False
    if usage is not None:
        raw_prompt = getattr(usage, "prompt_tokens", None)
        raw_completion = getattr(usage, "completion_tokens", None)
        prompt = token_count(raw_prompt)
        completion = 0 if raw_completion is None else token_count(raw_completion)
        invalid = raw_prompt is not None and (prompt is None or completion is None)
        if prompt is None or completion is None:
            prompt = completion = None
    return ReadReply(redact_known(content or ""), tuple(calls), prompt, completion, invalid)
