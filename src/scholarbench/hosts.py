"""Which hosts are this machine, and which addresses are public: one rule, by `ipaddress`.

`is_loopback_host` decides where an API key may go over plain http (`llm.config`), where the
MCP tools server may listen (`tools.mcp_server`); `public_address` decides which addresses
ReportBench's URL fetching may connect to (`reportbench.fetch`). Never a string prefix: a host
is loopback only when it *is* an IP address in 127.0.0.0/8 or ::1 (an IPv4-mapped
::ffff:127.x.y.z too), or the name `localhost` exactly. `127.evil.example`,
`127.0.0.1.nip.io`, `localhost.evil.example` are names like any other — they resolve wherever
their owner likes — and are never loopback; nor are numeric spellings `ipaddress` does not
read as an address (`2130706433`, `0x7f.1`), which are treated as remote hosts.
"""
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def ip_of(host: str | None) -> Address | None:
    """`host` as an IP address (brackets and an IPv6 zone allowed), or None for a name."""
    text = (host or "").strip().removeprefix("[").removesuffix("]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def is_loopback_host(host: str | None) -> bool:
    """True for the name `localhost` and for loopback IP addresses; False for any other name."""
    if (host or "").strip().lower() == "localhost":
        return True
    ip = ip_of(host)
    if ip is None:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def is_loopback_url(url: str | None) -> bool:
    """Whether `url`'s host is loopback (`is_loopback_host`); False for a malformed URL."""
    try:
        return is_loopback_host(urlsplit(url or "").hostname)
    except ValueError:
        return False


def _embedded_v4(ip: Address) -> list[ipaddress.IPv4Address]:
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    out = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]
    if ip.teredo:
        out += list(ip.teredo)
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def public_address(ip: Address) -> bool:
    """True only for a global unicast address (and, for IPv6 embedding IPv4, a global IPv4)."""
    if (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
            or ip.is_reserved or ip.is_unspecified or not ip.is_global):
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:
        return False
    return all(public_address(v4) for v4 in _embedded_v4(ip))
