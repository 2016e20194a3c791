"""Read DeepSynth-Eval task files (upstream ``DeepSynth-Eval_tasks.jsonl``, generation results,
judged files) into :class:`~scholarbench.benchmarks.deepsynth.records.Task` records, and build the
unified prompt.

One JSON object per line (``.jsonl`` or ``.jsonl.gz``). Upstream schema, with upstream's
defaults for absent optional fields::

    {task_id: int|str, survey_id?: str, general_prompt?: str, survey_result?: str,
     checklist: [{group_name: str, strict?: bool = false,
                  clip_factor?: number (default 0.8 if strict else 1.0, as upstream score.py),
                  weight?: number = 1.0, detailed_prompt?: str,
                  sub_groups: [{sub_group_name: str,
                                requirements: [{content: str, reward?: number = 1.0}],
                                eval_result?: [label, ...]}]}]}

Checks (each failure is a DataError naming the file, the 1-based line and the field path, e.g.
``checklist[3].sub_groups[0].requirements[2].reward``): required fields present with the right
JSON types (a bool is not a number); numbers finite; ``0 < clip_factor <= 1`` (the paper's
θ_k ≤ N_k); ``weight > 0``; ``reward > 0``; requirement ``content`` not blank; ``eval_result``
a list when present (``null`` reads as absent); ``task_id`` unique in the file; no unknown keys
(a misspelt ``clip_factor`` would otherwise silently take the default). Keys upstream's scorer
adds to its output (``evaluation_summary``, ``score_stats``) are accepted and ignored.
With ``require_prompts`` (default) the prompts must be usable: a non-blank ``general_prompt``
and, on every strict group, a non-blank ``detailed_prompt``.

Empty lists are allowed and scored as such: an empty checklist, a group without sub-groups, a
sub-group without requirements.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from scholarbench.data.jsonl import iter_jsonl
from scholarbench.benchmarks.deepsynth.records import Group, Requirement, SubGroup, Task
from scholarbench.errors import DataError

# The unified prompt P = q_gen ⊕ q_con(1) ⊕ … ⊕ q_con(M) (paper §3.4): the general prompt, then
# each strict group's detailed_prompt in checklist order, joined by a blank line.
CONSTRAINT_SEPARATOR = "\n\n"

_TASK_KEYS = {"task_id", "survey_id", "general_prompt", "survey_result", "checklist",
              "evaluation_summary"}
_GROUP_KEYS = {"group_name", "strict", "clip_factor", "weight", "detailed_prompt", "sub_groups",
               "score_stats"}
_SUB_KEYS = {"sub_group_name", "requirements", "eval_result"}
_REQ_KEYS = {"content", "reward"}


class _Where:
    def __init__(self, file: str | None, line: int | None) -> None:
        self.file, self.line = file, line

    def error(self, message: str, field: str | None = None) -> DataError:
        return DataError(message, file=self.file, line=self.line, field=field)


def _check_keys(obj: dict, allowed: set[str], path: str, where: _Where) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        field = f"{path}.{unknown[0]}" if path else unknown[0]
        raise where.error(f"unknown field (allowed: {', '.join(sorted(allowed))})", field)


def _str(obj: dict, key: str, path: str, where: _Where, *, required: bool,
         nullable: bool = False) -> str | None:
    field = f"{path}.{key}" if path else key
    if key not in obj or (nullable and obj[key] is None):
        if required:
            raise where.error("missing", field)
        return None
    value = obj[key]
    if not isinstance(value, str):
        raise where.error(f"expected a string, got {_kind(value)}", field)
    return value


def _number(obj: dict, key: str, path: str, where: _Where, default: float) -> float:
    field = f"{path}.{key}"
    if key not in obj:
        return default
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(f"expected a number, got {_kind(value)}", field)
    if not math.isfinite(value):
        raise where.error("not a finite number", field)
    return float(value)


def _list(obj: dict, key: str, path: str, where: _Where) -> list:
    field = f"{path}.{key}" if path else key
    if key not in obj:
        raise where.error("missing", field)
    value = obj[key]
    if not isinstance(value, list):
        raise where.error(f"expected a list, got {_kind(value)}", field)
    return value


def _object(value: Any, path: str | None, where: _Where) -> dict:
    if not isinstance(value, dict):
        raise where.error(f"expected an object, got {_kind(value)}", path)
    return value


def _kind(value: Any) -> str:
    return "null" if value is None else {bool: "boolean", int: "number", float: "number",
                                         str: "string", list: "list", dict: "object"}.get(
        type(value), type(value).__name__)


def _requirement(value: Any, path: str, where: _Where) -> Requirement:
    obj = _object(value, path, where)
    _check_keys(obj, _REQ_KEYS, path, where)
    content = _str(obj, "content", path, where, required=True)
    if not content.strip():
        raise where.error("empty requirement", f"{path}.content")
    reward = _number(obj, "reward", path, where, 1.0)
    if reward <= 0:
        raise where.error(f"must be > 0, got {reward:g}", f"{path}.reward")
    return Requirement(content, reward)


def _sub_group(value: Any, path: str, where: _Where) -> SubGroup:
    obj = _object(value, path, where)
    _check_keys(obj, _SUB_KEYS, path, where)
    name = _str(obj, "sub_group_name", path, where, required=True)
    reqs = tuple(_requirement(r, f"{path}.requirements[{i}]", where)
                 for i, r in enumerate(_list(obj, "requirements", path, where)))
    result = None
    if obj.get("eval_result") is not None:
        result = tuple(_list(obj, "eval_result", path, where))
    return SubGroup(name, reqs, result)


def _group(value: Any, path: str, where: _Where, require_prompts: bool) -> Group:
    obj = _object(value, path, where)
    _check_keys(obj, _GROUP_KEYS, path, where)
    name = _str(obj, "group_name", path, where, required=True)
    strict = obj.get("strict", False)
    if not isinstance(strict, bool):
        raise where.error(f"expected true or false, got {_kind(strict)}", f"{path}.strict")
    clip = _number(obj, "clip_factor", path, where, 0.8 if strict else 1.0)
    if not 0 < clip <= 1:
        raise where.error(f"must be in (0, 1] (the paper's θ_k ≤ N_k), got {clip:g}",
                          f"{path}.clip_factor")
    weight = _number(obj, "weight", path, where, 1.0)
    if weight <= 0:
        raise where.error(f"must be > 0, got {weight:g}", f"{path}.weight")
    detailed = _str(obj, "detailed_prompt", path, where, required=False, nullable=True)
    if require_prompts and strict and not (detailed or "").strip():
        raise where.error("a strict (constraint) group needs its constraint question",
                          f"{path}.detailed_prompt")
    subs = tuple(_sub_group(s, f"{path}.sub_groups[{i}]", where)
                 for i, s in enumerate(_list(obj, "sub_groups", path, where)))
    return Group(name, strict, clip, weight, subs, detailed)


def parse_task(obj: Any, *, file: str | None = None, line: int | None = None,
               require_prompts: bool = True) -> Task:
    """One task from its upstream JSON object; DataError naming file, line and field."""
    where = _Where(file, line)
    obj = _object(obj, None, where)
    _check_keys(obj, _TASK_KEYS, "", where)
    if "task_id" not in obj:
        raise where.error("missing", "task_id")
    task_id = obj["task_id"]
    if isinstance(task_id, bool) or not isinstance(task_id, (int, str)) or task_id == "":
        raise where.error(f"expected a number or a non-empty string, got {_kind(task_id)}",
                          "task_id")
    survey_id = _str(obj, "survey_id", "", where, required=False, nullable=True)
    general = _str(obj, "general_prompt", "", where, required=False, nullable=True) or ""
    if require_prompts and not general.strip():
        raise where.error("missing or empty (needed for the unified prompt)", "general_prompt")
    report = _str(obj, "survey_result", "", where, required=False, nullable=True)
    groups = tuple(_group(g, f"checklist[{i}]", where, require_prompts)
                   for i, g in enumerate(_list(obj, "checklist", "", where)))
    source = f"{file}:{line}" if file is not None else None
    return Task(task_id, groups, general, survey_id, report, source)


def load_tasks(path: str | Path, *, require_prompts: bool = True) -> list[Task]:
    """Every task of a JSON-lines file, in file order; DataError on the first malformed one."""
    path = Path(path)
    tasks: list[Task] = []
    seen: dict[int | str, int] = {}
    for lineno, obj in iter_jsonl(path):
        task = parse_task(obj, file=str(path), line=lineno, require_prompts=require_prompts)
        if task.task_id in seen:
            raise DataError(f"duplicate task_id {task.task_id!r} (first on line "
                            f"{seen[task.task_id]})", file=str(path), line=lineno,
                            field="task_id")
        seen[task.task_id] = lineno
        tasks.append(task)
    if not tasks:
        raise DataError("no DeepSynth tasks in the file (it is empty)", file=str(path))
    return tasks


def constraint_questions(task: Task) -> list[str]:
    """The constraint questions q_con(1..M): each strict group's ``detailed_prompt``, in
    checklist order. A general group's ``detailed_prompt`` (none in the released data) is not a
    constraint question and is left out."""
    out = []
    for i, group in enumerate(task.checklist):
        if group.strict:
            if not (group.detailed_prompt or "").strip():
                file, _, line = (task.source or "").rpartition(":")
                raise DataError("a strict (constraint) group needs its constraint question",
                                file=file or None, line=int(line) if line.isdigit() else None,
                                field=f"checklist[{i}].detailed_prompt")
            out.append(group.detailed_prompt.strip())
    return out


def unified_prompt(task: Task, sep: str = CONSTRAINT_SEPARATOR) -> str:
    """P = q_gen ⊕ q_con(1) ⊕ … ⊕ q_con(M): the general prompt, then the constraint questions in
    checklist order, each piece stripped and joined by ``sep`` (a blank line by default)."""
    return sep.join([task.general_prompt.strip(), *constraint_questions(task)])
