"""TaxoBench's side of `judge-check`: the LLM judge's mean score with a probe in the model tree.

The probe is appended to the root's label: the judge reads category labels only (papers are
left out of the rendered tree), so a label is where an agent's text can reach it. The judge's
own defences stay on — labels are put on one line and block-tag lookalikes defused — so the
check measures the judge as a run uses it.
"""
from __future__ import annotations

import copy
from typing import Any

from scholarbench.benchmarks.taxobench.judge import as_judge
from scholarbench.benchmarks.taxobench.predictions import judgeable, prediction


def judge_with_probe(bench: Any, sample: Any, record: dict[str, Any],
                     probe: str | None, client: Any) -> float | None:
    taxonomy = judgeable(prediction(record, sample.id))
    if taxonomy is None:
        return None
    if probe is not None:
        taxonomy = copy.deepcopy(taxonomy)
        taxonomy.name = f"{taxonomy.name} {probe}"
    judge = as_judge(client)
    return judge.judge(sample.gold, taxonomy).avg
