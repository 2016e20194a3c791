"""What `scholarbench eval` does with a benchmark unless told otherwise (`Benchmark.eval_defaults`).

`eval` runs one agent on every benchmark, so it has to choose for each what a user of `run`
chooses by hand: which sub-tasks have data to run, which options point a sub-task at its gold
(a task file imported last rather than tasks built again), and what to say beside a sub-task
none of whose samples could be scored. One record says all three; the base default runs every
sub-task with no extra options and says nothing more.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


def no_options(subtask: str, given: dict[str, Any]) -> dict[str, Any]:
    return {}


def no_hint(subtask: str) -> str:
    return ""


@dataclass(frozen=True)
class EvalDefaults:
    """`subtasks`: the sub-tasks `eval` runs by default (those whose data is present; none:
    the benchmark is not run). `options(subtask, given)`: the options `eval` sets for
    `subtask` on top of the defaults, where the user gave none (`given`: the keys of the
    user's `--option BENCHMARK.KEY=VALUE`). `hint(subtask)`: how to give `subtask` gold when
    every sample was unscorable ("" when there is nothing to add), shown beside `skipped`."""
    subtasks: tuple[str, ...]
    options: Callable[[str, dict[str, Any]], dict[str, Any]] = no_options
    hint: Callable[[str], str] = no_hint
