"""The `pack` and `verify` commands (docs/leaderboard.md); `cli.COMMANDS` adds them with
`add_pack_parser` and `add_verify_parser`.

Exit status of `verify`: 0 verified, 1 verified with differences, 2 refused (or bad input).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from scholarbench.core.models import Models
from scholarbench.llm.commands import add_model_flags, judge_samples, model_recipe, \
    roles_from_args
from scholarbench.paths import DATA_HELP
from scholarbench.submission.packing import pack
from scholarbench.submission.checking import verify


def add_pack_parser(sub: Any) -> None:
    p = sub.add_parser("pack", help="pack finished runs or eval suites into one submission "
                       "file that `verify` checks (docs/leaderboard.md)")
    p.add_argument("paths", nargs="+", metavar="RUN_DIR|SUITE_DIR")
    p.add_argument("--out", required=True, metavar="SUBMISSION",
                   help="the file to write (a gzip'ed tar, e.g. my-agent.tar.gz)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="pack runs with errored or missing samples or failed judge calls "
                   "(refused by default: an incomplete run is not a result)")
    p.set_defaults(func=cmd_pack)


def add_verify_parser(sub: Any) -> None:
    p = sub.add_parser("verify", help="check a submission against this machine's data and "
                       "code: hashes, task set, summaries, re-scores, judge records, leakage "
                       "and injection")
    p.add_argument("submission", metavar="SUBMISSION")
    p.add_argument("--data", help=DATA_HELP)
    p.add_argument("--rejudge", action="store_true",
                   help="also re-judge every judge-scored run with the judge given here "
                   "(--judge, --judge-base-url) and print Krippendorff's α between the "
                   "submitted and the re-judged verdicts")
    add_model_flags(p, agent=False, judge=True)
    p.set_defaults(func=cmd_verify)


def cmd_pack(args: argparse.Namespace) -> int:
    packed = pack([Path(p) for p in args.paths], Path(args.out),
                  allow_incomplete=args.allow_incomplete)
    for run in packed.runs:
        print(f"packed {run.dir} ({run.benchmark} {run.mode}, agent {run.agent})")
    for run_dir, names in packed.left_out.items():
        print(f"left out of {run_dir}: {', '.join(names)}")
    for line in packed.incomplete:
        print(f"warning: {line} (packed: --allow-incomplete)", file=sys.stderr)
    print(f"wrote {packed.path}: {len(packed.runs)} run(s), {packed.members} members")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    models = None
    if args.rejudge:
        models = Models(lambda need_agent, need_judge: roles_from_args(
            args, need_agent=need_agent, need_judge=need_judge))
        models.recipe = model_recipe(args)
        models.judge_samples = judge_samples(args)
    result = verify(Path(args.submission), data=args.data, rejudge=models,
                    on_check=lambda check: print("\n".join(check.lines()), flush=True))
    print(result.verdict_line())
    return result.exit_code


__all__ = ["add_pack_parser", "add_verify_parser", "cmd_pack", "cmd_verify"]
