"""Safe URL fetching: off unless enabled; non-http(s) and non-public addresses refused (IPv4
and IPv6, IPv4-mapped, numeric spellings); size and time caps; redirects re-checked. The
fetch logic runs against a local http.server on 127.0.0.1 through the test-only address hook
(loopback itself is refused, which is tested first)."""
from __future__ import annotations

import http.server
import ipaddress
import threading
import time

import pytest

from scholarbench.benchmarks.reportbench.fetch import (FetchError, FetchRefused, check_url,
                                                       fetch_url, public_address)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):               # keep test output quiet
        pass

    def do_GET(self):
        port = self.server.server_address[1]
        if self.path == "/page":
            self._send(200, b"<html><title>A paper</title></html>", "text/html; charset=utf-8")
        elif self.path == "/big":
            self._send(200, b"x" * 100_000, "text/plain")
        elif self.path == "/big-undeclared":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(50):
                self.wfile.write(b"y" * 10_000)
        elif self.path == "/redirect":
            self._redirect(f"http://127.0.0.1:{port}/page")
        elif self.path == "/relative":
            self._redirect("/page")
        elif self.path == "/to-private":
            self._redirect(f"http://internal.test:{port}/page")
        elif self.path == "/to-metadata":
            self._redirect("http://169.254.169.254/latest/meta-data/")
        elif self.path == "/to-file":
            self._redirect("file:///etc/passwd")
        elif self.path == "/loop":
            self._redirect("/loop")
        elif self.path == "/slow":
            time.sleep(1.5)
            self._send(200, b"late", "text/plain")
        elif self.path == "/host":
            self._send(200, self.headers["Host"].encode(), "text/plain")
        else:
            self._send(404, b"no", "text/plain")

    def _send(self, status, body, ctype):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def loopback_ok(ip):                             # the test-only address rule
    return ip.is_loopback or public_address(ip)


def resolver(host, port):                        # test DNS: names -> fixed addresses
    table = {"paper.test": ["127.0.0.1"], "internal.test": ["10.0.0.7"],
             "mixed.test": ["93.184.216.34", "192.168.0.1"], "v6.test": ["fe80::1%eth0"],
             "127.0.0.1": ["127.0.0.1"]}
    return table.get(host, ["127.0.0.1"])


def fetch(url, **kw):
    kw.setdefault("allow_network", True)
    kw.setdefault("_address_allowed", loopback_ok)
    return fetch_url(url, **kw)


def test_network_off_by_default(server):
    with pytest.raises(FetchRefused, match="network access is off"):
        fetch_url(server + "/page", allow_network=False)


def test_loopback_is_refused(server):
    with pytest.raises(FetchRefused, match="not a public address"):
        fetch_url(server + "/page", allow_network=True)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://127.1.2.3/", "http://localhost/", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://0.0.0.0/",
    "http://[::]/", "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://[fc00::1]/",
    "http://100.64.0.1/", "http://224.0.0.1/", "http://[ff02::1]/", "http://240.0.0.1/",
    "http://2130706433/", "http://0x7f000001/", "http://017700000001/", "http://127.1/",
    "http://[2002:7f00:1::1]/", "http://[64:ff9b::a00:1]/",
])
def test_non_public_addresses_are_refused(url):
    with pytest.raises(FetchRefused):
        fetch_url(url, allow_network=True, timeout=2)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "gopher://x/",
                                 "javascript:alert(1)", "data:text/plain,hi",
                                 "http://user:pw@example.org/", "http:///nohost"])
def test_bad_schemes_and_urls_are_refused(url):
    with pytest.raises(FetchRefused):
        fetch_url(url, allow_network=True)


def test_every_resolved_address_must_be_public():
    with pytest.raises(FetchRefused, match="192.168.0.1"):
        check_url("http://mixed.test/", _resolve=resolver)
    with pytest.raises(FetchRefused, match="fe80::1"):
        check_url("http://v6.test/", _resolve=resolver)
    target = check_url("https://example.test:8443/a?b=1", _resolve=lambda h, p: ["93.184.216.34"])
    assert (target.address, target.port, target.path) == ("93.184.216.34", 8443, "/a?b=1")


def test_public_address_rule():
    assert public_address(ipaddress.ip_address("93.184.216.34"))
    assert public_address(ipaddress.ip_address("2606:2800:220:1:248:1893:25c8:1946"))
    for text in ("::ffff:93.184.216.34", "2001:db8::1", "192.0.2.1", "198.18.0.1"):
        assert not public_address(ipaddress.ip_address(text)), text


def test_fetch_through_the_test_hook(server):
    result = fetch(server + "/page")
    assert result.status == 200 and result.text() == "<html><title>A paper</title></html>"
    assert not result.truncated and result.redirects == []
    assert result.content_type.startswith("text/html")


def test_host_header_carries_the_name_not_the_address(server):
    port = server.rsplit(":", 1)[1]
    result = fetch(f"http://paper.test:{port}/host", _resolve=resolver)
    assert result.text() == f"paper.test:{port}"


def test_size_cap(server):
    declared = fetch(server + "/big", max_bytes=1000)
    assert declared.truncated and declared.body == b""     # stopped on Content-Length
    streamed = fetch(server + "/big-undeclared", max_bytes=25_000)
    assert streamed.truncated and len(streamed.body) == 25_000
    whole = fetch(server + "/big", max_bytes=200_000)
    assert not whole.truncated and len(whole.body) == 100_000


def test_redirects_are_followed_and_rechecked(server):
    result = fetch(server + "/redirect")
    assert result.url == server + "/page" and result.redirects == [server + "/redirect"]
    assert fetch(server + "/relative").url == server + "/page"
    with pytest.raises(FetchRefused, match="10.0.0.7"):
        fetch(server + "/to-private", _resolve=resolver)
    with pytest.raises(FetchRefused, match="169.254.169.254"):
        fetch(server + "/to-metadata")
    with pytest.raises(FetchRefused, match="'file'"):
        fetch(server + "/to-file")
    with pytest.raises(FetchError, match="more than 3 redirects"):
        fetch(server + "/loop", max_redirects=3)


def test_time_cap(server):
    start = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        fetch(server + "/slow", timeout=0.3)
    assert time.monotonic() - start < 1.2


def test_connection_failure_is_a_fetch_error():
    with pytest.raises(FetchError):
        fetch("http://127.0.0.1:9/", timeout=1)              # discard port: nothing listens
