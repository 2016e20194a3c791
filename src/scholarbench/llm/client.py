"""One chat client over the openai SDK, for any OpenAI-compatible endpoint and the local model.

Every call goes: cache → concurrency slot → SDK request (retried with backoff on 429, 5xx,
timeouts, dropped connections and replies that are not chat completions) → accounting → cache.
A repeated run is served from the cache and makes no model calls. Errors that survive the
retries raise `LLMCallError`; callers turn them into "unscored" items, never into a crash of the
run. A redirect to another host (or port) is refused, never followed: a model call goes only
where it was configured to go. The base URL's query is sent as a query on every request and
one credential is sent — the API key when one is configured, else the URL's user:password
(`llm.base_url`). With no base URL configured the call goes to api.openai.com: the SDK's
`$OPENAI_BASE_URL` is not read (it would take `$OPENAI_API_KEY` wherever it points).
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.base_url import OPENAI_URL, split_base_url
from scholarbench.llm.cache import CachedReply, ReplyCache, cache_key
from scholarbench.llm.config import ModelConfig
from scholarbench.llm.reply import BadReply, read_reply
from scholarbench.llm.secrets import redact, redact_url, remember_url
from scholarbench.llm.tokens import count_message_tokens, count_tokens
from scholarbench.llm import transcript
from scholarbench.llm.usage import Usage

Messages = list[dict[str, Any]]


class LLMCallError(ScholarbenchError):
    """A model call failed after every retry (or with an error that retrying cannot mend)."""


@dataclass(frozen=True)
class ToolCallRequest:
    """One function call the model asked for (OpenAI function calling)."""
    id: str
    name: str
    arguments: str            # the model's JSON text, parsed (and refused) by the caller


@dataclass(frozen=True)
class ChatReply:
    text: str
    cached: bool
    prompt_tokens: int
    completion_tokens: int
    tool_calls: tuple[ToolCallRequest, ...] = ()


class DeadlineExceeded(Exception):
    """The call's wall-clock deadline passed (never retried)."""


class AttemptTimeout(Exception):
    """One attempt ran past `timeout` seconds of wall clock (retried)."""


class RedirectRefused(Exception):
    """The endpoint redirected a model call to another host (never followed, never retried)."""


def _refuse_cross_host(response: Any) -> None:
    """httpx response hook: a redirect stays on the request's host and port (an http → https
    upgrade of the same host is allowed)."""
    if not response.has_redirect_location:
        return
    source = response.request.url
    target = source.join(response.headers["location"])
    same = target.host == source.host and (target.port == source.port or (
        source.scheme == "http" and target.scheme == "https"))
    if not same:
        raise RedirectRefused(f"the endpoint redirected to another host "
                              f"({redact_url(str(target.copy_with(query=None)))}); not followed")


# Attempts run here so a deadline can abandon one; threads blocked in an abandoned read end
# when its client is closed.
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="llm")


