"""The `leaderboard` command (docs/leaderboard.md); `cli.COMMANDS` adds it with
`add_leaderboard_parser`."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from scholarbench.paths import DATA_HELP


def add_leaderboard_parser(sub: Any) -> None:
    p = sub.add_parser("leaderboard", help="a static site ranking the verified submissions "
                       "per benchmark and sub-task, with JSON and CSV (docs/leaderboard.md)")
    p.add_argument("submissions", nargs="+", metavar="SUBMISSION")
    p.add_argument("--out", required=True, metavar="SITE",
                   help="the folder to write (index.html, one page per benchmark and sub-task "
                   "and per submission, leaderboard.json, leaderboard.csv)")
    p.add_argument("--data", help=DATA_HELP)
    p.add_argument("--title", default=None, help="the site's title")
    p.add_argument("--no-drilldown", action="store_true",
                   help="leave out each submission's report of its runs")
    p.set_defaults(func=cmd_leaderboard)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    # deferred: verify re-scores with the engine and every benchmark
    from scholarbench.leaderboard.build import TITLE, write_leaderboard
    built = write_leaderboard([Path(p) for p in args.submissions], Path(args.out),
                              data=args.data, title=args.title or TITLE,
                              drilldown=not args.no_drilldown)
    for sub in built.listed:
        why = f" ({'; '.join(sub.why)})" if sub.why else ""
        print(f"{'ranked' if sub.ranked else 'listed apart'}: {sub.slug}: {sub.verdict}{why}")
    for board in built.boards:
        print(f"{board.benchmark} {board.mode}: {len(board.entries)} ranked by {board.label}")
    print(f"wrote {built.out / 'index.html'}, leaderboard.json, leaderboard.csv")
    return 0


__all__ = ["add_leaderboard_parser", "cmd_leaderboard"]
