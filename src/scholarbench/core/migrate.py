"""Reading run directories written by earlier versions (`core.records.READABLE_FORMATS`).

    scholarbench-run/1, /2   score rows without `reason`; summaries without `ci95`,
                             `ci_method` or `summary_version`
    scholarbench-run/3       every score row explains its status (`reason`), every summary
                             measure has its 95% interval

A run of an older format still reports (a summary without intervals shows none) and re-scores
(re-scoring writes this format's rows and summary and stamps the manifest); `aggregate` lifts its
rows in memory first — each row's status and reason re-derived from its generate record, as the
engine of the time did — so the rebuilt summary is this version's.
"""
from __future__ import annotations

from typing import Any

from scholarbench.core.records import (  # noqa: F401  (re-exported)
    READABLE_FORMATS, RUN_FORMAT, check_format)
from scholarbench.core.status import reason_of, sample_status


def upgrade_rows(rows: list[dict[str, Any]], manifest: dict[str, Any],
                 generated: dict[str, dict[str, Any]], id_key: str) -> list[dict[str, Any]]:
    """Rows of an older format as this format writes them (in memory; the files stay)."""
    if manifest.get("format") == RUN_FORMAT:
        return rows
    out = []
    for row in rows:
        row = dict(row)
        rec = generated.get(str(row.get(id_key)))
        status = sample_status(row, rec)
        if status != "scored" or row.get("status") is None:
            row["status"] = status
        if "reason" not in row and (why := reason_of(row["status"], row, rec)) is not None:
            row["reason"] = why
        out.append(row)
    return out


__all__ = ["check_format", "upgrade_rows"]
