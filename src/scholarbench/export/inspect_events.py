"""What a run kept of its model calls, as an Inspect sample's events, messages and usage
(docs/inspect.md, "Events, messages and usage").

    events       a span "solver" (the agent's name) holding the sample's transcript in order:
                 each chat call a `ModelEvent` (the messages sent, the reply's text and tool
                 calls, tokens, `cache="read"` for a reply from the reply cache, the call's
                 seconds as working time, or its error), each step an agent noted itself an
                 `InfoEvent`; then one span "scorer" per judge request of the sample (judge
                 label, item, subject, repeat, status), its calls `ModelEvent`s whose `role`
                 is the judge's role (`judge`, `judge_2`, …, as `eval.model_roles`)
    messages     the agent's conversation: the messages of its last chat call that has a
                 reply, then that reply
    model_usage  per model (and `role_usage` per role: `agent`, each judge's role): the
                 generate record's `usage` (else the transcript's tokens), each judge
                 request's `usage`; `total_cost` their `cost_usd`

Transcripts keep no clock time: every event's `timestamp` is the run's start (the manifest's
`created`) and `working_start` the sum of the seconds of the calls before it in the sample.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from inspect_ai.event import InfoEvent, ModelEvent, SpanBeginEvent, SpanEndEvent
from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ChatMessageSystem,
                              ChatMessageTool, ChatMessageUser, GenerateConfig, ModelOutput,
                              ModelUsage)
from inspect_ai.tool import ToolCall

from scholarbench.export.task_inputs import plain


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def when(created: str) -> datetime:
    """The run's start as an aware time (UTC when the manifest wrote none)."""
    try:
        moment = datetime.fromisoformat(created)
    except (TypeError, ValueError):
        return datetime.fromtimestamp(0, timezone.utc)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def tool_call(call: Any, n: int) -> ToolCall:
    """A transcript's tool call (`{id, name, arguments}`) or a message's (OpenAI's
    `{id, type, function: {name, arguments}}`) as Inspect's; arguments that are not a JSON
    object are kept as text with the parse error."""
    call = call if isinstance(call, dict) else {}
    inner = call.get("function") if isinstance(call.get("function"), dict) else call
    raw = inner.get("arguments")
    parse_error = None
    if isinstance(raw, dict):
        arguments = raw
    else:
        try:
            arguments = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
        except ValueError as exc:
            arguments, parse_error = {"text": raw}, f"arguments are not JSON: {exc}"
        if not isinstance(arguments, dict):
            arguments, parse_error = {"value": arguments}, "arguments are not a JSON object"
    return ToolCall(id=str(call.get("id") or f"call-{n}"), function=str(inner.get("name")),
                    arguments=plain(arguments), parse_error=parse_error)


def _message_id(scope: str, position: int, message: dict[str, Any]) -> str:
    """The same message at the same place of a conversation gets the same id (a tool loop
    resends its conversation: Inspect stores a shared message once)."""
    digest = hashlib.sha256(json.dumps([position, message], sort_keys=True, default=str)
                            .encode()).hexdigest()[:16]
    return f"{scope}/{digest}"


def chat_messages(raw: Any, scope: str, model: str | None = None) -> list[Any]:
    """A transcript's `messages` as Inspect's chat messages. A tool message (its call id is
    not kept) answers the assistant's pending tool calls in order."""
    out: list[Any] = []
    pending: list[ToolCall] = []
    for position, message in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(message, dict):
            continue
        role = str(message.get("role") or "user")
        content = message.get("content")
        content = content if isinstance(content, str) else "" if content is None else \
            json.dumps(plain(content), ensure_ascii=False)
        mid = _message_id(scope, position, message)
        if role in ("system", "developer"):
            out.append(ChatMessageSystem(id=mid, content=content))
        elif role == "assistant":
            calls = [tool_call(c, i) for i, c in enumerate(message.get("tool_calls") or [])]
            out.append(ChatMessageAssistant(id=mid, content=content, tool_calls=calls or None,
                                            model=model))
            pending = list(calls)
        elif role == "tool":
            answered = pending.pop(0) if pending else None
            out.append(ChatMessageTool(id=mid, content=content,
                                       tool_call_id=answered.id if answered else None,
                                       function=answered.function if answered else None))
        else:
            out.append(ChatMessageUser(id=mid, content=content))
    return out


def step_usage(step: dict[str, Any]) -> ModelUsage | None:
    """A chat step's tokens (None when it has none: a failed call)."""
    if not (_number(step.get("prompt_tokens")) or _number(step.get("completion_tokens"))):
        return None
    tokens_in, tokens_out = _count(step.get("prompt_tokens")), _count(step.get("completion_tokens"))
    return ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out,
                      total_tokens=tokens_in + tokens_out)


