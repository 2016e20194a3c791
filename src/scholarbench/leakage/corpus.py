"""The corpus a finished run was scored with, reopened for a re-score's leakage audit."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable


def recorded_corpus(manifest: dict[str, Any],
                    open_corpus: Callable[[Path], Any] | None = None) -> Any:
    """The corpus the run's manifest names, opened when its directory is still there with the
    checksum the run recorded; else None (the audit then sees only what the answer writes)."""
    # deferred: pulls in pyarrow
    from scholarbench.corpus.build import corpus_info
    recorded = manifest.get("corpus") if isinstance(manifest.get("corpus"), dict) else {}
    path, sha = recorded.get("path"), recorded.get("sha256")
    if not path or not sha or not (Path(path) / "manifest.json").is_file():
        return None
    if (corpus_info(path) or {}).get("sha256") != sha:
        return None
    if open_corpus is None:
        # deferred: pulls in duckdb, pyarrow
        from scholarbench.corpus.store import Corpus
        open_corpus = Corpus.open
    return open_corpus(Path(path))


__all__ = ["recorded_corpus"]
