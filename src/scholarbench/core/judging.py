"""The engine's judge concern, shared by every benchmark (docs/judges.md; the seed of the judge
stage of DESIGN.md "Judging is the engine's"):

- `JudgeIdentity`: who a judge is (label, usage role, model, base URL without secrets,
  temperature, seed) and its `fingerprint`, the key its records and failures are kept under;
- `JudgeCall` / `CallPlan`: the calls a stage makes per sample — one distinct call per
  (judged item, subject, repeat); the same object counts `--dry-run` and drives the run;
- `JudgeWatch` / `JudgeShortfall`: failure accounting. Every judge's calls that failed after
  every retry, and its replies that stayed unusable after the repair turn, are counted per
  scoring; a failed call makes the run incomplete (exit 3; the next run or `score` asks again,
  since failed and unusable replies are never kept), and one warning line per judge names it
  with its counts. The counts are written into the manifest (`judge_failures`), so the summary
  (`complete`) is rebuilt from the run's files alone.
- `check_judge_can_run`: before any stage, a run whose judge is the packaged local model needs
  llama.cpp (the `[local]` extra); without it, one line saying what to give instead.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from scholarbench.errors import ScholarbenchError
from scholarbench.llm.config import resolve_role
from scholarbench.llm.secrets import redact_url
from scholarbench.metrics.judge_panel import client_of, judge_roles, labels_of

FAILURES_KEY = "judge_failures"      # the manifest's (and summary's) record of the last scoring


@dataclass(frozen=True)
class JudgeIdentity:
    """One judge of a run: what makes its replies its own."""
    label: str                  # `--judge NAME` (NAME#2 for a second judge of that name)
    role: str                   # usage role: judge, judge_2, …
    model: str
    base_url: str | None = None  # without user info or credential-like query values
    temperature: float | None = None
    seed: int | None = None

    @property
    def fingerprint(self) -> str:
        """sha256 of the identity (label and role excluded: the same judge under another
        position in a panel is the same judge)."""
        text = json.dumps([self.model, self.base_url, self.temperature, self.seed])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @classmethod
    def of(cls, client: Any, label: str, role: str) -> "JudgeIdentity":
        config = getattr(client, "config", None)
        model = str(getattr(config, "model", None)
                    or getattr(client, "model_id", type(client).__name__))
        if getattr(config, "is_local", False):   # which packaged model, not just "local"
            model = f"{model}:{config.local_model}"
        return cls(label=label, role=role, model=model,
                   base_url=redact_url(getattr(config, "base_url", None)),
                   temperature=getattr(config, "temperature", None),
                   seed=getattr(config, "seed", None))


def identities(judges: Sequence[Any]) -> list[JudgeIdentity]:
    """The identities of a panel's judges (clients or judge objects holding `.client`), in
    order, under their labels and usage roles."""
    return [JudgeIdentity.of(client_of(j), label, role)
            for j, label, role in zip(judges, labels_of(judges), judge_roles(judges))]


# -- the call plan ---------------------------------------------------------------------------

@dataclass(frozen=True)
class JudgeCall:
    """One request of ONE judge asked once: a judged item (the measure it feeds) about a
    subject (a paper, a task) for a sample. Two samples asking the same (item, subject) share
    one call (the judgement is reused); repeats and panels multiply it (`core.planning`)."""
    stage: str
    item: str
    subject: str
    sample: str


@dataclass
class CallPlan:
    """The judge calls one stage makes, in the order the run asks them."""
    stage: str
    calls: list[JudgeCall] = field(default_factory=list)

    def add(self, item: str, subject: str, sample: str) -> JudgeCall:
        call = JudgeCall(self.stage, item, subject, sample)
        self.calls.append(call)
        return call

    def distinct(self) -> list[tuple[str, str]]:
        """The (item, subject) pairs asked, each once, in first-asked order."""
        return list(dict.fromkeys((c.item, c.subject) for c in self.calls))

    def __len__(self) -> int:
        return len(self.distinct())

    def per_item(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for item, _ in self.distinct():
            out[item] = out.get(item, 0) + 1
        return out


# -- failure accounting ----------------------------------------------------------------------

@dataclass(frozen=True)
class JudgeShortfall:
    """What one judge could not give in one scoring."""
    judge: JudgeIdentity
    failed: int = 0            # calls that failed after every retry (the run is incomplete)
    unusable: int = 0          # replies still unusable after the repair turn (unscored items)

    def as_json(self) -> dict[str, Any]:
        return {"label": self.judge.label, "role": self.judge.role, "model": self.judge.model,
                "fingerprint": self.judge.fingerprint, "failed": self.failed,
                "unusable": self.unusable}

    def line(self) -> str:
        parts = []
        if self.failed:
            parts.append(f"{self.failed} call(s) failed after every retry")
        if self.unusable:
            parts.append(f"{self.unusable} reply(ies) unusable after the repair turn")
        tail = (" — the run is incomplete: run the same command again to ask them again"
                if self.failed else " — those items are unscored for this judge")
        return (f"judge {self.judge.label} ({self.judge.role}, {self.judge.model}): "
                f"{' and '.join(parts)}{tail}")


def _bound_judges(models: Any) -> list[Any]:
    """The judge clients bound so far (none bound: none — a watch binds nothing)."""
    if models is None or "judge" not in models.bound():
        return []
    return list(models.judges())


def _counts(client: Any) -> tuple[int, int]:
    usage = getattr(client, "usage", None)
    if usage is None:
        return 0, 0
    failed = usage.unrecovered_failures() if hasattr(usage, "unrecovered_failures") else 0
    return failed, int(getattr(usage, "unusable", 0))


class JudgeWatch:
    """Counts every judge's failed calls and unusable replies over one scoring: the clients
    bound before it started (their counts then subtracted) and those it bound."""

    def __init__(self, models: Any) -> None:
        self.models = models
        self.before = {id(c): _counts(c) for c in _bound_judges(models)}

    def asked(self) -> bool:
        """Whether this scoring had a judge (bound before it or by it)."""
        return bool(_bound_judges(self.models))

    def shortfalls(self) -> list[JudgeShortfall]:
        judges = _bound_judges(self.models)
        out = []
        for ident, client in zip(identities(judges), judges):
            failed, unusable = _counts(client)
            f0, u0 = self.before.get(id(client), (0, 0))
            if failed - f0 or unusable - u0:
                out.append(JudgeShortfall(ident, failed - f0, unusable - u0))
        return out


def record_shortfalls(manifest: dict[str, Any], shortfalls: Iterable[JudgeShortfall]) -> None:
    """The manifest's `judge_failures` of this scoring (replacing the last scoring's; absent
    when every judge gave every reply)."""
    entries = [s.as_json() for s in shortfalls]
    if entries:
        manifest[FAILURES_KEY] = entries
    else:
        manifest.pop(FAILURES_KEY, None)


def failed_calls(manifest: dict[str, Any]) -> int:
    """How many judge calls of the last scoring failed (the run is incomplete when > 0)."""
    entries = manifest.get(FAILURES_KEY)
    if not isinstance(entries, list):
        return 0
    return sum(int(e.get("failed") or 0) for e in entries if isinstance(e, dict))


def warning_lines(manifest: dict[str, Any]) -> list[str]:
    """One line per judge that fell short in the last scoring (from the manifest)."""
    out = []
    for e in manifest.get(FAILURES_KEY) or []:
        if isinstance(e, dict):
            ident = JudgeIdentity(str(e.get("label")), str(e.get("role")), str(e.get("model")))
            out.append(JudgeShortfall(ident, int(e.get("failed") or 0),
                                      int(e.get("unusable") or 0)).line())
    return out


# -- can the judge run at all? ---------------------------------------------------------------

def local_judge_missing(config: Any) -> bool:
    """A judge that is the packaged local model on an install without llama.cpp."""
    if not getattr(config, "is_local", False):
        return False
    # deferred: loaded only by the path that needs it (a light CLI start)
    from scholarbench.llm.local import llama_cpp_available
    return not llama_cpp_available()


def recipe_judges(models: Any) -> list[Any] | None:
    """The judges' configurations as the model flags (`Models.recipe`) resolve them, without
    binding a model; None for models handed in as clients (no flags)."""
    recipe = getattr(models, "recipe", None)
    if not recipe:
        return None
    return [resolve_role("judge", flags, config_file=recipe.get("config_file"))
            for flags in [recipe.get("judge_flags") or {}, *(recipe.get("panel_flags") or [])]]


def check_judge_can_run(models: Any, bench_title: str) -> None:
    """Before any stage of a run that will ask a judge: a judge whose model is the packaged
    local one needs llama.cpp (the `[local]` extra); without it, one line saying the two ways
    on. Judges handed in as clients (`Models.given`) are what they are: not checked."""
    if "judge" in models.bound():
        return
    for config in recipe_judges(models) or ():
        if local_judge_missing(config):
            raise ScholarbenchError(
                f"{bench_title} is scored by an LLM judge and none is given: the default "
                "judge is the packaged local model, which needs llama.cpp — give one with "
                "--judge NAME --judge-base-url URL (and --judge-api-key-env VAR), or "
                "pip install 'scholarbench[local]' (docs/judges.md)")


__all__ = ["CallPlan", "FAILURES_KEY", "JudgeCall", "JudgeIdentity", "JudgeShortfall",
           "JudgeWatch", "check_judge_can_run", "failed_calls", "identities",
           "local_judge_missing", "recipe_judges", "record_shortfalls", "warning_lines"]
