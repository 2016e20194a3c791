"""Every sample's status, decided once and counted once for every output.

summary.json (`status`), scores.jsonl (each row's `status`), eval.json, the eval table and the
report all call `sample_status` / `count_samples` (or `run_counts`, which reads a run
directory's scores.jsonl and generate file), so one sample has one status in every file.

The agent's answer decides first: a generate record that says `error` or `oversized` is that;
one that says `missing` (no answer at all) is `missing`, one that says `malformed` is
`malformed` (older runs wrote a missing answer as `malformed` with `missing: true`: read as
`missing`), whatever the benchmark's scorer called the empty answer it scored. A sample the
benchmark could not score on this data is `unscorable`; otherwise the row's own status stands
(`unscored` when the judge's replies were unusable). ReportBench's `no_references` (a valid
answer with nothing to match) is `scored`, and named in the scored column's reason.

Columns (docs/reports.md): scored, missing, malformed, oversized, unresolved, unscored (judge),
unscorable, error — each with its most frequent reason in one line. `unresolved` is the run
summary's `n_unresolved` (references the resolver could not place), None when the run has none.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from scholarbench.core.lookup import benchmark_class
from scholarbench.core.records import STATUSES
from scholarbench.core.rundir import read_stage
from scholarbench.files import read_regular_file

COLUMNS = ("scored", "missing", "malformed", "oversized", "unresolved", "unscored",
           "unscorable", "error")
LABELS = {"unscored": "unscored (judge)"}
_FROM_RECORD = ("error", "oversized")


def sample_status(row: dict[str, Any], record: dict[str, Any] | None = None) -> str:
    """The one status of a sample, from its score row and its generate record (if any)."""
    rec = record or {}
    if row.get("unscorable") or row.get("status") == "unscorable":
        return "unscorable"
    if rec.get("status") in _FROM_RECORD:
        return str(rec["status"])
    if rec.get("status") == "missing":
        return "missing"
    if rec.get("status") == "malformed":      # older runs wrote a missing answer this way
        return "missing" if rec.get("missing") else "malformed"
    status = str(row.get("status") or "scored")
    if status == "no_references" or status not in STATUSES:
        return "scored"
    return status


def reason_of(status: str, row: dict[str, Any], rec: dict[str, Any] | None) -> str | None:
    """Why a sample has `status` (None for a plain `scored`), in the words of its record:
    the engine writes it into the score row as `reason`, so scores.jsonl explains itself."""
    if status == "scored":
        return "no references in the answer" if row.get("status") == "no_references" else None
    if status == "unscorable":
        return str(row.get("unscorable") or row.get("error") or row.get("reason")
                   or "no gold for this sample")
    text = (rec or {}).get("error") or row.get("error") or row.get("reason")
    if not text and status == "missing":
        text = "no answer"
    return str(text) if text else None


def _reason_of(status: str, row: dict[str, Any], rec: dict[str, Any] | None) -> str | None:
    text = reason_of(status, row, rec)
    return text if status in ("scored", "unscorable") or text is None else _general(text)


def _example(text: str, sample_id: str, n: int) -> str:
    """A column's top reason as one of its samples has it (the task and the field named, not
    a template), with how many more share its form."""
    text = text.splitlines()[0] if text else ""
    text = text if len(text) <= 240 else text[:239] + "…"
    named = f"'{sample_id}'" in text or f'"{sample_id}"' in text
    where = [] if named else [f"sample {sample_id}"]
    if n > 1:
        where.append(f"{n - 1} more like it")
    return f"{n}× {text}" + (f" ({', '.join(where)})" if where else "")


def _general(text: str) -> str:
    """One reason for many samples: ids, quoted names and numbers are left out."""
    text = re.sub(r"'[^'\s]*'|\"[^\"\s]*\"", "…", text.splitlines()[0] if text else "")
    text = re.sub(r"(?<![\w/.-])\d+(\.\d+)?(?![\w/.-])", "N", text)
    return text if len(text) <= 200 else text[:199] + "…"


@dataclass
class StatusCounts:
    """Samples per column and each column's most frequent reason."""
    n_samples: int = 0
    counts: dict[str, int | None] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def status_dict(self) -> dict[str, int]:
        """summary.json's `status`: the non-zero per-sample statuses."""
        return {k: v for k, v in self.counts.items() if k != "unresolved" and v}

    def get(self, column: str) -> int | None:
        return self.counts.get(column)

    def top_reasons(self) -> str:
        """One line: each non-empty column's top reason."""
        return "; ".join(f"{LABELS.get(k, k)}: {self.reasons[k]}" for k in COLUMNS
                         if k in self.reasons)

    def as_json(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "reasons": dict(self.reasons)}


