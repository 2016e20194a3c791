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

import json
from pathlib import Path
from typing import Any

from scholarbench.core.records import READABLE_FORMATS, RUN_FORMAT
from scholarbench.core.status import reason_of, sample_status
from scholarbench.errors import DataError, ScholarbenchError


def check_format(manifest: dict[str, Any], path: Path) -> str:
    """The run's format; a format this version cannot read is one error line. Every format
    was written into the manifest from the first one on, so a missing, empty, null or
    non-string `format` is refused rather than guessed."""
    fmt = manifest.get("format")
    if not isinstance(fmt, str) or not fmt:
        raise DataError(f"expected the run format, one of {', '.join(READABLE_FORMATS)}, got "
                        f"{'nothing' if fmt is None else json.dumps(fmt)[:60]}",
                        file=str(path), field="format")
    if fmt not in READABLE_FORMATS:
        raise ScholarbenchError(f"{path}: run format {fmt!r} is not one this scholarbench reads "
                                f"({', '.join(READABLE_FORMATS)}); upgrade scholarbench")
    return fmt


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
