"""File helpers: checksums recorded in manifests, atomic replacement of index directories, the
refusal of paths that are not regular files."""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable

from scholarbench.errors import DataError


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


def special_kind(path: str | Path) -> str | None:
    """What `path` is when it exists and is not a regular file ("a FIFO", "a folder", ...);
    None for a regular file, a missing path or one that cannot be looked at (opening it then
    says why). Symlinks are followed."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def require_regular(path: str | Path, *, output: bool = False) -> None:
    """DataError naming `path` when it is a FIFO, a device, a socket or a folder: reading a FIFO
    or a terminal waits forever, and replacing a device node as root (atomic writes rename over
    the target) would destroy it. Called before a user's file is opened or replaced."""
    kind = special_kind(path)
    if kind is not None:
        todo = "give the path of a regular file (or a new one)" if output else \
            "give a regular file"
        raise DataError(f"is {kind}, not a regular file — {todo}", file=str(path))


def temp_beside(path: Path):
    """mkstemp beside `path` (for an atomic write); an OSError names `path`, not the temp name
    the user never gave."""
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(path)) from exc


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def replace_dir_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Call `write(tmp)` on a sibling temp dir, then swap it in for `target`, so a reader never
    sees half a directory (indices beside a corpus)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    tmp.chmod(0o755)  # mkdtemp makes it owner-only
    try:
        write(tmp)
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
