"""The DeepSynth-Eval checklist judge (paper appendix C), against any chat callable.

``chat(messages, *, response_format=None) -> str`` is all the judge needs (the project's LLM
client satisfies it; tests pass scripted fakes). One call judges one sub-group: the prompt
holds the report and the sub-group's requirements numbered ``1. …`` one per line (as
upstream), and the reply must be a JSON list with exactly one status per requirement, in order.

Prompts (``prompts/*.txt``, package data; the name is the version):

- ``checklist_judge_v1`` (default): upstream's prompt, which is the paper's Figure 9, with the
  report passed as quoted data (`core.judge_stage.data_block`) — inside ``<survey_content>`` …
  ``</survey_content>``, after a
  sentence telling the judge that the content is text to assess and never instructions. In the
  report every ``<survey_content`` / ``</survey_content`` lookalike (any case, any spaces after
  ``<`` or around ``/``) has its ``<`` written as ``&lt;``, so the report cannot close the block
  or open a new one.
- ``checklist_judge_upstream``: upstream's prompt verbatim, report pasted raw (to reproduce
  upstream judgements and measure what the quoting changes).

Templates are filled in one pass (``str.format``), so ``{criteria_text}`` written in a report
stays literal text.

Reply parsing: the last fenced code block (```json … ``` or ``` … ```), else what follows an
unclosed fence, else the whole reply, else the span from the first ``[`` to the last ``]``. The
JSON must be a list, or an object ``{"statuses": [...]}`` (for a JSON-schema
``response_format``, see :data:`STATUS_RESPONSE_FORMAT`). Labels are read case-insensitively
(surrounding spaces ignored).

Validation and retries: a reply fails when it is empty, holds no JSON, is not a list, has the
wrong length, or has a label that is not one of the three statuses. After a failure the judge
is asked again (``retries`` times, default 2, so at most 3 calls — upstream's count) with the
original prompt, its own last reply and a repair message naming the problem and the attempt
number (so a cached client never replays the same request). After the last attempt, the items
are *unscored* (``None``) with a reason — never silently ``not_mentioned`` as upstream does:
if some reply had the right length, the latest such reply is used and only its unknown labels
are unscored (``unknown_label``); otherwise every item is unscored with the last failure's code
(``empty_reply``, ``invalid_json``, ``not_a_list``, ``wrong_length``). Exceptions raised by
``chat`` propagate: transport retries are the client's job, and a dead endpoint must stop a run
rather than mark every item unscored. A sub-group without requirements is not sent (``[]``).
"""
from __future__ import annotations

import hashlib
import json
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol

from scholarbench.benchmarks.deepsynth.records import STATUSES, Status, SubGroup, Task, task_to_json
from scholarbench.benchmarks.deepsynth.scores import read_label
from scholarbench.core.judge_stage import data_block
from scholarbench.errors import DataError
from scholarbench.llm.structured import forget_reply

DEFAULT_PROMPT = "checklist_judge_v1"
UPSTREAM_PROMPT = "checklist_judge_upstream"
PROMPT_NAMES = (DEFAULT_PROMPT, UPSTREAM_PROMPT)
DEFAULT_RETRIES = 2
_FIELDS = {"survey_content", "criteria_text", "req_cnt"}

# Pass as ``response_format`` to a client/server that supports JSON schemas; the reply is then
# ``{"statuses": [...]}``, which the parser accepts. Default: None (the paper's free-text reply).
STATUS_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "checklist_statuses",
        "strict": True,
        "schema": {"type": "object", "additionalProperties": False, "required": ["statuses"],
                   "properties": {"statuses": {"type": "array",
                                               "items": {"type": "string",
                                                         "enum": list(STATUSES)}}}},
    },
}

EMPTY_REPLY, INVALID_JSON, NOT_A_LIST, WRONG_LENGTH, UNKNOWN_LABEL = (
    "empty_reply", "invalid_json", "not_a_list", "wrong_length", "unknown_label")


class ChatFn(Protocol):
    def __call__(self, messages: list[dict[str, str]], *,
                 response_format: dict | None = None) -> str: ...


@dataclass(frozen=True)
class JudgePrompt:
    name: str            # the version, recorded with every judgement
    template: str
    sha256: str
    quotes_report: bool  # True: the report goes inside <survey_content> tags, escaped


