"""One component's model calls: how many, how many failed or came back unusable, and the
fallbacks it took — recorded in the agent's output `info`, never raised."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from scholarbench.llm.client import LLMCallError
from scholarbench.llm.structured import ask_json


@dataclass
class LLMTrace:
    """One sample's model calls: counts, and the fallbacks the agent took."""
    client: Any
    max_tokens: int | None = None
    calls: int = 0
    failed: int = 0
    unscored: int = 0
    fallbacks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # the reasons, in call order
    last_attempts: int = 0                              # attempts of the last `ask`

    def complete(self, messages: list[dict[str, Any]], *, step: str,
                 max_tokens: int | None = None) -> str | None:
        """The reply text, or None (counted) when the call failed after the client's retries."""
        self.calls += 1
        try:
            return self.client.complete(messages, max_tokens=max_tokens or self.max_tokens).text
        except LLMCallError as exc:
            self.failed += 1
            self.problems.append(f"{step}: call failed: {exc}")
            return None

    def ask(self, messages: list[dict[str, Any]], *, step: str, validate: Callable[[Any], Any],
            schema: dict | None = None, max_tokens: int | None = None, **options: Any) -> Any:
        """A validated JSON value (`ask_json`, one repair turn by default; `options` go to
        ask_json: repairs, parse, constrain, repair_hint), or None (counted)."""
        outcome = ask_json(self.client, messages, validate=validate, schema=schema, name=step,
                           max_tokens=max_tokens or self.max_tokens, **options)
        self.last_attempts = outcome.attempts
        self.calls += max(outcome.attempts, 1)
        if outcome.ok:
            return outcome.value
        if outcome.unscored and outcome.unscored.startswith("call failed"):
            self.failed += 1
        else:
            self.unscored += 1
        self.problems.append(f"{step}: {outcome.unscored}")
        return None

    def fallback(self, what: str, reason: str | None = None) -> None:
        """Record that the agent used its stated fallback `what`, because of `reason` (default:
        the last problem recorded)."""
        if reason is None:
            reason = self.problems[-1] if self.problems else "no usable reply"
        self.fallbacks.append(f"{what} ({_short(reason)})")

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"llm": {"calls": self.calls, "failed": self.failed,
                                       "unscored": self.unscored}}
        if self.fallbacks:
            out["fallback"] = list(self.fallbacks)
        return out


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
