"""What a submission holds (docs/leaderboard.md): its manifest and the rule choosing the files
of a run directory.

A submission is one gzip'ed tar (stdlib `tarfile`): `submission.json` first, then each run
directory under its folder name (`RUN/…`) and each eval suite under its own (`SUITE/eval.json`,
`SUITE/RUN/…`). `submission.json` lists every other member with its sha256 and size, the runs
and suites, and the code versions of the side that packed it.

A run directory contributes its top-level regular files whose names end in `.json` or `.jsonl`
and do not start with a dot: the manifest, the answers (generate.jsonl), scores.jsonl,
summary.json, every judge's stage records (judge.*.jsonl) and the benchmark's own stage files
(oracle.jsonl, statements.jsonl, …), transcripts.jsonl and the tools' trajectories where
present — every record a run writes is JSON (`core.rundir`). Nothing else is taken: no folder
(caches), no lock, no temporary (`.name.tmp`), no symlink.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "scholarbench-submission/1"
MANIFEST = "submission.json"
RECORD_SUFFIXES = (".json", ".jsonl")


class Member(BaseModel):
    """One file of the submission and its digest."""
    model_config = ConfigDict(extra="forbid")
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    bytes: int = Field(ge=0)


class PackedRun(BaseModel):
    """One run directory of the submission (`dir`: its folder in the archive)."""
    model_config = ConfigDict(extra="forbid")
    dir: str
    benchmark: str
    mode: str
    agent: str | None = None
    run_name: str | None = None
    suite: str | None = None          # the suite folder it belongs to, if any


class PackManifest(BaseModel):
    """submission.json: the typed record `verify` and a leaderboard read first."""
    model_config = ConfigDict(extra="forbid")
    format: Literal["scholarbench-submission/1"] = FORMAT
    created: str
    versions: dict[str, str]          # the packing side's code (`core.manifest.package_versions`)
    runs: list[PackedRun]
    suites: list[str] = Field(default_factory=list)
    members: list[Member]


def is_record(path: Path) -> bool:
    """Whether a run directory's entry is one of the run's records (module docstring)."""
    return (not path.name.startswith(".") and path.suffix in RECORD_SUFFIXES
            and path.is_file() and not path.is_symlink())


def run_records(run_dir: Path) -> tuple[list[Path], list[str]]:
    """(the records of a run directory, sorted; the names of the entries left out)."""
    kept, left = [], []
    for entry in sorted(run_dir.iterdir()):
        (kept if is_record(entry) else left).append(entry)
    return kept, [p.name for p in left]


__all__ = ["FORMAT", "MANIFEST", "Member", "PackManifest", "PackedRun", "is_record",
           "run_records"]
