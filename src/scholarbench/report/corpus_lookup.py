"""Read-only look-ups in a run's corpus for the report and the exports: titles and identifiers
of paper_ids, paper_ids of titles. Reads the Parquet files directly (pyarrow, filtered), so no
index is opened or rebuilt; a missing corpus gives empty answers and callers fall back to ids.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from scholarbench.text.normalize import normalize_title


def corpus_dir_of(manifest: dict[str, Any]) -> Path | None:
    """The run's corpus directory when the manifest names one that still exists."""
    corpus = manifest.get("corpus")
    path = corpus.get("path") if isinstance(corpus, dict) else None
    if not path:
        return None
    directory = Path(path)
    return directory if (directory / "papers.parquet").is_file() else None


def papers_by_id(corpus_dir: Path | None, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """paper_id → {"title", "year", "ids"} for the ids found in the corpus."""
    wanted = sorted(set(ids))
    if corpus_dir is None or not wanted:
        return {}
    import pyarrow.dataset as ds
    dataset = ds.dataset(str(corpus_dir / "papers.parquet"), format="parquet")
    columns = [c for c in ("paper_id", "title", "year", "ids") if c in dataset.schema.names]
    table = dataset.to_table(columns=columns, filter=ds.field("paper_id").isin(wanted))
    out = {}
    for row in table.to_pylist():
        out[row["paper_id"]] = {"title": row.get("title") or "", "year": row.get("year"),
                                "ids": list(row.get("ids") or [])}
    return out


def ids_for_titles(corpus_dir: Path | None, titles: Iterable[str]) -> dict[str, str]:
    """normalised title → the one paper_id whose title key it is (titles that name several
    corpus papers, or none, are left out)."""
    norms = {normalize_title(t) for t in titles} - {""}
    if corpus_dir is None or not norms or not (corpus_dir / "ids.parquet").is_file():
        return {}
    import pyarrow.dataset as ds
    keys = sorted(f"title:{n}" for n in norms)
    dataset = ds.dataset(str(corpus_dir / "ids.parquet"), format="parquet")
    table = dataset.to_table(columns=["key", "paper_id"], filter=ds.field("key").isin(keys))
    found: dict[str, set[str]] = {}
    for key, pid in zip(table.column("key").to_pylist(), table.column("paper_id").to_pylist()):
        found.setdefault(key[len("title:"):], set()).add(pid)
    return {norm: next(iter(pids)) for norm, pids in found.items() if len(pids) == 1}
