"""The chat-model roles of a run (agent, judge), bound on first use."""
from __future__ import annotations

from typing import Any, Callable

from scholarbench.errors import ScholarbenchError


class Models:
    """Binds the chat-model roles on first use (so runs that need none never bind one)."""

    def __init__(self, bind: Callable[..., Any] | None = None) -> None:
        self._bind, self._roles = bind, {}

    @classmethod
    def given(cls, *, agent: Any = None, judge: Any = None, judges: Any = None,
              bind: Callable[..., Any] | None = None, judge_samples: int = 1) -> "Models":
        """Models from clients already bound (programmatic use, tests); `agent` may also be an
        `LLMRoles` or a factory of one, called only if the agent needs a model; `judges` a
        judge panel (its first is `judge`)."""
        models = cls(bind)
        models.judge_samples = judge_samples
        if judges:
            models._panel = list(judges)
            judge = models._panel[0] if judge is None else judge
        if judge is not None:
            models._roles["judge"] = judge
        if agent is not None:
            models._agent_source = agent
        return models

    _agent_source: Any = None
    _panel: list[Any] | None = None            # the judge panel, when more than the judge
    recipe: dict[str, Any] | None = None     # model flags to bind the same roles elsewhere (Ray)
    judge_samples: int = 1                   # --judge-samples: each judge asked K times

    def _role(self, role: str) -> Any:
        if role not in self._roles and role == "agent" and self._agent_source is not None:
            source = self._agent_source
            source = source() if callable(source) and not hasattr(source, "complete") else source
            self._roles["agent"] = getattr(source, "agent", source)
        if role not in self._roles:
            if self._bind is None:
                raise ScholarbenchError(f"this run needs the {role} model but none was given")
            roles = self._bind(need_agent=role == "agent", need_judge=role == "judge")
            self._keep(role, roles)
        return self._roles[role]

    def _keep(self, role: str, roles: Any) -> None:
        self._roles[role] = getattr(roles, role)
        if role == "judge" and len(getattr(roles, "judges", None) or ()) > 1:
            self._panel = list(roles.judges)

    def bind(self, *, agent: bool = False, judge: bool = False) -> "Models":
        """Bind the named roles not bound yet in ONE call of the binder (so a benchmark that
        knows it needs both finds a missing one before any run directory exists, and both
        share one reply cache)."""
        want = [r for r, on in (("agent", agent), ("judge", judge))
                if on and r not in self._roles]
        if not want:
            return self
        if self._bind is None:
            raise ScholarbenchError(f"this run needs chat models ({' and '.join(want)}) but "
                                    "none was given")
        roles = self._bind(need_agent="agent" in want, need_judge="judge" in want)
        for role in want:
            self._keep(role, roles)
        return self

    def agent(self) -> Any:
        return self._role("agent")

    def judge(self) -> Any:
        """The judge (a panel's first)."""
        return self._role("judge")

    def judges(self) -> list[Any]:
        """The judge panel: every judge asked for, the first being `judge()`."""
        first = self._role("judge")
        return list(self._panel) if self._panel else [first]

    def bound(self) -> dict[str, Any]:
        return dict(self._roles)
