"""DeepSynth-Eval's `--dry-run` count: the checklist judge's calls and the oracle's summaries."""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.stages import report_status
from scholarbench.core.planning import PlannedCalls


def planned_calls(options: dict[str, Any], samples: Sequence[Any],
                  generated: dict[str, dict[str, Any]] | None) -> list[PlannedCalls]:
    """`--dry-run`: in a run (or `score RUN_DIR --with-judge`) one judge call per checklist
    sub-group of each task whose report is usable (the task file fixes how many); in a run
    also the oracle's summaries (one per reference, known only once the corpus is read)."""
    if generated is not None and not options.get("with_judge"):
        return []                      # a plain re-score reads the recorded judgements
    usable = [s for s in samples if s.unscorable is None and (
        generated is None or report_status(generated.get(s.id)) == "ok")]
    n = sum(1 for s in usable for g in s.gold.checklist for sub in g.sub_groups
            if sub.requirements)             # an empty sub-group is not sent
    out = []
    if generated is None and (options.get("oracle") or "summary") == "summary" \
            and not options.get("replay"):
        out.append(PlannedCalls("oracle", str(options.get("oracle_role") or "judge"), panel=False,
                                basis="1 per reference of each task's survey found in the "
                                "corpus, for agents given the oracle (not replay, "
                                "endpoint); summaries already made are reused"))
    out.append(PlannedCalls("judge", bound=n, basis="1 per checklist sub-group (with "
                            "requirements) of each task whose report is usable (+ "
                            "--judge-retries repairs per unusable reply); judgements of "
                            "the same report are reused"))
    return out


__all__ = ["planned_calls"]
