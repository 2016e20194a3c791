"""A persisted bm25s index over the corpus, keyed by the sha256 of the papers file it was built from.

Documents are indexed in the order the caller gives (the store gives paper_id order), so the row
number doubles as the tie-break for equal scores. Tokenisation is bm25s's: lower case, `\\w\\w+`
tokens, bm25s's English stopwords, no stemming.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Sequence

import bm25s
import numpy as np

META = "scholarbench_meta.json"
# Everything that changes the scores; a saved index with different settings is rebuilt.
SETTINGS = {"method": "lucene", "k1": 1.5, "b": 0.75, "stopwords": "english", "stemmer": None,
            "bm25s": bm25s.__version__}


def _tokenize(texts: Sequence[str], *, return_ids: bool):
    return bm25s.tokenize(list(texts), stopwords=SETTINGS["stopwords"], stemmer=None,
                          return_ids=return_ids, show_progress=False)


class BM25Index:
    def __init__(self, retriever: bm25s.BM25, n_docs: int) -> None:
        self._retriever = retriever
        self.n_docs = n_docs
        self._vocab: dict[str, int] = retriever.vocab_dict

    @classmethod
    def build(cls, texts: Sequence[str]) -> "BM25Index":
        retriever = bm25s.BM25(method=SETTINGS["method"], k1=SETTINGS["k1"], b=SETTINGS["b"])
        retriever.index(_tokenize(texts, return_ids=True), show_progress=False)
        return cls(retriever, len(texts))

    def save(self, index_dir: Path, papers_sha256: str) -> None:
        """Write to a sibling temp dir, then swap it in, so a reader never sees half an index."""
        index_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{index_dir.name}-", dir=index_dir.parent))
        tmp.chmod(0o755)  # mkdtemp makes it owner-only
        try:
            self._retriever.save(str(tmp), show_progress=False)
            meta = {"papers_sha256": papers_sha256, "n_docs": self.n_docs, **SETTINGS}
            (tmp / META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
            if index_dir.exists():
                shutil.rmtree(index_dir)
            os.replace(tmp, index_dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @classmethod
    def load(cls, index_dir: Path, papers_sha256: str, n_docs: int) -> "BM25Index | None":
        """The saved index if it was built from exactly this papers file with these settings."""
        try:
            meta = json.loads((index_dir / META).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        expected = {"papers_sha256": papers_sha256, "n_docs": n_docs, **SETTINGS}
        if any(meta.get(key) != value for key, value in expected.items()):
            return None
        retriever = bm25s.BM25.load(str(index_dir), show_progress=False)
        return cls(retriever, n_docs)

    @classmethod
    def load_or_build(cls, index_dir: Path, papers_sha256: str, n_docs: int,
                      texts: Callable[[], Sequence[str]]) -> tuple["BM25Index", bool]:
        """(index, rebuilt). `texts` is called only when the saved index is missing or stale."""
        index = cls.load(index_dir, papers_sha256, n_docs)
        if index is not None:
            return index, False
        docs = texts()
        if len(docs) != n_docs:
            raise ValueError(f"expected {n_docs} documents, got {len(docs)}")
        index = cls.build(docs)
        index.save(index_dir, papers_sha256)
        return index, True

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document (row order); all zeros when no query term is indexed."""
        tokens = _tokenize([query], return_ids=False)[0]
        ids = [self._vocab[t] for t in tokens if t and t in self._vocab]  # repeats count, as in bm25s
        if not ids or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.float64)
        return np.asarray(self._retriever.get_scores_from_ids(ids), dtype=np.float64)