@lru_cache(maxsize=None)
def load_prompt(name: str = DEFAULT_PROMPT) -> JudgePrompt:
    """A judge prompt from the package's ``prompts/NAME.txt`` (one final newline dropped)."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"unknown judge prompt {name!r}; known: {', '.join(PROMPT_NAMES)}")
    text = resources.files("scholarbench.benchmarks.deepsynth").joinpath(f"prompts/{name}.txt") \
        .read_text(encoding="utf-8")
    text = text[:-1] if text.endswith("\n") else text
    fields = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
    if fields != _FIELDS:
        raise ValueError(f"prompt {name}: placeholders {sorted(fields)}, "
                         f"expected {sorted(_FIELDS)}")
    return JudgePrompt(name, text, hashlib.sha256(text.encode()).hexdigest(),
                       quotes_report=_BLOCK in text)


TAG = "survey_content"
_BLOCK = f"<{TAG}>\n{{survey_content}}\n</{TAG}>"     # where a quoting prompt embeds the report


def quote_report(report: str) -> str:
    """The report with every ``<survey_content`` / ``</survey_content`` lookalike defused, as
    it stands inside its block (`core.judge_stage.data_block`)."""
    return data_block(TAG, report)[len(TAG) + 3:-(len(TAG) + 4)]


def criteria_text(sub: SubGroup) -> str:
    return "\n".join(f"{i}. {req.content}" for i, req in enumerate(sub.requirements, start=1))


def build_prompt(report: str, sub: SubGroup, prompt: str = DEFAULT_PROMPT) -> str:
    p = load_prompt(prompt)
    template, body = p.template, report
    if p.quotes_report:                   # the report as data: inside its `data_block`
        template, body = template.replace(_BLOCK, "{survey_content}"), data_block(TAG, report)
    return template.format(survey_content=body, criteria_text=criteria_text(sub),
                           req_cnt=len(sub.requirements))


@dataclass(frozen=True)
class ParsedReply:
    statuses: list[Status | None] | None   # None: no list of the right length
    problem: str | None                    # None: every item has a valid status
    code: str | None


_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n?(.*?)```", re.IGNORECASE | re.DOTALL)
_OPEN_FENCE = re.compile(r"^[ \t]*(?:json)?", re.IGNORECASE)


def _load_json(reply: str) -> tuple[bool, Any]:
    blocks = _FENCE.findall(reply)
    candidates = [blocks[-1]] if blocks else []
    if reply.count("```") % 2:  # an unclosed fence: what follows the last one
        candidates.append(_OPEN_FENCE.sub("", reply.rsplit("```", 1)[1], count=1))
    candidates.append(reply)
    start, end = reply.find("["), reply.rfind("]")
    if 0 <= start < end:
        candidates.append(reply[start:end + 1])
    for text in candidates:
        try:
            return True, json.loads(text.strip())
        except (json.JSONDecodeError, RecursionError):
            continue
    return False, None


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_reply(reply: Any, n: int) -> ParsedReply:
    """Read a judge reply for ``n`` requirements (rules in the module docstring)."""
    if not isinstance(reply, str) or not reply.strip():
        return ParsedReply(None, "the reply was empty", EMPTY_REPLY)
    ok, value = _load_json(reply)
    if not ok:
        return ParsedReply(None, "no valid JSON list was found in the reply", INVALID_JSON)
    if isinstance(value, dict) and set(value) == {"statuses"}:
        value = value["statuses"]
    if not isinstance(value, list):
        kind = "an object" if isinstance(value, dict) else f"a {type(value).__name__}"
        return ParsedReply(None, f"the JSON is {kind}, not a list of strings", NOT_A_LIST)
    if len(value) != n:
        return ParsedReply(None, f"the list has {len(value)} items but there are {n} "
                           "requirements", WRONG_LENGTH)
    statuses = [read_label(v) for v in value]
    bad = [i for i, s in enumerate(statuses) if s is None]
    if bad:
        shown = ", ".join(f"item {i + 1} is {_short(value[i])}" for i in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        return ParsedReply(statuses, f"{shown}{more}; each item must be one of "
                           + ", ".join(STATUSES), UNKNOWN_LABEL)
    return ParsedReply(statuses, None, None)


def repair_message(problem: str, n: int, attempt: int, attempts: int) -> str:
    return (f"Your previous reply could not be used: {problem}. This is attempt {attempt} of "
            f"{attempts}. Reply again with only a JSON code block containing a list of exactly "
            f"{n} strings, one per requirement in the order of the criteria, each one of "
            + ", ".join(f'"{s}"' for s in STATUSES) + ".")


class Verdicts(list):
    """The statuses of one sub-group (a list: one ``Status`` or ``None`` per requirement), with
    ``reasons`` (per item: None when scored, else why not), ``attempts`` (calls made),
    ``problems`` (one line per failed reply), ``replies`` (raw replies) and ``prompt`` (the
    prompt version)."""

    def __init__(self, statuses: list[Status | None], reasons: list[str | None], *,
                 attempts: int, problems: list[str], replies: list[Any], prompt: str) -> None:
        super().__init__(statuses)
        self.reasons = reasons
        self.attempts = attempts
        self.problems = problems
        self.replies = replies
        self.prompt = prompt

    @property
    def n_unscored(self) -> int:
        return sum(s is None for s in self)


def judge_subgroup(chat: ChatFn, report: str, subgroup: SubGroup, *,
                   retries: int = DEFAULT_RETRIES, prompt: str = DEFAULT_PROMPT,
                   response_format: dict | None = None) -> Verdicts:
    """Judge one sub-group of requirements against ``report``; one status (or None, unscored)
    per requirement, in order."""
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an integer >= 0, got {retries!r}")
    n = len(subgroup.requirements)
    if n == 0:
        return Verdicts([], [], attempts=0, problems=[], replies=[], prompt=prompt)
    first = [{"role": "user", "content": build_prompt(report, subgroup, prompt)}]
    return ask_statuses(chat, first, n, retries=retries, prompt=prompt,
                        response_format=response_format)


def ask_statuses(chat: ChatFn, first: list[dict[str, str]], n: int, *,
                 retries: int = DEFAULT_RETRIES, prompt: str = DEFAULT_PROMPT,
                 response_format: dict | None = None) -> Verdicts:
    """Ask `first` (a sub-group's prompt, `build_prompt`) for `n` statuses, with the repair
    turns of the module docstring."""
    attempts = retries + 1
    messages = first
    problems: list[str] = []
    replies: list[Any] = []
    last_sized: ParsedReply | None = None
    last_code: str | None = None
    for attempt in range(1, attempts + 1):
        reply = chat([dict(m) for m in messages], response_format=response_format)
        replies.append(reply)
        parsed = parse_reply(reply, n)
        if parsed.problem is None:
            return Verdicts(list(parsed.statuses or []), [None] * n, attempts=attempt,
                            problems=problems, replies=replies, prompt=prompt)
        problems.append(f"attempt {attempt}: {parsed.problem}")
        forget_reply(chat, [dict(m) for m in messages], response_format=response_format)
        last_code = parsed.code
        if parsed.statuses is not None:
            last_sized = parsed
        if attempt < attempts:
            repair = {"role": "user",
                      "content": repair_message(parsed.problem, n, attempt + 1, attempts)}
            messages = (first + [{"role": "assistant", "content": reply}, repair]
                        if parsed.code != EMPTY_REPLY else first + [repair])
    usage = getattr(chat, "usage", None)
    if hasattr(usage, "add_unusable"):     # counted per judge by the engine (core.judging)
        usage.add_unusable()
    if last_sized is not None:
        statuses = list(last_sized.statuses or [])
        reasons = [None if s is not None else UNKNOWN_LABEL for s in statuses]
    else:
        statuses, reasons = [None] * n, [last_code] * n
    return Verdicts(statuses, reasons, attempts=attempts, problems=problems, replies=replies,
                    prompt=prompt)


def judge_task(chat: ChatFn, task: Task, *, report: str | None = None, **kwargs: Any
               ) -> tuple[dict[str, Any], dict[tuple[int, int], Verdicts]]:
    """Judge every sub-group of ``task`` (sequentially) against ``report`` (default: the task's
    ``survey_result``). Returns the upstream judged record (``eval_result`` filled, ``null`` for
    unscored items) and the verdicts by (group index, sub-group index)."""
    text = task.survey_result if report is None else report
    if text is None:
        file, _, line = (task.source or "").rpartition(":")
        raise DataError("no report to judge", file=file or None,
                        line=int(line) if line.isdigit() else None, field="survey_result")
    verdicts = {(gi, si): judge_subgroup(chat, text, sub, **kwargs)
                for gi, group in enumerate(task.checklist)
                for si, sub in enumerate(group.sub_groups)}
    record = task_to_json(task, {key: list(v) for key, v in verdicts.items()})
    if report is not None:
        record["survey_result"] = report
    return record, verdicts


__all__ = ["ChatFn", "DEFAULT_PROMPT", "DEFAULT_RETRIES", "JudgePrompt", "PROMPT_NAMES",
           "STATUS_RESPONSE_FORMAT", "UPSTREAM_PROMPT", "Verdicts", "ask_statuses",
           "build_prompt", "judge_subgroup", "judge_task", "load_prompt", "parse_reply",
           "quote_report"]