def reply_message(step: dict[str, Any], scope: str, model: str) -> ChatMessageAssistant:
    calls = [tool_call(c, i) for i, c in enumerate(step.get("tool_calls") or [])]
    reply = step.get("reply")
    return ChatMessageAssistant(
        id=f"{scope}/reply", content=reply if isinstance(reply, str) else "",
        tool_calls=calls or None, model=model, source="generate")


@dataclass
class Clock:
    """Each event's working start: the seconds of the calls before it in the sample."""
    start: datetime
    elapsed: float = 0.0

    def after(self, seconds: Any) -> float:
        at = self.elapsed
        if _number(seconds) and seconds > 0:
            self.elapsed = round(self.elapsed + float(seconds), 6)
        return at


def model_event(step: dict[str, Any], scope: str, clock: Clock, span: str,
                role: str | None = None, metadata: dict[str, Any] | None = None) -> ModelEvent:
    """One chat step (transcript or judge exchange) as a `ModelEvent`."""
    model = str(step.get("model") or "unknown")
    params = step.get("params") if isinstance(step.get("params"), dict) else {}
    seconds = step.get("seconds") if _number(step.get("seconds")) else None
    error = step.get("error")
    usage = step_usage(step)
    if error is not None:
        output = ModelOutput(model=model, error=str(error), usage=usage, time=seconds)
    else:
        message = reply_message(step, scope, model)
        output = ModelOutput(model=model, choices=[ChatCompletionChoice(
            message=message, stop_reason="tool_calls" if message.tool_calls else "stop")],
            usage=usage, time=seconds)
    return ModelEvent(
        model=model, role=role, input=chat_messages(step.get("messages"), scope, model),
        tools=[], tool_choice="auto",
        config=GenerateConfig(**{k: params[k] for k in ("temperature", "max_tokens", "seed")
                                 if _number(params.get(k))}),
        output=output, error=str(error) if error is not None else None,
        cache="read" if step.get("cached") is True else None,
        working_time=seconds, timestamp=clock.start, working_start=clock.after(seconds),
        span_id=span, metadata=metadata or None)


def info_event(step: dict[str, Any], clock: Clock, span: str) -> InfoEvent:
    """A step an agent noted itself (`ctx.note(kind, …)`)."""
    return InfoEvent(source=str(step.get("kind")),
                     data=plain({k: v for k, v in step.items() if k != "kind"}),
                     timestamp=clock.start, working_start=clock.elapsed, span_id=span)


def steps_events(steps: Any, scope: str, clock: Clock, span: str, role: str | None = None,
                 metadata: dict[str, Any] | None = None) -> list[Any]:
    out: list[Any] = []
    for n, step in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(step, dict):
            continue
        if step.get("kind") == "chat":
            out.append(model_event(step, f"{scope}/{n}", clock, span, role, metadata))
        else:
            out.append(info_event(step, clock, span))
    return out


def span(id: str, name: str, kind: str, clock: Clock, inner: list[Any],
         metadata: dict[str, Any] | None = None) -> list[Any]:
    return [SpanBeginEvent(id=id, span_id=id, name=name, type=kind, timestamp=clock.start,
                           working_start=inner[0].working_start if inner else clock.elapsed,
                           metadata=metadata or None),
            *inner,
            SpanEndEvent(id=id, span_id=id, timestamp=clock.start,
                         working_start=clock.elapsed)]


def usage_of(counts: Any) -> ModelUsage | None:
    """A record's `usage` (calls, prompt and completion tokens, cost_usd) as a `ModelUsage`;
    None when it made no call."""
    if not isinstance(counts, dict) or not (counts.get("calls") or counts.get("cache_hits")
                                            or counts.get("prompt_tokens")):
        return None
    tokens_in = _count(counts.get("prompt_tokens"))
    tokens_out = _count(counts.get("completion_tokens"))
    cost = counts.get("cost_usd")
    return ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out,
                      total_tokens=tokens_in + tokens_out,
                      total_cost=float(cost) if _number(cost) else None)


def _add(into: dict[str, ModelUsage], key: str, usage: ModelUsage | None) -> None:
    if usage is not None:
        into[key] = into[key] + usage if key in into else usage


