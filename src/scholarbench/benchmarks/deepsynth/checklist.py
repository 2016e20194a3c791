"""DeepSynth-Eval's checklist judge as the engine's judged item (`core.judge_stage`; paper
appendix C; docs/deepsynth.md).

One request per checklist sub-group with requirements of each task whose report is usable
(`stages.report_status` "ok"): the sub-group's prompt as today (`judge.build_prompt`, the
report inside its `data_block`), subject ``"<g>.<s>"`` (group and sub-group index). A report
that is missing, malformed or empty is not sent: its requirements are all ``not_mentioned``.

The reply protocol is upstream's, not JSON mode (`ask`): free text holding a JSON list of
exactly one status per requirement, `--judge-retries` repair turns (`judge.ask_statuses`).
A verdict is the sub-group's ``{"statuses", "reasons", "attempts", "problems", "replies"}``
(a status None: unscored, with its reason). A reply still unusable after the repairs, or a
request the endpoint refuses (HTTP 400/413/422, e.g. a report longer than the judge's
context: reason ``judge_call_failed``), is an ``unscored`` verdict kept with its statuses and
asked again next time; any other failure after the client's retries is an ``error`` (the
endpoint is down): the run is incomplete.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.judge import ask_statuses, build_prompt, load_prompt
from scholarbench.benchmarks.deepsynth.stages import report_status
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest
from scholarbench.llm.client import LLMCallError
from scholarbench.llm.structured import JsonOutcome

NAME = "checklist"
JUDGE_CALL_FAILED = "judge_call_failed"
BASIS = ("1 per checklist sub-group (with requirements) of each task whose report is usable "
         "(+ --judge-retries repairs per unusable reply); judgements of the same report are "
         "reused")


def subject(g: int, s: int) -> str:
    return f"{g}.{s}"


def sub_groups(task: Any) -> list[tuple[int, int, Any]]:
    """(group index, sub-group index, sub-group) of every sub-group with requirements."""
    return [(gi, si, sub) for gi, g in enumerate(task.checklist)
            for si, sub in enumerate(g.sub_groups) if sub.requirements]


class Seeded:
    """A chat client asked with a fixed seed (a repeat): the judge's `chat(messages,
    response_format=…)` and the cache's `forget` both carry it, so a repeat's unusable reply
    is dropped from its own cache entry."""

    def __init__(self, client: Any, seed: int | None) -> None:
        self.client, self.seed = client, seed

    def __call__(self, messages: Any, *, response_format: dict | None = None) -> str:
        return self.client.complete(messages, response_format=response_format,
                                    seed=self.seed).text

    def forget(self, messages: Any, **params: Any) -> None:
        forget = getattr(self.client, "forget", None)
        if callable(forget):
            forget(messages, **{**params, "seed": self.seed})

    def __getattr__(self, name: str) -> Any:          # usage, config, model_id, …
        return getattr(self.client, name)


def request_refused(exc: Exception) -> bool:
    """An error about this request (HTTP 400/413/422: too long, rejected), not the endpoint."""
    text = str(exc)
    return "BadRequestError" in text or re.search(r"\b(400|413|422)\b", text) is not None


def checklist_item(prompt: str, retries: int) -> JudgedItem:
    """The checklist judge under `--judge-prompt` and `--judge-retries`. Its version is the
    prompt's name and text hash (the retries change no usable verdict: unusable ones are asked
    again anyway)."""
    version = load_prompt(prompt)

    def requests(sample: Any, record: dict[str, Any] | None) -> tuple[JudgeRequest, ...]:
        if report_status(record) != "ok":
            return ()
        report = record["report"]  # type: ignore[index]
        return tuple(JudgeRequest(subject(gi, si), ({"role": "user", "content": build_prompt(
            report, sub, prompt)},), expect=len(sub.requirements))
            for gi, si, sub in sub_groups(sample.gold))

    def ask(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
        n = int(request.expect)
        try:
            v = ask_statuses(Seeded(client, seed), list(request.messages), n, retries=retries,
                             prompt=prompt)
        except LLMCallError as exc:
            if not request_refused(exc):
                return JsonOutcome(unscored=f"call failed: {exc}", attempts=1)
            return JsonOutcome(value={"statuses": [None] * n,
                                      "reasons": [JUDGE_CALL_FAILED] * n, "attempts": 1,
                                      "problems": [str(exc)[:500]], "replies": []},
                               unscored=JUDGE_CALL_FAILED, attempts=1)
        value = {"statuses": list(v), "reasons": list(v.reasons), "attempts": v.attempts,
                 "problems": list(v.problems), "replies": list(v.replies)}
        why = sorted({r for r in v.reasons if r})
        return JsonOutcome(value=value, unscored=", ".join(why) or None, attempts=v.attempts)

    return JudgedItem(NAME, f"{version.name}@{version.sha256[:12]}", requests, _no_json,
                      per_sample=None, bound=lambda sample: len(sub_groups(sample.gold)),
                      basis=BASIS, ask=ask)


EMPTY = {"statuses": [], "reasons": [], "attempts": 0, "problems": [], "replies": []}


def task_line(sample: Any, record: dict[str, Any] | None, verdicts: Any,
              labels: Sequence[str], repeats: int) -> dict[str, Any] | None:
    """A task's judgement in the form the scores read (what judge.jsonl held per task before
    the engine judged): ``report_status``, ``subgroups`` (every sub-group's verdict, the
    first judge's first repeat), ``calls`` (requests behind them, repairs included, every
    judge and repeat) and with a panel or repeats ``panel`` ({judge: [per repeat
    {"subgroups", "calls"}]}); None when a verdict is missing (not asked, or its call
    failed)."""
    status = report_status(record)
    parts: dict[str, list[dict[str, Any]]] = {}
    for label in labels:
        runs = []
        for r in range(repeats):
            subs = []
            for gi, g in enumerate(sample.gold.checklist if status == "ok" else ()):
                for si, sub in enumerate(g.sub_groups):
                    got = [EMPTY] * repeats                 # an empty sub-group: not sent
                    if sub.requirements:
                        got = verdicts.of(sample.id, subject(gi, si)).get(label) or []
                    if r >= len(got) or got[r] is None:
                        return None
                    subs.append({"g": gi, "s": si, **got[r]})
            runs.append({"subgroups": subs, "calls": sum(x["attempts"] for x in subs)})
        parts[label] = runs
    first = parts[labels[0]][0] if labels else {"subgroups": [], "calls": 0}
    line = {"report_status": status, "subgroups": first["subgroups"],
            "calls": sum(p["calls"] for runs in parts.values() for p in runs)}
    if len(labels) > 1 or repeats > 1:
        line["panel"] = parts
    return line


def _no_json(value: Any) -> Any:
    """Not called: the checklist's replies are read by its own `ask`."""
    raise ValueError("the checklist judge reads its replies itself")


__all__ = ["BASIS", "JUDGE_CALL_FAILED", "NAME", "Seeded", "checklist_item", "request_refused",
           "sub_groups", "subject", "task_line"]
