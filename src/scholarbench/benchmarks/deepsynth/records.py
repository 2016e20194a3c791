"""Typed records for DeepSynth-Eval tasks in the upstream schema.

A task has a general prompt and a checklist of groups. A group is a *general* group
(``strict: false``) or a *constraint* group (``strict: true``, with the constraint question in
``detailed_prompt``); it holds sub-groups of requirements. A judged file also carries
``eval_result`` per sub-group: one judge label per requirement, kept here as read (raw JSON
values), because how labels are read is a scoring rule
(:mod:`scholarbench.benchmarks.deepsynth.scores`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

MENTIONED_CORRECT = "mentioned_correct"
NOT_MENTIONED = "not_mentioned"
MENTIONED_INCORRECT = "mentioned_incorrect"
STATUSES: tuple[str, ...] = (MENTIONED_CORRECT, NOT_MENTIONED, MENTIONED_INCORRECT)
Status = Literal["mentioned_correct", "not_mentioned", "mentioned_incorrect"]


@dataclass(frozen=True)
class Requirement:
    content: str
    reward: float = 1.0


@dataclass(frozen=True)
class SubGroup:
    name: str
    requirements: tuple[Requirement, ...]
    eval_result: tuple[Any, ...] | None = None   # None: the file has no judgement for it


@dataclass(frozen=True)
class Group:
    name: str
    strict: bool                     # True: a constraint group (paper: C_con), else general
    clip_factor: float               # θ_k = clip_factor × (the group's item total)
    weight: float
    sub_groups: tuple[SubGroup, ...]
    detailed_prompt: str | None = None   # the constraint question q_con of a strict group

    @property
    def n_requirements(self) -> int:
        return sum(len(s.requirements) for s in self.sub_groups)


@dataclass(frozen=True)
class Task:
    task_id: int | str
    checklist: tuple[Group, ...]
    general_prompt: str = ""
    survey_id: str | None = None
    survey_result: str | None = None     # the report under evaluation (judged files)
    source: str | None = None            # "file:line" it was read from

    @property
    def general_groups(self) -> tuple[Group, ...]:
        return tuple(g for g in self.checklist if not g.strict)

    @property
    def constraint_groups(self) -> tuple[Group, ...]:
        return tuple(g for g in self.checklist if g.strict)

    @property
    def n_requirements(self) -> int:
        return sum(g.n_requirements for g in self.checklist)


def task_to_json(task: Task, eval_results: dict[tuple[int, int], list[Any]] | None = None
                 ) -> dict[str, Any]:
    """The upstream JSON form of a task. ``eval_results[(group index, sub-group index)]`` replaces
    that sub-group's ``eval_result`` (our judge writes ``null`` for an unscored item)."""
    groups = []
    for gi, group in enumerate(task.checklist):
        subs = []
        for si, sub in enumerate(group.sub_groups):
            out: dict[str, Any] = {"sub_group_name": sub.name,
                                   "requirements": [{"content": r.content, "reward": r.reward}
                                                    for r in sub.requirements]}
            result = (eval_results or {}).get((gi, si), sub.eval_result)
            if result is not None:
                out["eval_result"] = list(result)
            subs.append(out)
        g: dict[str, Any] = {"group_name": group.name, "strict": group.strict,
                             "clip_factor": group.clip_factor, "weight": group.weight}
        if group.detailed_prompt is not None:
            g["detailed_prompt"] = group.detailed_prompt
        g["sub_groups"] = subs
        groups.append(g)
    obj: dict[str, Any] = {"task_id": task.task_id}
    if task.survey_id is not None:
        obj["survey_id"] = task.survey_id
    obj["general_prompt"] = task.general_prompt
    if task.survey_result is not None:
        obj["survey_result"] = task.survey_result
    obj["checklist"] = groups
    return obj
