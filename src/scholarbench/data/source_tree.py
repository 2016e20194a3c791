"""What `data import` refuses before it reads or copies anything.

A source that holds the data directory would be copied into itself: the copy grows while it
is walked (one such import wrote 429 MB before it failed). A symlink that points back up its
own folder makes the copy endless, and a FIFO or a device in a copied folder makes it wait
forever. `check_source` looks at the whole tree first, following links as the copy does
(`shutil.copytree` copies what links point to), iteratively and visiting each real folder on a
path once, so a loop is found at its first repeat.
"""
from __future__ import annotations

import os
from pathlib import Path

from scholarbench.errors import ScholarbenchError
from scholarbench.files import require_regular, special_kind


def _holds(folder: Path, data: Path) -> bool:
    return folder == data or folder in data.parents


def check_source(source: Path, data: Path, *, tree: bool = True) -> None:
    """ScholarbenchError naming the path when `source` equals or holds the data directory (also
    through a symlink), or, for a folder copied whole (`tree`), holds a symlink loop, a broken
    link or a file that is not a regular file. A source file must be a regular file."""
    real_data = data.resolve()
    if not source.is_dir():
        require_regular(source)
        return
    real = source.resolve()
    if _holds(real, real_data):
        raise ScholarbenchError(
            f"{source}: holds the data directory {data}; importing it would copy the data "
            "directory into itself — import from a folder outside it (or set --data elsewhere)")
    if not tree:
        return
    stack: list[tuple[Path, frozenset[Path]]] = [(source, frozenset({real}))]
    while stack:
        folder, chain = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise ScholarbenchError(f"{folder}: cannot read the folder ({exc.strerror})") from exc
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=True):
                target = Path(os.path.realpath(path))
                if target in chain:
                    raise ScholarbenchError(
                        f"{path}: a symlink loop (it leads back to {target}) — remove the link "
                        "or import a folder without it")
                if _holds(target, real_data):
                    raise ScholarbenchError(
                        f"{path}: leads into the data directory {data}; importing it would "
                        "copy the data directory into itself — remove the link")
                stack.append((path, chain | {target}))
            elif entry.is_symlink() and not path.exists():
                raise ScholarbenchError(f"{path}: a symlink that leads nowhere (broken, or a "
                                        "loop) — remove it or import a folder without it")
            elif not entry.is_file(follow_symlinks=True):
                raise ScholarbenchError(
                    f"{path}: is {special_kind(path) or 'not a regular file'}, not a regular "
                    "file — remove it from the folder or import a folder without it")
