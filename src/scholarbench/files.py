"""File helpers: checksums recorded in manifests, atomic replacement of index directories, the
refusal of paths that are not regular files, and the one bounded read of a user's file.

`check_regular_file` / `read_regular_file` are the shared check every reader of a file it was
handed calls (build sources and bibliographies, run directories, reports): the path must be a
regular file (a FIFO waits forever, `/dev/zero` never ends, a symlink to either is followed and
refused) of at most `MAX_INPUT_BYTES`. The check is made on the opened descriptor, so a path
swapped for a FIFO between a look and the read is refused too."""
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


MAX_INPUT_BYTES = 512 * 1024 * 1024
"""The largest file any reader takes (512 MiB): a 50 MB .bib and a run of 100,000 samples fit
many times over; a runaway file is refused before it is read into memory."""


def _refusal(path: str | Path, kind: str) -> DataError:
    return DataError(f"is {kind}, not a regular file — give a regular file", file=str(path))


def _too_big(path: str | Path, size: int, limit: int) -> DataError:
    return DataError(f"is {size:,} bytes, over the {limit:,}-byte limit on an input file",
                     file=str(path))


def check_regular_file(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> int:
    """The size of `path`, a regular file of at most `limit` bytes; DataError naming it when
    it is missing, not a regular file (FIFO, device, socket, folder; symlinks followed) or
    larger."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise DataError("no such file", file=str(path)) from None
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                        file=str(path)) from None
    if not stat.S_ISREG(info.st_mode):
        raise _refusal(path, next((k for t, k in _KINDS if t(info.st_mode)),
                                  "not a regular file"))
    if info.st_size > limit:
        raise _too_big(path, info.st_size, limit)
    return info.st_size


def read_regular_bytes(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of `path` after `check_regular_file`'s checks, made again on the open
    descriptor (opened non-blocking, so a FIFO put in its place cannot hang the open) and
    never reading more than `limit` bytes."""
    check_regular_file(path, limit=limit)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refusal(path, next((k for t, k in _KINDS if t(info.st_mode)),
                                      "not a regular file"))
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _too_big(path, total, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", file=str(path)) from None
    finally:
        os.close(fd)


def read_regular_file(path: str | Path, *, limit: int = MAX_INPUT_BYTES,
                      errors: str = "strict") -> str:
    """The UTF-8 text of `path` (`read_regular_bytes`' checks); with errors="strict", bytes
    that are not UTF-8 are a DataError naming the file and line."""
    data = read_regular_bytes(path, limit=limit)
    try:
        text = data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", file=str(path),
                        line=line) from None
    # read_text's universal newlines: \r\n and \r read as \n, as every caller expects
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def temp_beside(path: Path):
    """mkstemp beside `path` (for an atomic write); an OSError names `path`, not the temp name
    the user never gave."""
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(path)) from exc


def sha256_file(path: str | Path) -> str:
    require_regular(path)          # no size limit: data files and corpora are hashed whole
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