def count_samples(rows: Iterable[dict[str, Any]], generated: dict[str, dict[str, Any]],
                  id_key: str = "id", summary: dict[str, Any] | None = None) -> StatusCounts:
    """Count score rows by `sample_status` (generate records by sample id); `summary` adds
    `n_unresolved` and the judge's unscored reasons."""
    out = StatusCounts(counts={k: 0 for k in COLUMNS})
    reasons: dict[str, Counter[str]] = {k: Counter() for k in COLUMNS}
    examples: dict[tuple[str, str], tuple[str, str]] = {}     # (column, form) → (id, text)
    rows_seen, plain = [], 0
    for row in rows:
        rows_seen.append(row)
        if not generated and row.get("status") == "scored" and not row.get("unscorable"):
            plain += 1              # scored, no generate record, no reason: only counted
            continue
        rec = generated.get(str(row.get(id_key)))
        status = sample_status(row, rec)
        out.n_samples += 1
        out.counts[status] = (out.counts.get(status) or 0) + 1
        if (why := _reason_of(status, row, rec)) is not None:
            reasons[status][why] += 1
            examples.setdefault((status, why), (str(row.get(id_key)),
                                                reason_of(status, row, rec) or why))
    out.n_samples += plain
    out.counts["scored"] = (out.counts.get("scored") or 0) + plain
    summary = summary or {}
    unresolved = summary.get("n_unresolved")
    out.counts["unresolved"] = int(unresolved) if isinstance(unresolved, int) else None
    judge_line = _judge_reasons(summary) or _row_judge_reasons(rows_seen)
    for column, counter in reasons.items():
        if counter:
            why, n = counter.most_common(1)[0]
            out.reasons[column] = (f"{n}× {why}" if column in ("scored", "unscorable")
                                   else _example(examples[(column, why)][1],
                                                 examples[(column, why)][0], n))
    if judge_line:
        out.reasons["unscored"] = judge_line
    return out


def _judge_reasons(summary: dict[str, Any]) -> str | None:
    """Judge items left unscored (summary `n_unscored` / `unscored_reasons`), in one line."""
    reasons = summary.get("unscored_reasons") or (summary.get("judge") or {}).get(
        "unscored_reasons") or {}
    n = summary.get("n_unscored")
    if not isinstance(reasons, dict) or not reasons:
        return f"{n} judge item(s) unscored" if isinstance(n, int) and n else None
    top, k = max(reasons.items(), key=lambda kv: kv[1])
    total = n if isinstance(n, int) and n else sum(v for v in reasons.values()
                                                  if isinstance(v, int))
    return f"{total} judge item(s) unscored, {k}× {top}"


def _row_judge_reasons(rows: list[dict[str, Any]]) -> str | None:
    """Samples scored without their judge measures (TaxoBench's `judge_unscored`)."""
    reasons = Counter(_general(str(r["judge_unscored"])) for r in rows
                      if r.get("judge_unscored"))
    if not reasons:
        return None
    top, k = reasons.most_common(1)[0]
    return f"{sum(reasons.values())} sample(s) without judge scores, {k}× {top}"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in read_regular_file(path, errors="replace").splitlines():   # bounded, no FIFO
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            rows.append(obj)
    return rows


def run_counts(run_dir: Path, benchmark: str | None = None) -> StatusCounts:
    """`count_samples` over a run directory's scores.jsonl, generate file and summary."""
    run_dir = Path(run_dir)
    summary: dict[str, Any] = {}
    if (run_dir / "summary.json").exists():
        try:
            summary = json.loads(read_regular_file(run_dir / "summary.json", errors="replace"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            summary = {}
    name = benchmark or summary.get("benchmark")
    generate_file, id_key = "generate.jsonl", "id"
    if name:
        try:
            cls = benchmark_class(str(name))
            generate_file, id_key = cls.generate_file, cls.id_key
        except Exception:          # a foreign run: the default file names
            pass
    generated = read_stage(run_dir / generate_file, id_key).records
    return count_samples(_jsonl(run_dir / "scores.jsonl"), generated, id_key, summary)


__all__ = ["COLUMNS", "LABELS", "StatusCounts", "count_samples", "reason_of", "run_counts",
           "sample_status"]
