"""`scholarbench pack RUN_DIR|SUITE_DIR… --out SUBMISSION`: one file holding what `verify`
needs (`submission.members`).

Refused, with one line naming the run: a folder that is not a scored run (no manifest.json,
scores.jsonl or summary.json); an incomplete run — a summary not `complete`, an errored or
missing sample — unless `allow_incomplete`; a member holding a known secret (the masking
every run-directory writer applies, `llm.secrets.redact_known`: an API key of this process's
configuration, a configured base URL's password); two inputs with the same folder name. The
archive is written beside `out` and renamed over it, so a refused pack leaves nothing.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.manifest import package_versions
from scholarbench.errors import ScholarbenchError
from scholarbench.files import require_regular, temp_beside
from scholarbench.llm.secrets import redact_known
from scholarbench.report.suite import is_suite, read_suite
from scholarbench.submission.members import (MANIFEST, Member, PackManifest, PackedRun,
                                             run_records)

REQUIRED = ("manifest.json", "scores.jsonl", "summary.json")
# summary.status words that make a run incomplete (docs/scores.md)
INCOMPLETE_STATUS = ("error", "missing")


@dataclass
class Packed:
    """What `pack` wrote: the archive, its runs, and what each run directory left out."""
    path: Path
    runs: list[PackedRun]
    members: int
    left_out: dict[str, list[str]] = field(default_factory=dict)
    incomplete: list[str] = field(default_factory=list)     # packed with --allow-incomplete


def pack(paths: Sequence[Path], out: Path, *, allow_incomplete: bool = False) -> Packed:
    """Pack run directories and eval suites (module docstring) into `out`."""
    files: dict[str, Path] = {}             # archive name → file
    runs: list[PackedRun] = []
    suites: list[str] = []
    left_out: dict[str, list[str]] = {}
    incomplete: list[str] = []
    for path in paths:
        if not path.is_dir():
            raise ScholarbenchError(f"{path}: not a run directory nor an eval suite directory")
        if is_suite(path):
            suite = _top(path.name, files)
            suites.append(suite)
            files[f"{suite}/eval.json"] = path / "eval.json"
            found = read_suite(path).run_dirs
            for run_dir in (found[i] for i in sorted(found)):
                runs.append(_add_run(run_dir, f"{suite}/{run_dir.name}", suite, files, left_out,
                                     incomplete))
        else:
            runs.append(_add_run(path, _top(path.name, files), None, files, left_out,
                                 incomplete))
    if incomplete and not allow_incomplete:
        raise ScholarbenchError(f"{incomplete[0]}; pack only finished runs (resume it: run the "
                                "same command again), or pass --allow-incomplete")
    members = [_member(name, file) for name, file in files.items()]
    manifest = PackManifest(created=datetime.now(timezone.utc).isoformat(),
                            versions=package_versions(), runs=runs, suites=suites,
                            members=[m for m, _ in members])
    _write(out, manifest, members)
    return Packed(out, runs, len(members), left_out, incomplete)


def _top(name: str, files: dict[str, Path]) -> str:
    if any(n.split("/")[0] == name for n in files) or name == MANIFEST:
        raise ScholarbenchError(f"two inputs are named {name!r}: a submission holds each "
                                "folder under its name; rename one")
    return name


def _add_run(run_dir: Path, name: str, suite: str | None, files: dict[str, Path],
             left_out: dict[str, list[str]], incomplete: list[str]) -> PackedRun:
    for required in REQUIRED:
        if not (run_dir / required).is_file():
            raise ScholarbenchError(f"{run_dir}: no {required} — not a scored run directory "
                                    f"(score it: scholarbench score {run_dir})")
    manifest = _json(run_dir / "manifest.json")
    summary = _json(run_dir / "summary.json")
    if why := _incomplete(summary):
        incomplete.append(f"{run_dir}: the run is incomplete ({why})")
    kept, left = run_records(run_dir)
    for file in kept:
        files[f"{name}/{file.name}"] = file
    if left:
        left_out[str(run_dir)] = left
    return PackedRun(dir=name, benchmark=str(manifest.get("benchmark")),
                     mode=str(manifest.get("mode")), agent=manifest.get("agent"),
                     run_name=manifest.get("run_name"), suite=suite)


def _incomplete(summary: dict[str, Any]) -> str | None:
    status = summary.get("status") if isinstance(summary.get("status"), dict) else {}
    bad = [f"{status[w]} {w}" for w in INCOMPLETE_STATUS if status.get(w)]
    if bad:
        return ", ".join(bad) + " sample(s)"
    if summary.get("complete") is False:
        return "its summary says incomplete: a judge call failed"
    return None


def _json(path: Path) -> dict[str, Any]:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ScholarbenchError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise ScholarbenchError(f"{path}: expected a JSON object")
    return obj


def _member(name: str, file: Path) -> tuple[Member, bytes]:
    require_regular(file)
    data = file.read_bytes()
    text = data.decode("utf-8", "replace")
    if redact_known(text) != text:
        raise ScholarbenchError(f"{file}: holds a secret this configuration knows (an API key "
                                "or a base URL's password); remove it from the run before "
                                "packing")
    return Member(path=name, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data)), data


def _info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = size, 0o644, 0     # no owner, no local time
    return info


def _write(out: Path, manifest: PackManifest, members: list[tuple[Member, bytes]]) -> None:
    require_regular(out, output=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(out)
    try:
        with os.fdopen(fd, "wb") as handle, \
                tarfile.open(fileobj=handle, mode="w:gz") as tar:
            head = (manifest.model_dump_json(indent=2) + "\n").encode("utf-8")
            tar.addfile(_info(MANIFEST, len(head)), io.BytesIO(head))
            for member, data in members:
                tar.addfile(_info(member.path, len(data)), io.BytesIO(data))
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["INCOMPLETE_STATUS", "Packed", "REQUIRED", "pack"]
