"""A persistent reply cache keyed only on what changes a reply.

The key hashes the model identity, the messages, the sampling parameters, the seed and the
requested output format. Timeouts, retry counts, concurrency and API keys are not part of it, so
changing them never invalidates the cache, and no key material ever reaches the file: the model
id records its base URL through `llm.secrets.redact_url`, and known secrets are masked in the
stored text.

A reply longer than `MAX_CACHED_CHARS` characters is not stored (`put` returns False; the client
counts a warning), so one runaway reply cannot fill the cache file; it is asked again next time.
Nor is a reply that UTF-8 cannot hold (a lone surrogate, which JSON can carry as `\\ud800`): it
goes back to the caller as it came, so an endpoint agent's reply is judged like a Python agent's
answer (`malformed`, by the run's writer) instead of failing in the cache (`error`).

Every reply is stored when it arrives; a caller that cannot parse a reply as what it asked for
(a judge verdict, a JSON value) drops it again (`ChatClient.forget`), so only usable replies are
served from the cache and an unscored item is asked again on the next run or re-score.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.llm.secrets import redact_known

CACHE_FORMAT = 1
MAX_CACHED_CHARS = 2_000_000


def cache_key(*, model_id: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    payload = {"v": CACHE_FORMAT, "model": model_id, "messages": messages,
               "params": {k: v for k, v in sorted(params.items()) if v is not None}}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass
class CachedReply:
    text: str
    prompt_tokens: int
    completion_tokens: int


class ReplyCache:
    """SQLite file (or memory when `path` is None); safe to share between threads."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path) if self.path else ":memory:",
                                   check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        with self._lock:
            if self.path:
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS reply (key TEXT PRIMARY KEY, model TEXT, "
                             "text TEXT, prompt_tokens INTEGER, completion_tokens INTEGER)")
            self._db.commit()

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._db.execute("SELECT text, prompt_tokens, completion_tokens FROM reply "
                                   "WHERE key = ?", (key,)).fetchone()
        return CachedReply(*row) if row else None

    def put(self, key: str, model_id: str, reply: CachedReply) -> bool:
        """Store a reply; False (nothing stored) when it is longer than `MAX_CACHED_CHARS` or
        is not UTF-8 (a lone surrogate)."""
        if len(reply.text) > MAX_CACHED_CHARS or not _utf8(reply.text):
            return False
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO reply VALUES (?, ?, ?, ?, ?)",
                             (key, redact_known(model_id), redact_known(reply.text),
                              reply.prompt_tokens, reply.completion_tokens))
            self._db.commit()
        return True

    def delete(self, key: str) -> None:
        """Drop one reply (one that did not parse as what was asked: the next ask re-sends)."""
        with self._lock:
            self._db.execute("DELETE FROM reply WHERE key = ?", (key,))
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM reply").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
