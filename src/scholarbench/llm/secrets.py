"""Keep API keys out of every text we print, log or store.

Known secrets (`remember`): every key this process handed to an endpoint (`ModelConfig.api_key`),
the values of the key variables that are set (`$OPENAI_API_KEY`, the variables named by
`--api-key-env` / `--judge-api-key-env` / `api_key_env` / `$SCHOLARBENCH_*_API_KEY_ENV`:
`remember_environment`), and the password (also as the Basic-auth value httpx sends for it) and
the credential-like query values of every configured base URL (`remember_url`). Values shorter than `MIN_SECRET` (8) characters are not remembered:
replacing every occurrence of a short string would mangle ordinary text, and no real API key is
that short (a short one is still masked where it sits in a URL or a header, by the patterns).

Three strengths of redaction, from the narrowest:
- `redact_known(text)` / `redact_json(obj)`: the known secrets only. The run directory's writers
  (`core.rundir`), the reply cache and the client's replies use it, so an agent's answer is
  stored as given except for a key the endpoint echoed into it.
- `redact(text, prose=True)`: also URL userinfo, credential-like query values and `sk-…` keys
  (report writers and the command's stdout/stderr).
- `redact(text)`: also `Bearer <token>`, `Authorization: <value>`, `x-api-key: <value>` (error
  texts, recorded argv).

`redact_url(url)` is what manifests, model ids and cache keys record of a base URL: no userinfo,
credential-like query values (`CREDENTIAL_PARAMS`) as `***`; a URL without either is unchanged.

Hand-written (a few regular expressions) because no maintained library does this narrow job
offline; the patterns are deliberately broad — a redacted non-secret costs nothing.
"""
from __future__ import annotations

import os
import re
from base64 import b64encode
import sys
import threading
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import parse_qsl, unquote, urlsplit

MASK = "***"
MIN_SECRET = 8
_known: set[str] = set()
_lock = threading.Lock()

# query parameter names that carry credentials (matched whole, case-insensitive, `-`/`_` alike)
CREDENTIAL_PARAMS = r"(?:[a-z0-9_-]*[_-])?(?:api[_-]?key|apikey|key|token|access[_-]?token|" \
                    r"refresh[_-]?token|id[_-]?token|secret|client[_-]?secret|password|passwd|" \
                    r"pwd|sig|signature|auth|authorization|credential|credentials|session)"
_QUERY = re.compile(r"(?i)([?&;]" + CREDENTIAL_PARAMS + r"=)[^&#\s\"'<>]+")
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@\"'<>]+@")
_SK = (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-" + MASK)
_PROSE = [(_QUERY, r"\1" + MASK), (_USERINFO, r"\1" + MASK + "@"), _SK]
_HEADERS = [
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{6,}"), r"\1 " + MASK),
    (re.compile(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+(\s+[^\s\"',}]+)?"),
     r"\1" + MASK),
    (re.compile(r"(?i)\b((?:x-)?api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"), r"\1" + MASK),
]
_CREDENTIAL_NAME = re.compile(r"(?i)" + CREDENTIAL_PARAMS)
_KEY_ENV_FLAGS = ("--api-key-env", "--judge-api-key-env")


def remember(secret: str | None) -> None:
    """Redact this exact value from now on (values of `MIN_SECRET` characters or more)."""
    if secret and len(secret) >= MIN_SECRET:
        with _lock:
            _known.add(secret)


def remember_url(url: str | None) -> None:
    """Remember the password and the credential-like query values of a configured URL."""
    if not url:
        return
    try:
        parts = urlsplit(url)
        password = parts.password
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return
    if password is not None:              # as given, decoded, and as its Basic-auth header
        user, plain = unquote(parts.username or ""), unquote(password)
        for value in (password, plain, b64encode(f"{user}:{plain}".encode()).decode()):
            remember(value)
    for name, value in query:
        if _CREDENTIAL_NAME.fullmatch(name):
            remember(value)


def remember_environment(argv: Sequence[str] = (),
                         environ: Mapping[str, str] | None = None) -> None:
    """Remember the keys this process could send: `$OPENAI_API_KEY`, the variables named by
    `--api-key-env` / `--judge-api-key-env` in `argv` and by `$SCHOLARBENCH_*_API_KEY_ENV`,
    and the secrets in `--base-url` / `--judge-base-url` and `$SCHOLARBENCH_*_BASE_URL`."""
    environ = os.environ if environ is None else environ
    names = {"OPENAI_API_KEY", environ.get("SCHOLARBENCH_MODEL_API_KEY_ENV", ""),
             environ.get("SCHOLARBENCH_JUDGE_API_KEY_ENV", "")}
    urls = [environ.get("SCHOLARBENCH_MODEL_BASE_URL"), environ.get("SCHOLARBENCH_JUDGE_BASE_URL")]
    for flag, value in _flag_values(argv):
        if flag in _KEY_ENV_FLAGS:
            names.add(value)
        elif flag.endswith("base-url"):
            urls.append(value)
    for name in names:
        if name:
            remember(environ.get(name))
    for url in urls:
        remember_url(url)


def _flag_values(argv: Sequence[str]) -> Iterable[tuple[str, str]]:
    for i, arg in enumerate(argv):
        if arg.startswith("--") and "=" in arg:
            flag, _, value = arg.partition("=")
            yield flag, value
        elif arg.startswith("--") and i + 1 < len(argv):
            yield arg, argv[i + 1]


def redact_known(text: str) -> str:
    """`text` with every known secret replaced by `***`."""
    if not text or not _known:
        return text
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact(text: str, *, prose: bool = False) -> str:
    """Known secrets and credential-shaped text (module docstring); `prose=True` leaves words
    like "bearer" alone and masks only URL credentials and `sk-` keys besides known secrets."""
    if not text:
        return text
    text = redact_known(text)
    for pattern, replacement in _PROSE if prose else _PROSE + _HEADERS:
        text = pattern.sub(replacement, text)
    return text


def redact_json(obj: Any) -> Any:
    """A copy of a JSON-able value with known secrets masked in every string (keys too); the
    value itself when there is nothing to mask."""
    if not _known:
        return obj
    return _walk(obj)


def _walk(obj: Any) -> Any:
    if isinstance(obj, str):
        return redact_known(obj)
    if isinstance(obj, dict):
        return {(_walk(k) if isinstance(k, str) else k): _walk(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_walk(v) for v in obj]
    return obj


def redact_url(url: str | None) -> str | None:
    """The URL as it may be recorded: without userinfo, credential-like query values masked,
    known secrets masked (None stays None; a URL with none of these is returned unchanged)."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
        has_userinfo = parts.username is not None or parts.password is not None
    except ValueError:
        return redact(url)
    if has_userinfo:
        url = url.replace(parts.netloc, parts.netloc.rpartition("@")[2], 1)
    return redact(url, prose=True)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line as it may be recorded: every argument through `redact`."""
    return [redact(str(arg)) for arg in argv]


class RedactingStream:
    """A text stream that writes everything through `redact(prose=True)` (stdout, stderr)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text, prose=True))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def redacting_std_streams() -> Any:
    """Wrap sys.stdout and sys.stderr; returns a function that puts the old ones back."""
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if isinstance(s, RedactingStream) or s is None
                              else RedactingStream(s) for s in old)

    def restore() -> None:
        sys.stdout, sys.stderr = old
    return restore
