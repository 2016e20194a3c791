"""Offline token counts with bpe-openai (tiktoken would download its tables, which fails here).

Used only when a server returns no `usage`; the counts follow OpenAI's o200k_base encoding plus
OpenAI's documented per-message overhead, so for other models they are estimates (recorded so).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _encoding():
    import bpe_openai
    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text)) if text else 0


def count_message_tokens(messages: list[dict[str, Any]]) -> int:
    total = 3   # every reply is primed with <|start|>assistant<|message|>
    for message in messages:
        total += 3
        for value in message.values():
            if isinstance(value, str):
                total += count_tokens(value)
    return total
