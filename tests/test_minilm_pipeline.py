"""MiniLM on transformers directly gives sentence-transformers' vectors bit for bit, and the
encoder refuses a packaged model whose pipeline it does not implement."""
import json
import random
import shutil

import numpy as np
import pytest

from conftest import shared_path
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


@pytest.mark.slow
def test_vectors_equal_sentence_transformers_bit_for_bit():
    sentence_transformers = pytest.importorskip(
        "sentence_transformers", reason="the reference library is in the [test] extra")
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
        assert np.array_equal(got, theirs(batch))
    assert ours.encode([]).shape == (0, 384)


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
