"""Token budgets for writer and oracle prompts, so no request overflows the model's context.

Counts use `scholarbench.llm.tokens.count_tokens` (OpenAI's o200k_base, offline). The served
model tokenises differently, so a request is sized with a safety ratio:

    count_message_tokens(messages) × token_ratio + max_tokens + overhead ≤ context_window

- ``context_window`` (default 8192: the packaged Qwen2.5-Coder-0.5B's n_ctx),
- ``token_ratio`` (default 1.3): served-model tokens per o200k token, an upper estimate.
  Measured with the packaged model's own tokenizer: 1.04 on the four DeepSynth example reports,
  1.23 on full-text paragraphs of the default corpus (LaTeX-heavy text splits more);
- ``overhead`` (default 64): chat-template tokens the server adds around the messages;
- ``max_tokens``: the reply cap of that request (reserved in full).

A JSON request (`ask_json`) may get one repair turn that appends the model's reply and a short
message to the same conversation; its prompt budget also reserves ``max_tokens + 60`` o200k
tokens for that turn (:meth:`TokenBudget.prompt_tokens` with ``repair=True``).

Truncation rules (stated once, used everywhere):

- :func:`truncate_tokens` keeps the first n tokens of a text (cut on a token boundary, then
  trimmed to the last whole word when one is within 20 characters) and appends " …" when it cut.
- :func:`tail_tokens` keeps the last n tokens instead ("… " prepended when it cut).
- :func:`pack` shares a token budget among several texts by water-filling: every text gets
  ``min(its length, share)`` where the share is the equal split of what the shorter texts leave
  over, so short texts stay whole and long ones are cut to the same length; order is kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Sequence

from scholarbench.llm.tokens import count_message_tokens, count_tokens

ELLIPSIS = " …"
REPAIR_TOKENS = 60
MESSAGE_OVERHEAD = 8   # count_message_tokens of one user message beyond its content (7), +1


@lru_cache(maxsize=1)
def _encoding():
    import bpe_openai
    return bpe_openai.get_encoding("o200k_base")


@dataclass(frozen=True)
class TokenBudget:
    context_window: int = 8192
    token_ratio: float = 1.3
    overhead: int = 64

    def __post_init__(self) -> None:
        if self.context_window < 512:
            raise ValueError(f"context_window must be at least 512 tokens, got "
                             f"{self.context_window}")
        if not 1.0 <= self.token_ratio <= 4.0:
            raise ValueError(f"token_ratio must be in [1, 4], got {self.token_ratio}")
        if self.overhead < 0:
            raise ValueError(f"overhead must be >= 0, got {self.overhead}")

    def prompt_tokens(self, max_tokens: int, *, repair: bool = False) -> int:
        """o200k tokens the content of a one-message request with reply cap ``max_tokens`` may
        hold (the message's own overhead, ``MESSAGE_OVERHEAD``, already taken off)."""
        room = (self.context_window - max_tokens - self.overhead) / self.token_ratio
        room -= MESSAGE_OVERHEAD
        if repair:
            room -= max_tokens + REPAIR_TOKENS
        if room < 128:
            raise ValueError(f"max_tokens {max_tokens} leaves no room for a prompt in a "
                             f"{self.context_window}-token context")
        return int(room)

    def fits(self, messages: list[dict[str, Any]], max_tokens: int) -> bool:
        return (count_message_tokens(messages) * self.token_ratio + max_tokens + self.overhead
                <= self.context_window)

    def config(self) -> dict[str, Any]:
        return {"context_window": self.context_window, "token_ratio": self.token_ratio,
                "overhead": self.overhead}


def _shorten(text: str, limit: int, piece: Callable[[list[int], int], str]) -> str:
    """``text`` when it fits in ``limit`` tokens; else ``piece(tokens, keep)`` for the largest
    ``keep`` < ``limit`` - 1 whose result fits; "" when none does or ``limit`` <= 0."""
    if limit <= 0 or not text:
        return ""
    tokens = _encoding().encode(text)
    if len(tokens) <= limit:
        return text
    for keep in range(max(0, limit - 2), 0, -1):
        out = piece(tokens, keep)
        if count_tokens(out) <= limit:
            return out
    return ""


def _head(tokens: list[int], keep: int) -> str:
    head = _encoding().decode_bytes(tokens[:keep]).decode("utf-8", "ignore").rstrip()
    space = head.rfind(" ")
    if space >= len(head) - 20 and space > 0:
        head = head[:space].rstrip()
    return head + ELLIPSIS if head else ""


def _tail(tokens: list[int], keep: int) -> str:
    tail = _encoding().decode_bytes(tokens[len(tokens) - keep:]).decode("utf-8", "ignore")
    return "… " + tail.lstrip()


def truncate_tokens(text: str, limit: int) -> str:
    """The first ``limit`` tokens of ``text`` (" …" appended when cut; never longer than
    ``limit`` tokens, the ellipsis included); "" for ``limit`` <= 0."""
    return _shorten(text, limit, _head)


def tail_tokens(text: str, limit: int) -> str:
    """The last ``limit`` tokens of ``text`` ("… " prepended when cut; never longer than
    ``limit`` tokens); "" for ``limit`` <= 0."""
    return _shorten(text, limit, _tail)
    enc = _encoding()
    tokens = enc.encode(text)
    if len(tokens) <= limit:
        return text
    keep = max(0, limit - 2)
    while keep > 0:
        tail = enc.decode_bytes(tokens[len(tokens) - keep:]).decode("utf-8", "ignore").lstrip()
        out = "… " + tail
        if count_tokens(out) <= limit:
            return out
        keep -= 1
    return ""


def shares(lengths: Sequence[int], budget: int) -> list[int]:
    """Water-filling: token caps per item (same order) summing to at most ``budget``."""
    n = len(lengths)
    caps = [0] * n
    remaining = max(0, budget)
    order = sorted(range(n), key=lambda i: (lengths[i], i))
    for rank, i in enumerate(order):
        share = remaining // (n - rank)
        caps[i] = min(lengths[i], share)
        remaining -= caps[i]
    return caps


def pack(texts: Sequence[str], budget: int) -> list[str]:
    """Each text cut to its water-filling share of ``budget`` tokens (order kept)."""
    lengths = [count_tokens(t) for t in texts]
    return [t if cap >= n else truncate_tokens(t, cap)
            for t, n, cap in zip(texts, lengths, shares(lengths, budget))]


__all__ = ["ELLIPSIS", "MESSAGE_OVERHEAD", "REPAIR_TOKENS", "TokenBudget", "pack", "shares",
           "tail_tokens", "truncate_tokens"]
