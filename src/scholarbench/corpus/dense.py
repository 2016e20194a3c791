"""A persisted dense (embedding) index over the corpus: faiss inner product over L2-normalised
vectors, i.e. cosine similarity.

Fields, as for the BM25 indices: "title" (the default; fair where abstracts are uneven, see
`store.py`) or "title+abstract" (`schema.index_text`: the title, a newline, the abstract).
all-MiniLM-L6-v2 reads at most 256 word pieces, so a long abstract is cut there.

Layout: `dense-<fields>/` beside papers.parquet (`dense-title/`, `dense-title+abstract/`) with
`index.faiss` (faiss.write_index) and `meta.json` recording the sha256 of papers.parquet, the
embedder's model_id, the fields, the number of papers and the vector size. The saved index is
reused only while all of those match; otherwise it is rebuilt (embedding every paper again) and
swapped in atomically, as the BM25 indices are. Rows are in paper_id order (the store's order).

Building embeds the texts through the given embedder in batches of `BATCH` texts (one
`embed` call per batch, never one per text). A `CachedEmbedder` is bypassed for its encoder
while building, so corpus vectors are not copied into the per-text cache; the saved index is what
makes a second build unnecessary.

Search is exact. The vectors are held in a faiss `IndexFlatIP` (that is what is saved and
loaded), and a query is scored against all of them with one matrix-vector product over the
index's own storage (no copy, one BLAS thread, see `DenseIndex.scores`), then the top k are taken as for
BM25 (`bm25.best_rows`: np.partition, then a sort of the rows at or above the k-th score, equal
scores by row = paper_id). Measured (bench/bench_search_scale.py, 2 cores): this is ~2.5x
faster than faiss's own single-query `search` on a flat index (~70 ms vs ~170 ms at 1M
vectors; ~2 ms at 43k), and ties need no special handling, where faiss returns *some* top-k
set among equal scores. Filters apply before the top k (only rows passing them are ranked).
Unlike BM25, dense search returns k papers whenever k pass the filters (cosine similarity has
no "no match"), and scores may be negative.

Memory and disk: 384 float32 per paper for MiniLM = 1,536 bytes, so 43k papers ~ 66 MB, 1M
papers ~ 1.5 GB, 10M ~ 15 GB. A query reads every vector, so its cost is memory bandwidth:
~70 ms per query at 1M papers here. An approximate index is needed once that latency or the
memory is too much -- past ~1M papers for interactive use, or when the vectors do not fit in
RAM: IVF (`IndexIVFFlat`, ~sqrt(n)..4 sqrt(n) lists, `nprobe` tuned for recall; same memory,
a fraction of the scan), IVF-PQ (`IndexIVFPQ`, e.g. 48 bytes per paper, lossy scores) or HNSW
(`IndexHNSWFlat`, sub-millisecond, + ~2 x M x 4 bytes of links per paper), searched through
faiss's `search` with an `IDSelectorBitmap` for the filters. Those return approximate
neighbours, so results would then depend on the index build, not only on the data.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from scholarbench.corpus.bm25 import best_rows
from scholarbench.corpus.schema import INDEX_DIRS
from scholarbench.embed.base import Embedder, one_blas_thread
from scholarbench.files import replace_dir_atomically

META = "meta.json"
INDEX_FILE = "index.faiss"
DENSE_DIRS = {fields: f"dense-{fields}" for fields in INDEX_DIRS}  # "title", "title+abstract"
BATCH = 1024          # texts per embed call while building


def _faiss():
    import faiss  # imported on first use: opening a corpus or BM25 search does not need it
    return faiss


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Float32 copy with unit L2 rows (zero rows stay zero)."""
    out = np.array(vectors, dtype=np.float32, copy=True, order="C")
    if out.ndim != 2:
        raise ValueError(f"expected a 2-d array of vectors, got shape {out.shape}")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    out /= np.where(norms == 0, 1.0, norms)
    return out


def embed_texts(embedder: Embedder, texts: Sequence[str], batch: int = BATCH) -> np.ndarray:
    """L2-normalised float32 vectors of `texts`, one `embed` call per `batch` texts.

    A caching embedder is bypassed for its encoder: an index build embeds every paper once, and
    those vectors live in the index, so copying them into the per-text cache only bloats it."""
    encoder = getattr(embedder, "encoder", None)
    embed = encoder.encode if encoder is not None else embedder.embed
    parts = [normalize(embed(list(texts[start:start + batch])))
             for start in range(0, len(texts), batch)]
    if not parts:
        raise ValueError("no texts to embed")
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def faiss_vectors(index) -> np.ndarray:
    """The vectors of a flat faiss index as an (ntotal, d) float32 array: a view of the index's
    storage (valid while the index lives), or a copy where the faiss build lacks `get_xb`."""
    faiss = _faiss()
    n, d = int(index.ntotal), int(index.d)
    if n == 0:
        return np.zeros((0, d), dtype=np.float32)
    try:
        return faiss.rev_swig_ptr(index.get_xb(), n * d).reshape(n, d)
    except AttributeError:
        return index.reconstruct_n(0, n)


