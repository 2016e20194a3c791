"""Typed, versioned records of a run directory.

    manifest.json    `Manifest`     what produced the run (identity keys must agree to resume)
    <stage>.jsonl    `SampleRecord` one line per sample and stage attempt, appended and fsync'ed
    scores.jsonl     `ScoreRecord`  one line per sample, never skipped
    summary.json     `Summary`      means (undefined values excluded and counted), status counts

Status words mean one thing everywhere:

- ``ok``         the stage produced an output for the sample;
- ``scored``     the sample's output was scored;
- ``malformed``  the agent's answer does not fit the task's schema: scored as the paper says
                 (usually as an empty answer) and counted;
- ``error``      the agent or its endpoint failed (an exception, a refused or unreachable
                 endpoint, a missing key): never a result, retried on resume, and the command
                 exits non-zero;
- ``unscored``   a judge reply unusable after retries: counted, left out of means;
- ``oversized``  an answer over the configured size limits: counted, scored as malformed.

A stage line carries `status` only when it is not ``ok`` (lines of older runs have none).
Records written by the engine are checked on read; benchmark-specific fields ride along
(`extra="allow"`). Records read from users (agent answers, replay files) use `extra="forbid"`
models in `core.families`.
"""
from __future__ import annotations

from datetime import datetime, timezone
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from scholarbench.errors import DataError, ScholarbenchError

RUN_FORMAT = "scholarbench-run/3"      # core.migrate: what changed, how older runs are read
READABLE_FORMATS = ("scholarbench-run/1", "scholarbench-run/2", RUN_FORMAT)

StageStatus = Literal["ok", "malformed", "missing", "error", "oversized"]
ScoreStatus = Literal["scored", "malformed", "error", "missing", "unscored", "oversized",
                      "unscorable"]
STATUSES = ("scored", "malformed", "error", "missing", "unscored", "oversized", "unscorable")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class SampleRecord(_Open):
    """One line of a stage file (generate.jsonl, oracle.jsonl, …). The benchmark's output fields
    (e.g. `prediction`, `ranking`, `report`) ride along as extra keys."""
    id: str
    status: StageStatus = "ok"
    error: str | None = None
    seconds: float | None = None
    info: dict[str, Any] | None = None


class ScoreRecord(_Open):
    """One line of scores.jsonl, checked on read (`core.aggregate`): the sample's one status,
    the reason for any status but `scored`, its counts; its id (under the benchmark's
    `id_key`), measure values and the benchmark's fields ride along. A scored sample may keep a
    benchmark's sub-status (ReportBench's `no_references`), counted as `scored`."""
    status: Literal["scored", "malformed", "error", "missing", "unscored", "oversized",
                    "unscorable", "no_references"] = "scored"
    reason: str | None = None
    unresolved: StrictInt | None = Field(default=None, ge=0)
    n_refs: StrictInt | None = Field(default=None, ge=0)
    # fields the engine adds (typed too: a tampered row is refused, not read as truthy)
    suspected_injection: list[StrictStr] | None = None     # injection.detect's rule names
    suspected_leak: dict[StrictStr, StrictInt] | None = None   # leakage.audit's counts
    leaked_items: list[Any] | None = None


class MeasureSummary(BaseModel):
    model_config = ConfigDict(extra="allow")
    mean: float | None
    n: int
    n_null: int = 0


class Manifest(_Open):
    format: str = RUN_FORMAT
    created: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat())
    command: list[str] = Field(default_factory=list)
    versions: dict[str, str] = Field(default_factory=dict)
    benchmark: str
    mode: str | None = None            # the sub-task (TaxoBench mode, ResearchArena task, …)
    agent: str
    agent_config: dict[str, Any] = Field(default_factory=dict)
    run_name: str | None = None
    limit: int | None = None
    n_samples: int | None = None
    usage: dict[str, dict[str, Any]] = Field(default_factory=dict)   # per stage


class Summary(_Open):
    benchmark: str
    mode: str | None = None
    agent: str
    run_name: str | None = None
    n_samples: int
    status: dict[str, int] = Field(default_factory=dict)
    complete: bool = True
    metrics: dict[str, MeasureSummary] = Field(default_factory=dict)


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_none=False)


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
