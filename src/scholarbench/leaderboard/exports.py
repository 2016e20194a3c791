"""leaderboard.json and leaderboard.csv: the site's ranked tables as data.

Each ranked entry is one record of `COLUMNS` (the same numbers as the HTML table's cells, which
carry them as `data-key` / `data-value`); the papers' published rows follow each board's
entries with `kind` "published" and no rank; the submissions listed apart are in the JSON's
`unranked` with their verdict and why.
"""
from __future__ import annotations

import csv
import io
import json
from typing import Any, Sequence

from scholarbench.leaderboard.board import Board, Entry, Listed

# the numeric columns, in the HTML table's order (after the entry's name and agent)
KEYS = ("score", "ci_low", "ci_high", "n", "gap", "gap_ci_low", "gap_ci_high",
        "cost_per_sample", "n_suspected_leak", "mean_without_leaked", "n_suspected_injection",
        "mean_without_flagged", "alpha")
COLUMNS = ("benchmark", "mode", "measure", "kind", "rank", "submission", "run", "agent", *KEYS,
           "gap_significant", "pareto", "judges")


def entry_values(entry: Entry) -> dict[str, Any]:
    """The numbers of one entry under `KEYS`."""
    gap = entry.gap
    return {"score": entry.score, "ci_low": entry.ci_low, "ci_high": entry.ci_high,
            "n": entry.n, "gap": gap.diff if gap else None,
            "gap_ci_low": gap.ci_low if gap else None,
            "gap_ci_high": gap.ci_high if gap else None,
            "cost_per_sample": entry.cost_per_sample,
            "n_suspected_leak": entry.n_suspected_leak,
            "mean_without_leaked": entry.mean_without_leaked,
            "n_suspected_injection": entry.n_suspected_injection,
            "mean_without_flagged": entry.mean_without_flagged, "alpha": entry.alpha}


def records(board: Board) -> list[dict[str, Any]]:
    """The board's rows as records of `COLUMNS`: ranked entries, then published rows."""
    head = {"benchmark": board.benchmark, "mode": board.mode, "measure": board.key}
    out = [{**head, "kind": "ranked", "rank": e.rank, "submission": e.submission, "run": e.run,
            "agent": e.agent, **entry_values(e),
            "gap_significant": e.gap.significant if e.gap and e.gap.n_pairs else None,
            "pareto": e.pareto, "judges": list(e.judges)} for e in board.entries]
    out += [{**head, "kind": "published", "rank": None, "submission": None, "run": p.system,
             "agent": p.system, **{k: None for k in KEYS}, "score": p.value,
             "gap_significant": None, "pareto": None, "judges": [], "table": p.table}
            for p in board.published]
    return out


def leaderboard_json(boards: Sequence[Board], listed: Sequence[Listed], generated: str
                     ) -> str:
    doc = {"generated": generated,
           "boards": [{"benchmark": b.benchmark, "mode": b.mode, "measure": b.key,
                       "label": b.label, "higher_is_better": b.higher_better,
                       "cost_axis": b.cost_axis, "page": f"{b.slug}.html",
                       "rows": records(b)} for b in boards],
           "submissions": [{"submission": s.slug, "file": s.path.name, "verdict": s.verdict,
                            "ranked": s.ranked, "why": s.why} for s in listed],
           "unranked": [{"submission": s.slug, "verdict": s.verdict, "why": s.why}
                        for s in listed if not s.ranked]}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def leaderboard_csv(boards: Sequence[Board]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for board in boards:
        for rec in records(board):
            writer.writerow({k: (";".join(v) if isinstance(v, list) else
                                 "" if v is None else v) for k, v in rec.items()})
    return buf.getvalue()


__all__ = ["COLUMNS", "KEYS", "entry_values", "leaderboard_csv", "leaderboard_json", "records"]