class DenseIndex:
    """An exact inner-product index whose row i is the i-th paper in paper_id order."""

    def __init__(self, index, meta: dict, rebuilt: bool = False) -> None:
        self._index = index
        self.meta = meta
        self.count: int = int(index.ntotal)
        self.dim: int = int(index.d)
        self.rebuilt = rebuilt      # True when this process built it (not loaded from disk)
        # the index's own float32 storage as an (n, dim) array, without a copy
        self._vectors = faiss_vectors(index)

    @classmethod
    def build(cls, texts: Sequence[str], embedder: Embedder, meta: dict | None = None,
              batch: int = BATCH) -> "DenseIndex":
        faiss = _faiss()
        vectors = embed_texts(embedder, texts, batch)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        meta = {**(meta or {}), "model_id": embedder.model_id, "count": len(texts),
                "dim": int(vectors.shape[1]), "index": "IndexFlatIP",
                "faiss": faiss.__version__}
        return cls(index, meta, rebuilt=True)

    def save(self, index_dir: Path) -> None:
        faiss = _faiss()

        def write(tmp: Path) -> None:
            faiss.write_index(self._index, str(tmp / INDEX_FILE))
            (tmp / META).write_text(json.dumps(self.meta, indent=2) + "\n", encoding="utf-8")
        replace_dir_atomically(index_dir, write)

    @staticmethod
    def expected_meta(papers_sha256: str, model_id: str, fields: str, count: int) -> dict:
        """What a saved index must match to be reused."""
        return {"papers_sha256": papers_sha256, "model_id": model_id, "fields": fields,
                "count": count}

    @classmethod
    def load(cls, index_dir: Path, expected: dict) -> "DenseIndex | None":
        """The saved index if its meta file matches `expected` (see `expected_meta`)."""
        try:
            meta = json.loads((index_dir / META).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or any(meta.get(key) != value
                                             for key, value in expected.items()):
            return None
        if not (index_dir / INDEX_FILE).is_file():
            return None
        index = _faiss().read_index(str(index_dir / INDEX_FILE))
        if index.ntotal != expected.get("count", index.ntotal):
            return None
        return cls(index, meta)

    @classmethod
    def load_or_build(cls, index_dir: Path, papers_sha256: str, fields: str, count: int,
                      texts: Callable[[], Sequence[str]], embedder: Embedder) -> "DenseIndex":
        """The saved index when it matches (papers file, model, fields, count); else build it
        from `texts()` (called only then) and save it. `.rebuilt` tells which."""
        expected = cls.expected_meta(papers_sha256, embedder.model_id, fields, count)
        index = cls.load(index_dir, expected)
        if index is not None:
            return index
        docs = texts()
        if len(docs) != count:
            raise ValueError(f"expected {count} documents, got {len(docs)}")
        index = cls.build(docs, embedder, meta=expected)
        index.save(index_dir)
        return index

    def query_vector(self, query: str, embedder: Embedder) -> np.ndarray:
        vec = normalize(embedder.embed([query]))
        if vec.shape != (1, self.dim):
            raise ValueError(f"the embedder {embedder.model_id!r} gives vectors of shape "
                             f"{vec.shape[1:]}, the index holds {self.dim}-d vectors")
        return vec

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """Inner product of `vector` (shape (1, dim), normalised) with every row (float32).

        One float32 matrix-vector product over the index's own storage (no copy), on one
        BLAS thread: a matrix-vector product is bound by memory, not arithmetic, and numpy's
        OpenBLAS threads, once woken, spin after the call and slowed the next MiniLM query
        encoding in the same process (measured ~8x on 2 cores)."""
        query = np.ascontiguousarray(vector[0], dtype=np.float32)
        with one_blas_thread():
            return self._vectors @ query

    def search(self, vector: np.ndarray, k: int, keep: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the k rows with the highest inner product with `vector` (shape
        (1, dim), normalised), best first, equal scores by row; only rows where `keep` (a bool
        array over rows) is True."""
        if k <= 0 or self.count == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        scores = self.scores(vector)
        rows = np.arange(self.count) if keep is None else np.flatnonzero(keep)
        rows = best_rows(rows, scores[rows], k)
        return rows, scores[rows]