def judges_by_label(manifest: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(item, judge label) -> the judge the manifest recorded (role, model)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    judged = manifest.get("judged") if isinstance(manifest.get("judged"), dict) else {}
    for item, entry in judged.items():
        for judge in (entry.get("judges") or []) if isinstance(entry, dict) else []:
            if isinstance(judge, dict) and judge.get("label"):
                out[(str(item), str(judge["label"]))] = judge
    return out


@dataclass
class SampleCalls:
    """What a sample's log entry gets from the run's model calls (module docstring)."""
    events: list[Any] = field(default_factory=list)
    messages: list[Any] | None = None           # None: no transcript, keep prompt + answer
    model_usage: dict[str, ModelUsage] = field(default_factory=dict)
    role_usage: dict[str, ModelUsage] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def sample_calls(key: str, agent: str, model: str, transcript: dict[str, Any] | None,
                 generated: dict[str, Any] | None, judge_records: list[dict[str, Any]],
                 manifest: dict[str, Any], created: str) -> SampleCalls:
    """The events, messages, usage and cost of one sample (`key`: its id as text; `agent`,
    `model`: the agent's name and model)."""
    out = SampleCalls()
    clock = Clock(when(created))
    steps = transcript.get("steps") if isinstance(transcript, dict) else None
    steps = [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []
    chats = [s for s in steps if s.get("kind") == "chat"]
    if transcript is not None:
        scope = f"{key}/agent"
        out.events += span(scope, agent, "solver", clock,
                           steps_events(steps, scope, clock, scope))
        out.metadata["transcript"] = {
            "chat_calls": len(chats), "steps": len(steps),
            "truncated_steps": _count(transcript.get("truncated_steps")),
            "truncated_chars": _count(transcript.get("truncated_chars"))}
        answered = [n for n, s in enumerate(steps) if s.get("kind") == "chat"
                    and s.get("error") is None]
        if answered:
            n = answered[-1]
            last = steps[n]
            name = str(last.get("model") or model)
            out.messages = [*chat_messages(last.get("messages"), f"{scope}/{n}", name),
                            reply_message(last, f"{scope}/{n}", name)]
    # the agent's usage: the generate record's (every call), else its transcript's tokens
    named = {str(s["model"]) for s in chats if s.get("model")}
    agent_model = named.pop() if len(named) == 1 and model.startswith("none/") else model
    recorded = usage_of((generated or {}).get("usage"))
    if recorded is None:
        for s in chats:
            if s.get("cached") is not True:
                _add(out.model_usage, str(s.get("model") or agent_model), step_usage(s))
                _add(out.role_usage, "agent", step_usage(s))
    else:
        _add(out.model_usage, agent_model, recorded)
        _add(out.role_usage, "agent", recorded)
    agent_usd = recorded.total_cost if recorded is not None else None
    agent_unpriced = recorded is not None and recorded.total_cost is None and \
        bool(((generated or {}).get("usage") or {}).get("calls"))
    # each judge request: a span with its calls, its usage under the judge's model and role
    judges = judges_by_label(manifest)
    judges_usd: float | None = None
    judges_unpriced = False
    for n, record in enumerate(judge_records):
        item, label = str(record.get("item")), str(record.get("judge"))
        judge = judges.get((item, label), {})
        role = str(judge.get("role") or label)
        about = {"judge": label, "item": item, "subject": record.get("subject"),
                 "repeat": record.get("repeat"), "status": record.get("status"),
                 "reason": record.get("reason")}
        exchange = record.get("exchange") if isinstance(record.get("exchange"), dict) else {}
        scope = f"{key}/judge/{n}"
        inner = steps_events(exchange.get("steps"), scope, clock, scope, role,
                             plain({k: v for k, v in about.items() if v is not None}))
        subject = f" {record['subject']}" if record.get("subject") not in (None, "") else ""
        repeat = f" #{record['repeat']}" if _number(record.get("repeat")) \
            and record["repeat"] else ""
        out.events += span(scope, f"judge {label}: {item}{subject}{repeat}", "scorer", clock,
                           inner, plain({**about, "verdict": record.get("verdict"),
                                         "truncated_steps": exchange.get("truncated_steps"),
                                         "truncated_chars": exchange.get("truncated_chars")}))
        used = usage_of(record.get("usage"))
        exchanged = [s for s in exchange.get("steps") or [] if isinstance(s, dict)
                     and s.get("model")]
        name = str(judge.get("model") or (exchanged[0]["model"] if exchanged else role))
        _add(out.model_usage, name, used)
        _add(out.role_usage, role, used)
        if used is not None and used.total_cost is not None:
            judges_usd = round((judges_usd or 0.0) + used.total_cost, 6)
        elif used is not None and (record.get("usage") or {}).get("calls"):
            judges_unpriced = True
    if judge_records:
        out.metadata["judge_requests"] = len(judge_records)
    if recorded is not None or judge_records:
        parts = [x for x in (agent_usd, judges_usd) if x is not None]
        out.metadata["cost"] = {
            "usd": round(sum(parts), 6) if parts else None,
            "agent_usd": agent_usd, "judges_usd": judges_usd,
            "priced": not (agent_unpriced or judges_unpriced)}
    return out


__all__ = ["SampleCalls", "chat_messages", "sample_calls", "tool_call"]
