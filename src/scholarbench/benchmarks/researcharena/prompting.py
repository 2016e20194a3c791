"""What an agent sees of a ResearchArena task: `Task.prompt` (the benchmark's own instruction)
and `Task.fields` (the same facts as JSON); never the gold.

Prompts are package files, versioned by name (`prompts/task_<subtask>_v1.txt`):

- discovery: the topic request is upstream's ZERO-SHOT wording (appendix C.2, "…gathers
  supporting materials for writing a survey paper on the following topic: {x}.") turned from
  "create a search query" into "find academic papers"; then the paper's leakage rule (§5:
  "documents in D must be non-survey and published before S") as the rule the agent must keep,
  with the ISO cut-off date and the survey's own title to leave out; then "list up to 100
  papers, the most relevant first" (the paper scores K = 10 and 100; upstream retrieves 100).
- selection: the same request and rule, asking for a ranking "by their importance to the
  topic, the most influential first" (§5: "rank the discovered documents based on their
  importance to the topic"; the labels are influential vs other citations).
- organisation: FEW-SHOT's instruction (appendix C.3: "Provided a topic, your task is to
  construct a mind-map style typology that presents a systematic understanding of the topic."),
  the topic, and the survey's references as a numbered list of titles — the paper's
  intermediate setting (§5: "references R from the original survey paper could be provided").

Fields (`Task.fields`, flattened into `Task.as_json()` for plain-function agents):

    topic          the survey title (the task's topic)
    cutoff         ISO date "YYYY-MM-DD" before which searchable papers were published, or null
    survey_title   the survey to leave out (its corpus title, else the topic)
    survey_id      its corpus paper_id, or null
    k              100, the longest list scored
    references     organisation only: [{"id": paper_id, "title": str | null}, …]
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.researcharena.records import ArenaTask

K = 100
PROMPTS = {"discovery": "task_discovery_v1", "selection": "task_selection_v1",
           "organisation": "task_organisation_v1"}


def task_fields(task: ArenaTask, subtask: str, survey_title: str | None = None,
                titles: dict[str, str] | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "topic": task.topic, "cutoff": task.cutoff.isoformat() if task.cutoff else None,
        "survey_title": survey_title or task.topic, "survey_id": task.survey_id, "k": K}
    if subtask == "organisation":
        fields["references"] = [{"id": pid, "title": (titles or {}).get(pid)}
                                for pid in task.references]
    return fields


def _rules(fields: dict[str, Any]) -> str:
    when = f" and were published before {fields['cutoff']}" if fields["cutoff"] else ""
    return (f"Only papers that are not surveys{when} count, and not the survey "
            f"\"{fields['survey_title']}\" itself.")


def _reference_lines(refs: Sequence[dict[str, Any]]) -> str:
    lines = [f"{i}. {r['title'] or r['id']}" for i, r in enumerate(refs, start=1)]
    return "\n".join(lines) if lines else "(none)"


def task_prompt(subtask: str, fields: dict[str, Any]) -> str:
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.benchmarks.researcharena.agents.common import load_prompt
    template = load_prompt(PROMPTS[subtask])
    if subtask == "organisation":
        text = template.fill(topic=fields["topic"],
                             references=_reference_lines(fields["references"]))
    else:
        text = template.fill(topic=fields["topic"], rules=_rules(fields), k=fields["k"])
    return text.rstrip("\n")


def prompt_identities() -> dict[str, str]:
    """name@sha256 of each task prompt (recorded in the manifest)."""
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.benchmarks.researcharena.agents.common import load_prompt
    return {subtask: load_prompt(name).identity() for subtask, name in PROMPTS.items()}


__all__ = ["K", "PROMPTS", "task_fields", "task_prompt", "prompt_identities"]
