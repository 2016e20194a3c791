"""Keep API keys out of every text we print, log or store.

`redact(text)` replaces, before an error text leaves the process or reaches a file:
- every key this process handed to an endpoint (`remember` is called by `ModelConfig.api_key`);
- anything shaped like a credential: `Bearer <token>`, `Authorization: <value>`, OpenAI-style
  `sk-…` keys, `?api_key=` / `&key=` / `&token=` URL query values;
- the userinfo of URLs (`https://user:secret@host` → `https://***@host`).

`strip_userinfo(url)` is what manifests and model ids record of a base URL.

Hand-written (a few regular expressions) because no maintained library does this narrow job
offline; the patterns are deliberately broad — a redacted non-secret costs nothing.
"""
from __future__ import annotations

import re
import threading
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
_known: set[str] = set()
_lock = threading.Lock()
_PATTERNS = [
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}"), r"\1 " + MASK),
    (re.compile(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+(\s+[^\s\"',}]+)?"),
     r"\1" + MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-" + MASK),
    (re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access_token|secret)=)[^&\s\"']+"),
     r"\1" + MASK),
    (re.compile(r"(?i)\b(x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"), r"\1" + MASK),
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@]+@"), r"\1" + MASK + "@"),
]


def remember(secret: str | None) -> None:
    """Redact this exact value from now on (keys of 6 characters or more)."""
    if secret and len(secret) >= 6:
        with _lock:
            _known.add(secret)


def redact(text: str) -> str:
    if not text:
        return text
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def strip_userinfo(url: str | None) -> str | None:
    """The URL without `user:password@` (None stays None; a string that is no URL is kept)."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
