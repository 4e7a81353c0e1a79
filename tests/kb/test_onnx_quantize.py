"""``[embedding] quantize = "int8"``: settings, model identity, and (slow) the real
int8 copy of the bundled model: close to the float vectors, a model of its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kb.backends.embedder import base_model_id, embedding_model_id, make_embedder
from kb.config import EmbeddingSettings
from kb.errors import ConfigError, EmbeddingMismatchError, ModelError
from tests.kb.test_onnx_embedder import squad_texts


def test_quantized_model_has_its_own_id() -> None:
    plain = EmbeddingSettings(model="bundled")
    q = EmbeddingSettings(model="bundled", quantize="int8")
    assert embedding_model_id(plain) == "bundled:all-MiniLM-L6-v2"
    assert embedding_model_id(q) == "bundled:all-MiniLM-L6-v2+int8"
    assert base_model_id(q) == embedding_model_id(plain)


def test_unknown_quantize_is_a_config_error(tmp_path: Path) -> None:
    bad = EmbeddingSettings(quantize="int4")
    with pytest.raises(ConfigError, match="quantize = 'int4'.*none, int8"):
        embedding_model_id(bad)
    with pytest.raises(ConfigError, match="quantize"):
        make_embedder(bad, home=tmp_path)


def test_int8_needs_onnx_runtime_and_a_kb_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match='runtime = "auto" or "onnx"'):
        make_embedder(
            EmbeddingSettings(quantize="int8", runtime="sentence-transformers"), home=tmp_path
        )
    with pytest.raises(ModelError, match="KB folder"):
        make_embedder(EmbeddingSettings(quantize="int8"), home=None)


@pytest.mark.slow
def test_int8_embedder_is_close_to_float_and_kept_apart(tmp_path: Path) -> None:
    from kb.backends.onnx_embedder import OnnxEmbedder
    from kb.store import Store

    texts = squad_texts(60)
    home = tmp_path / "kb"
    notes: list[str] = []
    f32 = make_embedder(EmbeddingSettings(device="cpu"), home=home, notice=notes.append)
    q8 = make_embedder(
        EmbeddingSettings(device="cpu", quantize="int8"), home=home, notice=notes.append
    )
    assert isinstance(f32, OnnxEmbedder) and isinstance(q8, OnnxEmbedder)
    assert q8.model_id.endswith("+int8") and q8.folder != f32.folder
    size = (q8.folder / "model.onnx").stat().st_size
    assert size < (f32.folder / "model.data").stat().st_size / 2
    a, b = f32.embed_batch(texts), q8.embed_batch(texts)
    cos = np.sum(a * b, axis=1)
    # close to the float model, but not the same vectors
    assert float(cos.min()) >= 0.97 and float(cos.mean()) < 0.9999
    np.testing.assert_allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    # the nearest text of each query is mostly the same under both
    same = np.mean(np.argmax(a[:20] @ a[20:].T, 1) == np.argmax(b[:20] @ b[20:].T, 1))
    assert same >= 0.9
    # reused on the next call, with no note
    n = len(notes)
    again = make_embedder(EmbeddingSettings(device="cpu", quantize="int8"), home=home)
    assert isinstance(again, OnnxEmbedder) and again.folder == q8.folder and len(notes) == n
    # a KB built with the int8 model stores its id and refuses the float model
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings, override
    from kb.search import Retriever, SearchOptions

    notes_dir = tmp_path / "notes"
    notes_dir.mkdir()
    (notes_dir / "a.md").write_text("# Bees\n\nHoney bees swarm in late spring.\n")
    (notes_dir / "b.md").write_text("# Bread\n\nA sourdough loaf proofs overnight.\n")
    settings = override(load_settings(home), **{"embedding.quantize": "int8"})
    store = Store.open(home)
    ingest_paths(store, settings, [notes_dir], embedder=q8)
    info = store.embedding_model()
    assert info is not None and info.model_id == q8.model_id
    hits = Retriever(store, q8).search("when do bees swarm", SearchOptions(k=1)).hits
    assert hits[0].locator.path.endswith("a.md")
    with pytest.raises(EmbeddingMismatchError, match=r"\+int8.*kb reindex"):
        store.check_embedding_model(f32.model_id)
