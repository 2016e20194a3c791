"""The embedder interface and a text-keyed cache (memory, then an SQLite file on disk)."""
from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np


class Encoder(Protocol):
    """Anything that turns texts into L2-normalised float32 vectors."""
    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass
class EmbedStats:
    memory_hits: int = 0
    disk_hits: int = 0
    computed: int = 0

    @property
    def requests(self) -> int:
        return self.memory_hits + self.disk_hits + self.computed

    @property
    def hit_rate(self) -> float:
        return (self.memory_hits + self.disk_hits) / self.requests if self.requests else 0.0

    def as_dict(self) -> dict:
        return {"memory_hits": self.memory_hits, "disk_hits": self.disk_hits,
                "computed": self.computed, "hit_rate": round(self.hit_rate, 4)}


class CachedEmbedder:
    """Embeds each distinct text once: memory cache, then disk cache, then one batched encode.
    The disk cache is opened (and created) on the first text to look up, so making an embedder
    writes nothing (a `--dry-run` leaves the cache folder as it was)."""

    def __init__(self, encoder: Encoder, cache_path: str | Path | None = None) -> None:
        self.encoder = encoder
        self.model_id = encoder.model_id
        self.stats = EmbedStats()
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._path = None if cache_path is None else Path(cache_path)
        self._db: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection | None:
        if self._db is None and self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self._path), check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS vec (model TEXT, text TEXT, v BLOB, "
                             "PRIMARY KEY (model, text))")
        return self._db

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            todo: list[str] = []
            for text in dict.fromkeys(texts):
                if text in self._memory:
                    continue
                todo.append(text)
            self.stats.memory_hits += len(texts) - len(todo)
            if todo and self._open() is not None:
                found = self._load(todo)
                self.stats.disk_hits += len(found)
                self._memory.update(found)
                todo = [t for t in todo if t not in found]
            if todo:
                vectors = np.asarray(self.encoder.encode(todo), dtype=np.float32)
                self.stats.computed += len(todo)
                for text, vec in zip(todo, vectors):
                    self._memory[text] = vec
                if self._db is not None:
                    self._store(todo, vectors)
            if not texts:
                return np.zeros((0, 0), dtype=np.float32)
            return np.stack([self._memory[t] for t in texts])

    def _load(self, texts: list[str]) -> dict[str, np.ndarray]:
        assert self._db is not None
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(texts), 500):
            chunk = texts[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT text, v FROM vec WHERE model=? AND text IN ({marks})",
                                    [self.model_id, *chunk])
            for text, blob in rows:
                found[text] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def _store(self, texts: list[str], vectors: np.ndarray) -> None:
        assert self._db is not None
        self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?, ?)",
                             [(self.model_id, t, v.astype(np.float32).tobytes())
                              for t, v in zip(texts, vectors)])
        self._db.commit()


def label_similarity(embedder: Embedder, labels: Sequence[str]) -> np.ndarray:
    """Sim(x, y) = max(0, cos(e(x), e(y))) (TaxoBench eq. 7) over distinct labels, one embed call;
    a label with itself is exactly 1, not 0.9999999."""
    if not labels:
        return np.zeros((0, 0))
    vecs = embedder.embed(list(labels)).astype(np.float64)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0, 1.0, norms)
    with one_blas_thread():
        product = vecs @ vecs.T
    sim = np.clip(product, 0.0, 1.0)
    np.fill_diagonal(sim, 1.0)
    return sim


# One instance's labels make a small product (a few hundred rows): on one BLAS thread it takes
# ~0.2 ms; OpenBLAS's default two threads took 12 ms per call on this 2-core machine when other
# jobs kept the cores busy (the threads wait for each other). The values are the same: OpenBLAS
# splits the output between threads, not the sums (checked bit for bit on the golden cases).
_BLAS_LOCK = threading.Lock()     # the limit is process-wide: one block at a time restores it


@lru_cache(maxsize=1)
def _blas_controller():
    """numpy's own BLAS: the one its `@` runs on. Selected by path (numpy's wheel bundles it under
    numpy.libs), so libraries loaded after this is cached (scipy's) do not matter; a
    numpy linked against a system BLAS falls back to every BLAS loaded now."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:           # pragma: no cover - a dependency; without it, BLAS's default
        return None
    controller = ThreadpoolController()
    paths = numpy_blas_paths(controller)
    return controller.select(filepath=paths) if paths else controller.select(user_api="blas")


def numpy_blas_paths(controller) -> list[str]:
    """Paths of the BLAS libraries that ship inside numpy's install (numpy/ or numpy.libs/)."""
    root = Path(np.__file__).resolve().parent
    homes = (str(root) + "/", str(root) + ".libs/")
    return [lib.filepath for lib in controller.lib_controllers
            if lib.user_api == "blas" and str(Path(lib.filepath).resolve()).startswith(homes)]


@contextmanager
def one_blas_thread():
    """numpy's BLAS on one thread for the block (process-wide, so one block at a time)."""
    controller = _blas_controller()
    with _BLAS_LOCK:
        with controller.limit(limits=1, user_api="blas") if controller is not None else nullcontext():
            yield
