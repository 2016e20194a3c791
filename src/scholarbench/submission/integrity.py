"""The structural check of a submission: every member listed with its sha256, none outside
the manifest, every record JSON, every listed run holding what a run needs."""
from __future__ import annotations

import hashlib
import json

from scholarbench.submission.archive import Archive
from scholarbench.submission.members import MANIFEST
from scholarbench.submission.packing import REQUIRED
from scholarbench.submission.verdict import Check

SCOPE = "submission"


def member_check(archive: Archive) -> Check:
    """One `Check` (`members`): refused with every problem listed, or ok."""
    if archive.manifest is None:
        return Check("members", SCOPE, "refused", f"no usable {MANIFEST}: {archive.problem}")
    problems: list[str] = []
    listed = {m.path: m for m in archive.manifest.members}
    for name in sorted(set(archive.files) - set(listed)) + archive.other_entries:
        problems.append(f"{name}: a member outside the manifest")
    for name, member in listed.items():
        data = archive.files.get(name)
        if data is None:
            problems.append(f"{name}: listed in the manifest but not in the archive")
        elif hashlib.sha256(data).hexdigest() != member.sha256 or len(data) != member.bytes:
            problems.append(f"{name}: sha256 differs from the manifest's (changed after "
                            "packing)")
        elif problem := format_problem(name, data):
            problems.append(f"{name}: {problem}")
    for run in archive.manifest.runs:
        for required in REQUIRED:
            if f"{run.dir}/{required}" not in listed:
                problems.append(f"{run.dir}: no {required}")
    for suite in archive.manifest.suites:
        if f"{suite}/eval.json" not in listed:
            problems.append(f"{suite}: no eval.json")
    if problems:
        return Check("members", SCOPE, "refused", f"{len(problems)} problem(s) with the "
                     "archive's members", tuple(problems))
    return Check("members", SCOPE, "ok", f"{len(listed)} members, each sha256 as listed, "
                 "each a JSON record, none outside the manifest")


def format_problem(name: str, data: bytes) -> str | None:
    """Why a member is not a run record (`.json`: one object; `.jsonl`: one object a line)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if name.endswith(".jsonl"):
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip() and not _object(line):
                return f"line {number} is not a JSON object"
        return None
    if name.endswith(".json"):
        return None if _object(text) else "not a JSON object"
    return "not a run record (.json or .jsonl)"


def _object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


__all__ = ["format_problem", "member_check"]
