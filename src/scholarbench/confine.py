"""Reading a source folder without leaving it: the one rule of every reader `build` calls.

A source (a survey's folder, or the folder of the one file given) may name other files — LaTeX
`\\input`/`\\include`/`\\import`/`\\subfile`, `\\bibliography`, a `.bbl`, Manubot's `content/*.md`,
`output/references.json`, `metadata.yaml`. Each is read only when its *resolved* path (every
symlink followed, `..` removed) lies inside the source folder's resolved path and it is a regular
file. Anything else — `\\input{../x}`, `\\input{/etc/passwd}`, `chap.tex -> ../secret.tex`, a
FIFO — is refused with `Refused`, whose text names the file and the reason in one line; the
readers record it (the build prints it and lists it in review.md) and go on without the file.

A file that does not exist is not refused here: the reader reports it as missing, as before.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from scholarbench.errors import ScholarbenchError
from scholarbench.files import special_kind


class Refused(ScholarbenchError):
    """A file a source names that is not read: outside the source folder, or not a regular
    file. `str()` is the one line shown to the user."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"{path}: refused: {reason}")


def inside(root: str | Path, path: str | Path) -> Path:
    """`path` (as given, for messages) when its resolved path is inside the resolved `root`
    and it is a regular file or missing; `Refused` otherwise."""
    root_real = Path(os.path.realpath(root))
    path = Path(path)
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root_real):
        linked = path.is_symlink() and Path(os.path.realpath(path.parent)).is_relative_to(
            root_real)
        how = "a symbolic link to a file outside" if linked else "outside"
        raise Refused(path, f"{how} the source folder {root}")
    kind = special_kind(real)
    if kind is not None:
        raise Refused(path, f"{kind}, not a regular file")
    return path


def root_of(source: str | Path) -> Path:
    """The folder a source may read from: the folder given, or the folder of the file given
    (a link given as the source is followed: the user named it)."""
    source = Path(os.path.realpath(source))
    return source if source.is_dir() else source.parent


def keep_inside(root: str | Path, paths: Iterable[str | Path], refused: list[str]) -> list[Path]:
    """The `paths` that `inside` lets a reader of `root` read; the others' one-line refusals
    are appended to `refused`."""
    out = []
    for path in paths:
        try:
            out.append(inside(root, path))
        except Refused as exc:
            refused.append(str(exc))
    return out
