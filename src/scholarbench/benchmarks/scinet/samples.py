"""What an agent sees of one SciNet task (the engine's `Task`), and never its ground truth.

- `prompt`: the task's query — SciNet's own wording (the templates of `queries.py`, verbatim
  from the paper's task definitions and the upstream query files), e.g. `What are the top 5 most
  novel papers in the field of Machine Learning (cs.LG)?`; for tasks read from upstream query
  files, the upstream text itself.
- `fields` (JSON; the query's structured parts):
  - every task: `kind` (novel | disruptive | pncites | cooccur | path) and `scored_items` (50:
    only the first 50 answer items count, for every metric);
  - ego: `field` (the field named in the query) and `category` (the graph's arXiv category
    behind it, null for upstream queries);
  - pair: `paper` = {`id`, `title`} of the query paper (its graph id for built tasks, the
    OpenAlex id for upstream queries; its title as the query gives it);
  - path: `field`, and `from` / `to` = {`id`, `title`} of the two endpoints (id null when the
    task names the paper by title only).
- `native`: the `SciNetTask` with `gold` removed (SciNet's built-in agents read it).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from scholarbench.benchmarks.scinet.answers import FAMILY
from scholarbench.benchmarks.scinet.measures import K
from scholarbench.core.agent import Task
from scholarbench.core.benchmark import Sample

_QUOTED = re.compile(r'titled "(.*)"')


def _paper(ref: str | None, env: Any, title: str | None = None) -> dict[str, Any]:
    if ref and env.has(ref):
        return {"id": ref, "title": env.title(ref)}
    looks_like_id = bool(ref) and title is not None
    return {"id": ref if looks_like_id else None, "title": title if title is not None else ref}


def task_fields(task: Any, env: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"kind": task.kind, "scored_items": K}
    if task.family == "ego":
        fields.update(field=task.field, category=task.category)
    elif task.family == "pair":
        title = task.info.get("title") if isinstance(task.info, dict) else None
        if title is None and (m := _QUOTED.search(task.query)):
            title = m.group(1)
        fields["paper"] = _paper(task.source, env, title or "")
    else:
        fields.update({"field": task.field, "from": _paper(task.classic, env),
                       "to": _paper(task.recent, env)})
    return fields


def make_sample(task: Any, env: Any) -> Sample:
    """The engine's sample of a task: what the agent sees, and the whole task as the gold."""
    blind = dataclasses.replace(task, gold=None)
    return Sample(task.task_id, Task(id=task.task_id, benchmark="scinet", subtask=task.family,
                                     family=FAMILY[task.family], prompt=task.query,
                                     fields=task_fields(task, env), native=blind), gold=task)
