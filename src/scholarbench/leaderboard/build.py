"""`write_leaderboard`: submissions → the static site, leaderboard.json and leaderboard.csv."""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from scholarbench.leaderboard.board import Board, Listed, build_boards, read_listed
from scholarbench.leaderboard.exports import leaderboard_csv, leaderboard_json
from scholarbench.leaderboard.site import board_page, index_page, submission_page, write_page
from scholarbench.llm.secrets import redact
from scholarbench import __version__
from scholarbench.report.html import write_html_report

TITLE = "scholarbench leaderboard"


@dataclass
class Built:
    out: Path
    boards: list[Board]
    listed: list[Listed]


def write_leaderboard(paths: Sequence[Path], out: Path, *, data: str | None = None,
                      title: str = TITLE, drilldown: bool = True) -> Built:
    """Verify every submission, rank the verified ones and write the site into `out`.
    `drilldown`: also each ranked submission's report (`submission-<name>-report.html`)."""
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with tempfile.TemporaryDirectory(prefix="sb-leaderboard-") as work:
        listed = read_listed(paths, Path(work), data)
        boards = build_boards(listed)
        out.mkdir(parents=True, exist_ok=True)       # not before every input could be read
        for board in boards:
            write_page(out / f"{board.slug}.html", redact(board_page(board, title), prose=True))
        for sub in listed:
            report = None
            if drilldown and sub.runs:
                report = f"submission-{sub.slug}-report.html"
                write_html_report([r.run_dir for r in sub.runs.values()], out / report,
                                  title=f"{title} — {sub.slug}: its runs")
            write_page(out / f"submission-{sub.slug}.html",
                       redact(submission_page(sub, boards, title, report), prose=True))
    write_page(out / "index.html", redact(index_page(boards, listed, title, generated,
                                                     __version__), prose=True))
    write_page(out / "leaderboard.json", redact(leaderboard_json(boards, listed, generated),
                                                prose=True))
    write_page(out / "leaderboard.csv", redact(leaderboard_csv(boards), prose=True))
    return Built(out, boards, listed)


__all__ = ["Built", "TITLE", "write_leaderboard"]
