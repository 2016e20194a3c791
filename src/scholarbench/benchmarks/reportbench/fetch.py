"""Fetching a cited URL, only when the user turns the network on, and never into private space.

`fetch_url(url, allow_network=..., max_bytes=..., timeout=...)`:
- refuses unless `allow_network` is True (the default everywhere is off: scoring is offline);
- refuses any scheme but http and https, and URLs with a user name or password in them;
- resolves the host ONCE and refuses when ANY address it resolves to is not a public unicast
  address: private (10/8, 172.16/12, 192.168/16, fc00::/7), loopback (127/8, ::1), link-local
  (169.254/16 — cloud metadata — and fe80::/10), multicast, reserved, unspecified (0.0.0.0,
  ::), shared/CGNAT (100.64/10), documentation and benchmark ranges, and everything else
  `ipaddress` does not call global. IPv4-mapped IPv6 (::ffff:a.b.c.d) is refused whatever
  the IPv4 address (`ipaddress` counts ::ffff:0:0/96 as private); an IPv6 address embedding
  IPv4 otherwise (6to4 2002::/16, Teredo, NAT64 64:ff9b::/96) must have a public IPv4 too.
  Numeric spellings (`http://2130706433/`,
  `http://0x7f.1/`) are caught because the check runs on what the name resolves to;
- connects to the checked address itself (the Host header and TLS server name carry the host
  name, and the certificate is verified against it), so a DNS answer that changes between the
  check and the connection (DNS rebinding) cannot redirect it;
- follows redirects by hand (301, 302, 303, 307, 308; at most `max_redirects`), re-checking
  each target's scheme, host and addresses;
- caps the body at `max_bytes` (reads stop there; `truncated` says so; a declared
  Content-Length above the cap stops before reading), asks for `Accept-Encoding: identity`
  (no decompression bombs), and caps time: `timeout` seconds for the whole fetch, redirects
  included (each socket operation gets what is left).

Refusals raise `FetchRefused`; network failures, bad responses, redirect loops and timeouts
raise `FetchError`. Both are ScholarbenchErrors, so the caller can count the URL as
unreachable and go on.

For tests only, `_resolve` (host, port -> addresses) and `_address_allowed` (ipaddress ->
bool) replace the resolver and the address rule; no configuration reaches them.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence
from urllib.parse import urljoin, urlsplit

from scholarbench.errors import ScholarbenchError
from scholarbench.hosts import Address, public_address   # the one address rule (`hosts`)

REDIRECTS = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "scholarbench-reportbench/0.1 (+offline benchmark; fetches only when enabled)"


class FetchRefused(ScholarbenchError):
    """The URL was not fetched: network off, a scheme other than http(s), or a host that
    resolves to a non-public address."""


class FetchError(ScholarbenchError):
    """The fetch failed: connection, TLS, timeout, too many redirects, a malformed reply."""


@dataclass
class FetchResult:
    url: str                        # the final URL (after redirects)
    status: int
    content_type: str
    body: bytes
    truncated: bool                 # the body was cut at max_bytes
    redirects: list[str] = field(default_factory=list)   # URLs redirected from, in order
    elapsed: float = 0.0

    def text(self) -> str:
        charset = "utf-8"
        for part in self.content_type.split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                charset = value.strip("\"' ")
        try:
            return self.body.decode(charset, errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


def _system_resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise FetchError(f"cannot resolve {host!r}: {exc}") from exc
    return list(dict.fromkeys(info[4][0] for info in infos))


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    path: str
    address: str


def check_url(url: str, *, _resolve: Callable[[str, int], Sequence[str]] | None = None,
              _address_allowed: Callable[[Address], bool] | None = None) -> _Target:
    """The checked connection target of `url`, or FetchRefused saying why not."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchRefused(f"not a valid URL: {url!r} ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise FetchRefused(f"only http and https URLs are fetched, not {scheme or 'none'!r}: "
                           f"{url}")
    if parts.username is not None or parts.password is not None:
        raise FetchRefused(f"URLs with credentials are not fetched: {url}")
    host = parts.hostname
    if not host:
        raise FetchRefused(f"no host in {url!r}")
    if not host.isascii():                       # internationalised names go out as IDNA
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise FetchRefused(f"not a valid host name: {host!r}") from exc
    port = port or (443 if scheme == "https" else 80)
    allowed = _address_allowed or public_address
    addresses = list((_resolve or _system_resolve)(host, port))
    if not addresses:
        raise FetchError(f"{host!r} resolves to no address")
    for text in addresses:
        try:
            ip = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError as exc:
            raise FetchRefused(f"{host!r} resolved to {text!r}, not an IP address") from exc
        if not allowed(ip):
            raise FetchRefused(f"{host!r} resolves to {ip}, which is not a public address "
                               "(private, loopback, link-local, multicast, reserved or "
                               "unspecified): refused")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(scheme, host, port, path, addresses[0].split("%", 1)[0])


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to a fixed IP, with SNI and certificate checks against the host name."""

    def __init__(self, address: str, port: int, server_name: str, timeout: float,
                 context: ssl.SSLContext) -> None:
        super().__init__(address, port, timeout=timeout, context=context)
        self._server_name = server_name
        self._ctx = context

    def connect(self) -> None:
        sock = socket.create_connection((self.host, self.port), self.timeout)
        self.sock = self._ctx.wrap_socket(sock, server_hostname=self._server_name)


def _host_header(target: _Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


def fetch_url(url: str, *, allow_network: bool, max_bytes: int = 5_000_000,
              timeout: float = 20.0, max_redirects: int = 5,
              _resolve: Callable[[str, int], Sequence[str]] | None = None,
              _address_allowed: Callable[[Address], bool] | None = None) -> FetchResult:
    """GET `url` under the rules of the module docstring."""
    if not allow_network:
        raise FetchRefused("network access is off (scoring runs offline); the user must "
                           f"enable it to fetch {url}")
    if max_bytes <= 0 or timeout <= 0:
        raise ValueError("max_bytes and timeout must be positive")
    start = time.monotonic()
    redirects: list[str] = []
    current = url
    context = ssl.create_default_context()
    while True:
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            raise FetchError(f"timed out after {timeout:g} s fetching {url}")
        target = check_url(current, _resolve=_resolve, _address_allowed=_address_allowed)
        if target.scheme == "https":
            conn: http.client.HTTPConnection = _PinnedHTTPS(target.address, target.port,
                                                            target.host, left, context)
        else:
            conn = http.client.HTTPConnection(target.address, target.port, timeout=left)
        try:
            conn.putrequest("GET", target.path, skip_host=True, skip_accept_encoding=True)
            conn.putheader("Host", _host_header(target))
            conn.putheader("User-Agent", USER_AGENT)
            conn.putheader("Accept", "text/html,application/xhtml+xml,application/pdf,"
                                     "text/plain;q=0.9,*/*;q=0.5")
            conn.putheader("Accept-Encoding", "identity")
            conn.putheader("Connection", "close")
            conn.endheaders()
            response = conn.getresponse()
            if response.status in REDIRECTS:
                location = response.getheader("Location")
                if not location:
                    raise FetchError(f"{current}: redirect {response.status} without Location")
                if len(redirects) >= max_redirects:
                    raise FetchError(f"more than {max_redirects} redirects from {url}")
                redirects.append(current)
                current = urljoin(current, location.strip())
                continue
            declared = response.getheader("Content-Length")
            body, truncated = b"", False
            if declared and declared.isdigit() and int(declared) > max_bytes:
                truncated = True
            else:
                chunks, size = [], 0
                while True:
                    if time.monotonic() - start > timeout:
                        raise FetchError(f"timed out after {timeout:g} s reading {current}")
                    chunk = response.read(min(65536, max_bytes + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > max_bytes:
                        truncated = True
                        break
                body = b"".join(chunks)[:max_bytes]
            return FetchResult(current, response.status,
                               response.getheader("Content-Type") or "", body, truncated,
                               redirects, time.monotonic() - start)
        except (socket.timeout, TimeoutError) as exc:
            raise FetchError(f"timed out after {timeout:g} s fetching {current}") from exc
        except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
            raise FetchError(f"{current}: {type(exc).__name__}: {exc}") from exc
        finally:
            conn.close()
