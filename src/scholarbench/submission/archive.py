"""Reading a submission file: its members as bytes, taken only from regular tar entries.

Nothing is extracted by `tarfile` itself: a member is read into memory and written by `extract`
under a folder of the caller's, after its name is checked (relative, no `..`, no backslash), so
a crafted archive cannot write outside it. Links, devices and folders are not members; they are
reported as entries outside the manifest.
"""
from __future__ import annotations

import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pydantic import ValidationError

from scholarbench.errors import ScholarbenchError
from scholarbench.submission.members import MANIFEST, PackManifest

MAX_MEMBER_BYTES = 1 << 30


@dataclass
class Archive:
    """A submission as read: its manifest (None when unreadable, `problem` saying why), its
    regular members by name, and the names of entries that are not regular files."""
    path: Path
    manifest: PackManifest | None
    files: dict[str, bytes]
    other_entries: list[str] = field(default_factory=list)
    problem: str | None = None


def safe_name(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return bool(parts) and not name.startswith("/") and "\\" not in name \
        and ".." not in parts and "" not in parts


def read_archive(path: Path) -> Archive:
    """The members of a submission file; `ScholarbenchError` when it is no tar at all."""
    files: dict[str, bytes] = {}
    other: list[str] = []
    try:
        with tarfile.open(path, "r:*") as tar:
            for info in tar:
                if not info.isfile() or not safe_name(info.name) or info.name in files:
                    other.append(info.name)
                    continue
                if info.size > MAX_MEMBER_BYTES:
                    raise ScholarbenchError(f"{path}: member {info.name} is larger than 1 GiB")
                handle = tar.extractfile(info)
                files[info.name] = handle.read() if handle is not None else b""
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise ScholarbenchError(f"{path}: not a readable submission (a tar file): {exc}") \
            from None
    head = files.pop(MANIFEST, None)
    if head is None:
        return Archive(path, None, files, other, f"no {MANIFEST}")
    try:
        manifest = PackManifest.model_validate_json(head)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "(whole)"
        return Archive(path, None, files, other, f"{MANIFEST}, field {where}: {err['msg']}")
    return Archive(path, manifest, files, other)


def extract(files: dict[str, bytes], names: list[str], dest: Path) -> None:
    """Write `names` (checked by `safe_name`) under `dest`."""
    for name in names:
        if not safe_name(name):
            raise ScholarbenchError(f"submission member {name!r}: not a relative path")
        target = dest.joinpath(*PurePosixPath(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[name])


__all__ = ["Archive", "extract", "read_archive", "safe_name"]
