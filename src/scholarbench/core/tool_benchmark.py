"""The engine's half of `scholarbench tools serve --benchmark B`: the benchmark, built with its
options as `run` builds it (the tools' command line gets this function from `cli`, so
`scholarbench.tools` never imports the engine)."""
from __future__ import annotations

import argparse
from typing import Any

from scholarbench.core.commands import agent_params
from scholarbench.core.engine import benchmark_class
from scholarbench.core.suite import default_options
from scholarbench.errors import ScholarbenchError


def open_benchmark(args: argparse.Namespace) -> tuple[Any, str]:
    """The benchmark `tools serve --benchmark B [--subtask S] [--option K=V …] [--corpus DIR]
    [--data DIR]` serves, with its options as for `run`, checked; and the sub-task."""
    cls = benchmark_class(args.benchmark)
    overrides = {k.replace("-", "_"): v for k, v in agent_params(args.option).items()}
    corpus = args.corpus or overrides.pop("corpus", None)
    options = default_options(cls, overrides)
    # every benchmark's tools read `corpus` (a run option of some, not of others)
    options.update(data=args.data, **({"corpus": str(corpus)} if corpus else {}))
    bench = cls(options)
    subtask = args.subtask or next(iter(cls.subtasks))
    if subtask not in cls.subtasks:
        raise ScholarbenchError(f"{cls.name} has no sub-task {subtask!r}; use one of "
                                f"{', '.join(cls.subtasks)}")
    bench.check(subtask)
    return bench, subtask
