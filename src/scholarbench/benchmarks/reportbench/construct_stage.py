"""The prompt stage of a constructed granularity (sub-tasks sentence / paragraph / detail),
run before generate (`ReportBench.prepare_run`) through `core.engine.run_stage`.

prompts.jsonl holds one record per survey: `construct.ConstructedPrompt.to_dict()` (the
prompt, its cut-off check, attempts, prompt version, …), the comparison with the shipped prompt
(`comparison`) and the shipped prompt itself (`shipped_prompt`), with `status`:
- ``ok``: a prompt — the agent gets it inside upstream's template (`samples.set_prompt`);
- ``unscored``: the model's reply stayed unusable after the repair turn — the survey has no
  prompt, the agent is not run on it and its row is `unscored` (counted, not in the means);
- ``error``: the call to the model failed after the client's retries — retried when the run
  is resumed; until then the survey's row is `error` and the run incomplete.
The model is the judge role (constructing the data is not the agent under test); its usage is
the manifest's `usage.prompts.judge`.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.core.benchmark import Sample
from scholarbench.core.engine import run_stage
from scholarbench.benchmarks.reportbench.construct import (compare_prompts, construct_prompt,
                                                           survey_source)
from scholarbench.benchmarks.reportbench.samples import set_prompt

PROMPTS = "prompts.jsonl"


class ConstructionFailed(RuntimeError):
    """The model call behind a constructed prompt failed (the record is `error`, retried)."""


def construct_step(client: Any, corpus: Any, granularity: str, text_chars: int):

    def step(sample: Sample) -> dict[str, Any]:
        task = sample.task.native.task
        made = construct_prompt(client, survey_source(task, corpus), granularity,
                                max_text_chars=text_chars)
        if made.unscored and made.unscored.startswith("call failed"):
            raise ConstructionFailed(made.unscored)
        record = made.to_dict()
        if record.get("prompt"):
            record["comparison"] = compare_prompts(record["prompt"], task.prompt, task.title)
        else:
            record["status"] = "unscored"
        record["shipped_prompt"] = task.prompt
        return record
    return step


def run_prompt_stage(run: Any, samples: Sequence[Sample], client: Any, corpus: Any,
                     granularity: str, text_chars: int, template: str,
                     progress: bool = True) -> int:
    for sample in samples:               # the stage runs on every sample
        sample.unscorable = None
    try:
        return run_stage(run, PROMPTS, samples, construct_step(client, corpus, granularity,
                                                               text_chars),
                         stage="prompts", role="judge", client=client, progress=progress)
    finally:
        apply_prompts(run, samples, template)


def apply_prompts(run: Any, samples: Sequence[Sample], template: str
                  ) -> dict[str, dict[str, Any]]:
    """Give each sample its constructed prompt inside upstream's `template`; a sample without
    one stays unscorable (the agent is not run on it). Returns the records by survey."""
    records = run.stage(PROMPTS).records
    for sample in samples:
        record = records.get(sample.id)
        if record is not None and record.get("prompt") and record.get("status", "ok") == "ok":
            set_prompt(sample, record["prompt"], template)
        else:
            sample.unscorable = why_no_prompt(record)
    return records


def why_no_prompt(record: dict[str, Any] | None) -> str:
    if record is None:
        return "no constructed prompt"
    if record.get("status") == "error":
        return f"no prompt: {record.get('error') or 'construction failed'}"
    return f"no prompt: {record.get('unscored') or 'no constructed prompt'}"
