"""`scholarbench judge-check RUN_DIR [RUN_DIR …] [--probes NAMES] [--limit N] --judge …`."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError


def add_judge_check_parser(sub: Any) -> None:
    from scholarbench.llm.commands import add_model_flags
    p = sub.add_parser("judge-check", help="measure how far injected text moves a run's LLM "
                       "judge (docs/injection.md)")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--probes", default="all", help="comma-separated probe names (default all: "
                   "direct-order, closing-tag, system-turn, score-in-answer, non-english, appeal)")
    p.add_argument("--limit", type=int, help="the first N judgeable samples of each run")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_model_flags(p, agent=False, judge=True)
    p.set_defaults(func=cmd_judge_check)


def cmd_judge_check(args: argparse.Namespace) -> int:
    from scholarbench.core.commands import _models
    from scholarbench.injection.check import check_run, format_check
    from scholarbench.injection.probes import probes_named
    probes = probes_named(args.probes)
    if args.limit is not None and args.limit < 1:
        raise ScholarbenchError("--limit must be >= 1")
    models = _models(args)
    for run_dir in map(Path, args.run_dirs):
        if not (run_dir / "manifest.json").is_file():
            raise ScholarbenchError(f"{run_dir}: not a run directory")
        result = check_run(run_dir, models, probes, limit=args.limit, progress=not args.quiet)
        print(format_check(run_dir, result))
    return 0
