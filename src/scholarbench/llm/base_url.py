"""A configured base URL taken apart into what the SDK joins paths to, its query, its userinfo.

The openai SDK appends `chat/completions` to the base URL's raw path, query included, so
`https://h/v1?api_key=K` became `/v1/?api_key=Kchat/completions`; and httpx turns `user:pw@` in
a URL into Basic auth that replaces the SDK's `Authorization: Bearer`. So the client gives the
SDK the base URL without userinfo, query or fragment, sends the query with every request as a
query (`default_query`: `/v1/chat/completions?api_key=K`), and picks one credential:

**When both are given, the API key wins**: a key from the environment (`--api-key-env`,
`--judge-api-key-env`, `api_key_env`, `$OPENAI_API_KEY` for OpenAI) goes as `Authorization:
Bearer KEY` and the URL's `user:password` is not sent; with no key (a loopback server with no
key variable) the URL's `user:password` goes as `Authorization: Basic`.
"""
from __future__ import annotations

from base64 import b64encode
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from scholarbench.llm.config import PLACEHOLDER_KEYS

OPENAI_URL = "https://api.openai.com/v1"     # a role with no base URL; never $OPENAI_BASE_URL


@dataclass(frozen=True)
class BaseURL:
    url: str                                    # scheme://host[:port]/path, nothing else
    query: dict[str, str] = field(default_factory=dict)   # sent with every request
    basic: str | None = None                    # "Basic …" for the URL's user:password

    def headers(self, key: str) -> dict[str, str]:
        """Headers overriding the SDK's Bearer `key`: the URL's Basic credential, only when
        `key` is a placeholder rather than a configured key (the module's rule)."""
        if self.basic is not None and key in PLACEHOLDER_KEYS:
            return {"Authorization": self.basic}
        return {}

    def both(self, key: str) -> bool:
        """Whether a key and the URL's user:password were both given (the key wins)."""
        return self.basic is not None and key not in PLACEHOLDER_KEYS


def split_base_url(url: str) -> BaseURL:
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    basic = None
    if parts.username is not None or parts.password is not None:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        basic = "Basic " + b64encode(pair.encode()).decode()
    return BaseURL(urlunsplit((parts.scheme, netloc, parts.path, "", "")),
                   dict(parse_qsl(parts.query, keep_blank_values=True)), basic)
