"""ReportBench tasks as engine samples, and the request a built-in writer gets.

`Task.prompt` is the evaluation prompt exactly as upstream's `infer/process_prompt.py` builds it
and as the writers receive it: the research request (the shipped prompt, or the one constructed
at the sub-task's granularity) inside upstream's template — "{prompt}\\n\\nYou also need to
follow the following rules:\\n- Do not refer to the survey titled "{title}".\\n- Responses are
given in the form of an English language survey with citations where appropriate." The request
names its cut-off date ("published before April 2025").

`Task.fields` (JSON, for a user's agent):
- `topic`: the research request alone (what a writer searches with; never the survey title),
- `cutoff`: the cut-off as an ISO date (the first day of the month the request names; only
  papers published before it), or null when the request names none,
- `exclude_ids`: the hidden survey's keys (`arxiv:<id>`, `doi:<doi>`) — never cite it,
- `exclude_title`: its title (the template's "Do not refer to the survey titled …"),
- `granularity`: the sub-task.

`Task.native` is a `ReportTask` (the upstream task and the request) for the built-in writers.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from scholarbench.core.agent import Task
from scholarbench.core.benchmark import Sample
from scholarbench.benchmarks.reportbench.tasks import build_eval_prompt, parse_cutoff
from scholarbench.agents.writers.base import WritingRequest

FAMILY = "report"


@dataclass(frozen=True)
class ReportTask:
    """One ReportBench task as the built-in writers see it."""
    task: Any                    # tasks.Task (the upstream record)
    topic: str                   # the research request (shipped or constructed)
    prompt: str                  # the evaluation prompt (template filled in)
    cutoff: date | None

    @property
    def exclude_ids(self) -> tuple[str, ...]:
        return hidden_keys(self.task)

    def request(self) -> Any:
        return WritingRequest(task_id=self.task.arxiv_id, prompt=self.prompt, topic=self.topic,
                              cutoff=self.cutoff, exclude_ids=self.exclude_ids)


def hidden_keys(task: Any) -> tuple[str, ...]:
    """The hidden survey's id keys: its arXiv id and, when it has one, its DOI."""
    return (f"arxiv:{task.arxiv_id}",) + ((f"doi:{task.doi.lower()}",) if task.doi else ())


def report_task(task: Any, topic: str | None = None, template: str | None = None) -> ReportTask:
    """The shipped request (`topic=None`), or a constructed one wrapped in `template`."""
    if topic is None:
        return ReportTask(task, task.prompt, task.eval_prompt, task.cutoff)
    return ReportTask(task, topic, build_eval_prompt(template or "", topic, task.title),
                      parse_cutoff(topic) or task.cutoff)


def engine_task(native: ReportTask, benchmark: str, subtask: str) -> Task:
    t = native.task
    return Task(id=t.arxiv_id, benchmark=benchmark, subtask=subtask, family=FAMILY,
                prompt=native.prompt, native=native,
                fields={"topic": native.topic,
                        "cutoff": native.cutoff.isoformat() if native.cutoff else None,
                        "exclude_ids": list(native.exclude_ids), "exclude_title": t.title,
                        "granularity": subtask})


def make_sample(task: Any, benchmark: str, subtask: str, shipped: bool) -> Sample:
    """A sample; for a constructed granularity the prompt is filled in by `set_prompt` once
    the prompt stage has run (until then the agent has nothing to answer)."""
    native = report_task(task) if shipped else ReportTask(task, "", "", None)
    return Sample(task.arxiv_id, engine_task(native, benchmark, subtask), gold=None,
                  unscorable=None if shipped else "no constructed prompt yet")


def set_prompt(sample: Sample, topic: str, template: str) -> None:
    native = report_task(sample.task.native.task, topic, template)
    sample.task = engine_task(native, sample.task.benchmark, sample.task.subtask or "")
    sample.unscorable = None