def _retryable(exc: BaseException) -> bool:
    import openai
    if isinstance(exc, (DeadlineExceeded, RedirectRefused)):
        return False
    if isinstance(exc, (AttemptTimeout, BadReply)):
        return True
    if isinstance(exc, (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(exc, json.JSONDecodeError):   # a 200 whose body is not (whole) JSON
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return min(float(value), 60.0) if value is not None else None
    except ValueError:
        return None


class ChatClient:
    """Chat completions for one role. Thread-safe; share one per role within a run."""

    def __init__(self, config: ModelConfig, *, cache: ReplyCache | None = None,
                 base_url: str | None = None, model_id: str | None = None,
                 retry_wait: tuple[float, float] = (0.5, 20.0),
                 connect: Callable[[], str] | None = None) -> None:
        self.config = config
        self.cache = cache
        self.usage = Usage()
        self._base_url = base_url or config.base_url
        self._connect = connect          # starts a local server on the first cache miss
        remember_url(self._base_url)     # its password / query key: masked wherever written
        # the endpoint the SDK will call: OPENAI_BASE_URL when no base URL is given, so a
        # changed endpoint never replays another endpoint's cached replies
        endpoint = self._base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.model_id = model_id or f"{redact_url(endpoint) or 'openai'}|{config.model}"
        self._retry_wait = retry_wait
        self._slots = threading.BoundedSemaphore(config.concurrency)
        self._flights: dict[str, list[Any]] = {}
        self._flights_lock = threading.Lock()
        self._idle: list[Any] = []        # SDK clients not in use; one per attempt at a time
        self._connected = connect is None
        self._sdk_lock = threading.Lock()
        self._warned: set[str] = set()
        self.json_mode = "schema"   # lowered to "object"/"none" if the server rejects schemas

    # -- SDK clients are made on the first cache miss, so cached runs start no server -----------
    # Each attempt borrows one (its own connections), so an attempt past its time limit can be
    # abandoned by closing its client without disturbing the attempts running beside it.
    def _checkout(self):
        import openai
        with self._sdk_lock:
            if self._idle:
                return self._idle.pop()
            if not self._connected:
                self._base_url = self._connect()
                self._connected = True
        key = self.config.api_key()
        base = split_base_url(self._base_url or OPENAI_URL)   # never $OPENAI_BASE_URL
        if base.both(key):
            self._warn_once(f"warning: the {self.config.role} model's base URL has a "
                            f"user:password and ${self.config.api_key_env} holds a key: the "
                            "key is sent (Authorization: Bearer), the user:password is not")
        http = openai.DefaultHttpxClient(event_hooks={"response": [_refuse_cross_host]})
        return openai.OpenAI(base_url=base.url, api_key=key, max_retries=0,
                             default_query=base.query or None,
                             default_headers=base.headers(key) or None,
                             timeout=self.config.timeout, http_client=http)

    def _warn_once(self, text: str) -> None:
        with self._flights_lock:
            if text in self._warned:
                return
            self._warned.add(text)
        print(text, file=sys.stderr)

    def _checkin(self, sdk: Any) -> None:
        with self._sdk_lock:
            self._idle.append(sdk)

    def params(self, *, temperature: float | None = None, max_tokens: int | None = None,
               seed: int | None = None, response_format: dict | None = None) -> dict[str, Any]:
        return {"temperature": self.config.temperature if temperature is None else temperature,
                "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
                "seed": self.config.seed if seed is None else seed,
                "response_format": response_format}

    def complete(self, messages: Messages, *, response_format: dict | None = None,
                 temperature: float | None = None, max_tokens: int | None = None,
                 seed: int | None = None, tools: list[dict] | None = None,
                 tool_choice: str | None = None) -> ChatReply:
        """One chat completion. With `tools` (OpenAI function schemas) the reply may carry
        `tool_calls` instead of text; cached replies keep them (the cache stores the text and
        the calls as one JSON envelope for such requests)."""
        params = self.params(temperature=temperature, max_tokens=max_tokens, seed=seed,
                             response_format=response_format)
        if tools:
            params.update(tools=tools, tool_choice=tool_choice)
        if transcript.current() is None:        # no transcript open: nothing to keep
            return self._complete(messages, params, tools)
        start = time.perf_counter()
        try:
            reply = self._complete(messages, params, tools)
        except LLMCallError as exc:
            transcript.record_chat(self.config.model, messages, params,
                                   seconds=time.perf_counter() - start, error=str(exc))
            raise
        transcript.record_chat(self.config.model, messages, params, reply,
                               seconds=time.perf_counter() - start)
        return reply

    def _complete(self, messages: Messages, params: dict[str, Any],
                  tools: list[dict] | None) -> ChatReply:
        key = cache_key(model_id=self.model_id, messages=messages, params=params)
        if self.cache is None:
            return self._complete_uncached(messages, params, tools, key)
        with self._one_flight(key):
            if (hit := self.cache.get(key)) is not None:
                self.usage.add_hit()
                text, calls = _unwrap(hit.text) if tools else (hit.text, ())
                return ChatReply(text, True, hit.prompt_tokens, hit.completion_tokens, calls)
            return self._complete_uncached(messages, params, tools, key)

    def forget(self, messages: Messages, *, response_format: dict | None = None,
               temperature: float | None = None, max_tokens: int | None = None,
               seed: int | None = None) -> None:
        """Drop the cached reply to this request (one that did not parse as what was asked:
        llm.cache), so asking again sends it to the model."""
        if self.cache is None:
            return
        params = self.params(temperature=temperature, max_tokens=max_tokens, seed=seed,
                             response_format=response_format)
        self.cache.delete(cache_key(model_id=self.model_id, messages=messages, params=params))

    @contextmanager
    def _one_flight(self, key: str) -> Iterator[None]:
        """Identical requests in flight at once are sent once: the others wait and read the
        cache, so samples run at once use the model exactly as a sequential run does."""
        with self._flights_lock:
            entry = self._flights.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._flights_lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._flights[key]

    def _complete_uncached(self, messages: Messages, params: dict[str, Any],
                           tools: list[dict] | None, key: str) -> ChatReply:
        with self._slots:
            text, prompt_tokens, completion_tokens, estimated, calls = self._request(messages,
                                                                                     params)
        self.usage.add_call(prompt_tokens, completion_tokens, estimated=estimated,
                            cost=self._cost(prompt_tokens, completion_tokens))
        if self.cache is not None:
            stored = _wrap(text, calls) if tools else text
            if not self.cache.put(key, self.model_id, CachedReply(stored, prompt_tokens,
                                                                  completion_tokens)):
                self.usage.add_warning()       # too long or not UTF-8: asked again next time
        return ChatReply(text, False, prompt_tokens, completion_tokens, calls)

    def __call__(self, messages: Messages, *, response_format: dict | None = None) -> str:
        return self.complete(messages, response_format=response_format).text

    def _request(self, messages: Messages, params: dict[str, Any]
                 ) -> tuple[str, int, int, bool, tuple[ToolCallRequest, ...]]:
        """One call: attempts (each counted in `usage.requests`) retried with backoff on 429,
        5xx, timeouts, dropped connections, invalid or truncated reply bodies and replies that
        are not chat completions, all within one wall-clock deadline (`config.deadline`:
        connect + reads + waits + retries) that a server trickling bytes cannot extend; each
        attempt is likewise bounded by `config.timeout` seconds of wall clock — an attempt
        still running at either limit is abandoned and its connection closed."""
        import openai
        from tenacity import (RetryError, Retrying, retry_if_exception, stop_after_attempt,
                              stop_before_delay, wait_exponential_jitter)

        initial, cap = self._retry_wait
        backoff = wait_exponential_jitter(multiplier=initial, max=cap, jitter=initial)
        deadline = time.monotonic() + self.config.deadline

        def wait(state) -> float:
            exc = state.outcome.exception() if state.outcome else None
            hinted = _retry_after(exc) if exc is not None else None
            return max(backoff(state), hinted or 0.0)

        def note_retry(state) -> None:
            self.usage.add_retry()

        kwargs = {k: v for k, v in params.items() if v is not None}
        name = f"{self.config.role} model {self.config.model!r}"
        try:
            for attempt in Retrying(retry=retry_if_exception(_retryable),
                                    wait=wait, before_sleep=note_retry, reraise=False,
                                    stop=(stop_after_attempt(self.config.max_retries + 1)
                                          | stop_before_delay(self.config.deadline))):
                with attempt:
                    reply = read_reply(self._attempt(messages, kwargs, deadline))
        except RetryError as exc:
            self.usage.add_failure()
            last = exc.last_attempt.exception()
            n = exc.last_attempt.attempt_number
            raise LLMCallError(redact(f"{name}: gave up after {n} attempt{'s' if n != 1 else ''}"
                                      f": {_describe(last)}")) from None
        except (DeadlineExceeded, RedirectRefused) as exc:
            self.usage.add_failure()
            raise LLMCallError(redact(f"{name}: {exc}")) from None
        except openai.OpenAIError as exc:
            self.usage.add_failure()
            raise LLMCallError(redact(f"{name}: {_describe(exc)}")) from None
        calls = tuple(ToolCallRequest(*c) for c in reply.calls)
        if reply.usage_invalid:
            self.usage.add_warning()           # implausible token counts: counted offline
        if reply.prompt_tokens is not None and reply.completion_tokens is not None:
            return reply.text, reply.prompt_tokens, reply.completion_tokens, False, calls
        return (reply.text, count_message_tokens(messages), count_tokens(reply.text), True,
                calls)

    def _attempt(self, messages: Messages, kwargs: dict[str, Any], deadline: float) -> Any:
        """One request, counted, run on a worker thread so `timeout` (per attempt) and the
        deadline hold whatever the server does; past either the attempt's SDK client (and its
        sockets) is closed and dropped."""
        import httpx
        import openai
        sdk = self._checkout()               # may start the local server (not timed here)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            self._checkin(sdk)
            raise DeadlineExceeded(f"no reply within the {self.config.deadline:.0f} s deadline")
        self.usage.add_request()
        limit = min(self.config.timeout, remaining)
        future = _POOL.submit(sdk.with_options(timeout=httpx.Timeout(limit,
                                                                     connect=min(10.0, limit)))
                              .chat.completions.create, model=self.config.model,
                              messages=messages, **kwargs)
        try:
            response = future.result(timeout=limit)
        except concurrent.futures.TimeoutError:
            self._abandon(sdk)
            if limit < self.config.timeout:
                raise DeadlineExceeded(f"no reply within the {self.config.deadline:.0f} s "
                                       "deadline (the attempt was abandoned)") from None
            raise AttemptTimeout(f"no reply within the {self.config.timeout:g} s attempt "
                                 "timeout (abandoned)") from None
        except (RedirectRefused, openai.APIConnectionError):
            self._abandon(sdk)               # the connection is in an unknown state
            raise
        except openai.OpenAIError:
            self._checkin(sdk)
            raise
        except Exception as exc:          # the SDK choked on a body that is no chat completion
            self._checkin(sdk)
            raise BadReply(f"reply is not a chat completion ({type(exc).__name__})") from None
        self._checkin(sdk)
        return response

    def _abandon(self, sdk: Any) -> None:
        try:
            sdk.close()
        except Exception:          # closing a client mid-read may raise in either thread
            pass

    def _cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.config.is_local:
            return 0.0
        pin, pout = self.config.price_input_per_mtok, self.config.price_output_per_mtok
        if pin is None or pout is None:
            return None
        return (prompt_tokens * pin + completion_tokens * pout) / 1e6


_ENVELOPE = "scholarbench-tool-reply/1"


def _wrap(text: str, calls: tuple[ToolCallRequest, ...]) -> str:
    return json.dumps({"v": _ENVELOPE, "content": text,
                       "tool_calls": [[c.id, c.name, c.arguments] for c in calls]})


def _unwrap(stored: str) -> tuple[str, tuple[ToolCallRequest, ...]]:
    data = json.loads(stored)
    return data["content"], tuple(ToolCallRequest(*c) for c in data["tool_calls"])


def _describe(exc: BaseException | None) -> str:
    """The error's class and status, never its request (which could echo headers)."""
    if exc is None:
        return "unknown error"
    status = getattr(exc, "status_code", None)
    message = str(getattr(exc, "message", "") or exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}{f' {status}' if status else ''}{f': {message}' if message else ''}"
