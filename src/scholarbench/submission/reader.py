"""`read_submission(path)`: a submission as typed records, for a leaderboard.

A leaderboard lists a submission by what this returns: each run's benchmark, sub-task, agent,
manifest and summary (as submitted), each suite's eval.json, the packing side's code versions
and — with `verify=True` — the `Verification` (checks and verdict) of `submission.checking.verify`, so
it can rank only the verified ones. The runs come from members whose sha256 matches the
manifest; a submission whose members do not is returned with no runs and its refused
verification.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarbench.errors import ScholarbenchError
from scholarbench.submission.archive import read_archive
from scholarbench.submission.integrity import member_check
from scholarbench.submission.members import PackManifest
from scholarbench.submission.verdict import Verification
from scholarbench.submission.checking import verify as run_verify


@dataclass(frozen=True)
class SubmittedRun:
    """One run of a submission, as submitted."""
    dir: str                        # its folder in the archive
    benchmark: str
    mode: str                       # the sub-task
    agent: str | None
    run_name: str | None
    suite: str | None               # the suite folder it belongs to, if any
    manifest: dict[str, Any]
    summary: dict[str, Any]


@dataclass
class Submission:
    path: Path
    manifest: PackManifest | None
    runs: list[SubmittedRun] = field(default_factory=list)
    suites: dict[str, dict[str, Any]] = field(default_factory=dict)   # folder → eval.json
    verification: Verification | None = None      # with verify=True

    @property
    def versions(self) -> dict[str, str]:
        """The packing side's code versions."""
        return dict(self.manifest.versions) if self.manifest is not None else {}


def read_submission(path: str | Path, *, verify: bool = False, data: str | None = None
                    ) -> Submission:
    """The submission at `path` (module docstring); `verify`: also run every check of
    `scholarbench verify` (no re-judge) against the data folder `data` (None: the default)."""
    path = Path(path)
    archive = read_archive(path)
    members = member_check(archive)
    out = Submission(path, archive.manifest)
    if members.verdict == "ok" and archive.manifest is not None:
        for run in archive.manifest.runs:
            out.runs.append(SubmittedRun(
                run.dir, run.benchmark, run.mode, run.agent, run.run_name, run.suite,
                _object(archive.files, f"{run.dir}/manifest.json"),
                _object(archive.files, f"{run.dir}/summary.json")))
        out.suites = {s: _object(archive.files, f"{s}/eval.json")
                      for s in archive.manifest.suites}
    if verify:
        out.verification = run_verify(path, data=data)
    elif members.verdict != "ok":
        out.verification = Verification([members])
    return out


def _object(files: dict[str, bytes], name: str) -> dict[str, Any]:
    obj = json.loads(files[name].decode("utf-8"))
    if not isinstance(obj, dict):
        raise ScholarbenchError(f"submission member {name}: expected a JSON object")
    return obj


__all__ = ["Submission", "SubmittedRun", "read_submission"]
