"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests and benches.

Each request takes the next step of the script (or `default` when the script is used up): a reply
text, an HTTP status, a delay before replying, or a dropped connection. Every request body is
recorded, and its path, query and Authorization header (`heard`), so tests can check what the
client sent.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Step:
    text: str | None = None          # reply content
    status: int = 200
    delay: float = 0.0
    drop: bool = False               # close the connection without a reply
    usage: bool = True               # include a usage block
    retry_after: float | None = None
    tool_calls: list | None = None   # [(name, arguments dict)]: an assistant turn calling tools
                                     # (a str is sent as the arguments text, as it is)
    body: bytes | None = None        # a raw 200 body (e.g. invalid or truncated JSON)
    trickle: float | None = None     # send a 200 body one byte per this many seconds, forever
    echo_auth: bool = False          # a 401 whose error text echoes the Authorization header
    echo_request: bool = False       # a 200 whose content lists the request path and headers
    redirect: str | None = None      # a 307 to this URL


@dataclass
class FakeOpenAI:
    default: Step | Callable[[dict], Step] = field(default_factory=lambda: Step(text="ok"))
    script: deque = field(default_factory=deque)
    requests: list = field(default_factory=list)
    heard: list = field(default_factory=list)    # per request: its path (with the query) and
                                                 # Authorization header, as the client sent them
    in_flight: int = 0
    stopping: bool = False
    max_in_flight: int = 0
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *steps: Step) -> None:
        self.script.extend(steps)

    def _next(self, body: dict) -> Step:
        with self._lock:
            self.requests.append(body)
            if self.script:
                return self.script.popleft()
        return self.default(body) if callable(self.default) else self.default

    def start(self) -> "FakeOpenAI":
        fake = self
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out as two writes: without TCP_NODELAY (which real servers
            # set) Nagle's algorithm and the client's delayed ACK add ~40 ms to every reply
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.heard.append({"path": self.path,
                                       "authorization": self.headers.get("Authorization")})
                step = fake._next(body)
                with fake._lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    self._answer(step, body)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _answer(self, step: Step, body: dict) -> None:
                if step.delay:
                    time.sleep(step.delay)
                if step.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if step.echo_auth:
                    self._send(401, {"error": {"message": "invalid key: Authorization: "
                                               + self.headers.get("Authorization", ""),
                                               "type": "auth", "code": 401}})
                    return
                if step.redirect is not None:
                    self.send_response(307)
                    self.send_header("Location", step.redirect)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if step.body is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(step.body)))
                    self.end_headers()
                    self.wfile.write(step.body)
                    return
                if step.trickle is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "1000000")
                    self.end_headers()
                    try:
                        while not fake.stopping:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                            time.sleep(step.trickle)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                if step.status != 200:
                    headers = {"Retry-After": str(step.retry_after)} if step.retry_after else None
                    self._send(step.status, {"error": {"message": f"scripted {step.status}",
                                                       "type": "scripted", "code": step.status}},
                               headers)
                    return
                text = step.text
                if step.echo_request:
                    lines = [f"POST {self.path}", *str(self.headers).splitlines(), text or ""]
                    text = "\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1) if line)
                message = {"role": "assistant", "content": text}
                if step.tool_calls:
                    message["tool_calls"] = [
                        {"id": f"call_{len(fake.requests)}_{i}", "type": "function",
                         "function": {"name": name, "arguments": args if isinstance(
                             args, str) else json.dumps(args)}}
                        for i, (name, args) in enumerate(step.tool_calls)]
                payload = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                           "model": body.get("model", "fake"),
                           "choices": [{"index": 0,
                                        "finish_reason": "tool_calls" if step.tool_calls
                                        else "stop", "message": message}]}
                if step.usage:
                    payload["usage"] = {"prompt_tokens": 11, "completion_tokens": 7,
                                        "total_tokens": 18}
                self._send(200, payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping = True
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def from_schema(schema: dict):
    """A value of a JSON schema (judges' replies are asked with one): the least that fits —
    an object's required keys, a bounded integer's middle, an enum's first."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: from_schema(props.get(k) or {}) for k in schema.get("required", props)}
    if kind == "array":
        return [from_schema(schema.get("items") or {})] * int(schema.get("minItems") or 0)
    if kind == "integer":
        return (int(schema.get("minimum", 0)) + int(schema.get("maximum", 10))) // 2
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return True
    return "r"


def schema_reply(body: dict) -> Step | None:
    """A reply fitting the request's JSON schema (`response_format`), or None without one."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
    return Step(text=json.dumps(from_schema(schema))) if schema else None
