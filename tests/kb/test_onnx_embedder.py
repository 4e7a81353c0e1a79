"""The ONNX query path: pooling maths, which folders export, the cache key, and (slow) the
real export of the bundled model against sentence-transformers on squad-dev texts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from kb.backends.onnx_embedder import normalize, pool, runs
from kb.backends.onnx_export import NotExportable, manifest_key, pooling_of
from kb.config import EmbeddingSettings
from kb.errors import ConfigError
from tests.conftest import require_squad

# two texts, three token positions, two dimensions; the second text has one padding token
TOKENS = np.array(
    [
        [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
        [[2.0, 0.0], [4.0, 2.0], [100.0, 100.0]],
    ],
    dtype=np.float32,
)
MASK = np.array([[1, 1, 1], [1, 1, 0]])


def test_mean_pooling_ignores_padding() -> None:
    # text 1: (1+3+5)/3, (2+4+6)/3; text 2: (2+4)/2, (0+2)/2 - the padded 100s do not count
    np.testing.assert_allclose(pool(TOKENS, MASK, "mean"), [[3.0, 4.0], [3.0, 1.0]])


def test_other_pooling_modes() -> None:
    np.testing.assert_allclose(pool(TOKENS, MASK, "cls"), [[1.0, 2.0], [2.0, 0.0]])
    np.testing.assert_allclose(pool(TOKENS, MASK, "max"), [[5.0, 6.0], [4.0, 2.0]])
    # sums (9, 12) / sqrt(3) and (6, 2) / sqrt(2)
    want = [[9 / np.sqrt(3), 12 / np.sqrt(3)], [6 / np.sqrt(2), 2 / np.sqrt(2)]]
    np.testing.assert_allclose(pool(TOKENS, MASK, "mean_sqrt_len"), want, rtol=1e-6)
    with pytest.raises(ValueError, match="weighted"):
        pool(TOKENS, MASK, "weighted")


def test_runs_sort_by_length_and_respect_the_token_budget() -> None:
    lengths = [30, 5, 200, 5, 31, 300, 6]
    got = runs(lengths, batch_size=64, budget=64)
    assert got == [[1, 3, 6], [0, 4], [2], [5]]  # 3 x 6 <= 64; 3 x 30 > 64; 2 x 31 <= 64
    assert sorted(i for r in got for i in r) == list(range(len(lengths)))
    for r in got:  # padded size within budget, unless a text alone is over it
        assert len(r) == 1 or len(r) * max(lengths[i] for i in r) <= 64
    # the text count still caps a run; nothing but the count when the budget is large
    assert runs([4] * 5, batch_size=2, budget=10_000) == [[0, 1], [2, 3], [4]]
    assert runs([], batch_size=8, budget=100) == []


def test_normalize_rows_and_zero_row() -> None:
    out = normalize(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    assert out.dtype == np.float32


def _folder(tmp_path: Path, modules: list[str], pooling: dict[str, object]) -> Path:
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "modules.json").write_text(
        json.dumps(
            [
                {
                    "idx": i,
                    "name": str(i),
                    "path": "1_Pooling" if t == "Pooling" else "",
                    "type": f"sentence_transformers.models.{t}",
                }
                for i, t in enumerate(modules)
            ]
        )
    )
    cfg = {"word_embedding_dimension": 4, **pooling}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(cfg))
    return folder


MEAN = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}


def test_pooling_of_reads_modules_and_config(tmp_path: Path) -> None:
    f = _folder(tmp_path, ["Transformer", "Pooling", "Normalize"], MEAN)
    assert pooling_of(f) == ("mean", True)
    shutil.rmtree(f)
    f = _folder(tmp_path, ["Transformer", "Pooling"], {"pooling_mode_cls_token": True})
    assert pooling_of(f) == ("cls", False)


@pytest.mark.parametrize(
    ("pooling", "mode"),
    [
        ({"pooling_mode": "mean", "include_prompt": True}, "mean"),
        ({"pooling_mode": ["cls"]}, "cls"),
        ({"pooling_mode": "max"}, "max"),
        ({"pooling_mode": "mean_sqrt_len_tokens"}, "mean_sqrt_len"),
    ],
)
def test_pooling_of_reads_the_sentence_transformers_6_format(
    tmp_path: Path, pooling: dict[str, object], mode: str
) -> None:
    """Models saved by sentence-transformers 6 name one ``pooling_mode`` instead of the
    ``pooling_mode_*`` booleans; before, such a model was "not exportable" and every
    query loaded torch."""
    assert pooling_of(_folder(tmp_path, ["Transformer", "Pooling"], pooling)) == (mode, False)


@pytest.mark.parametrize(
    "pooling",
    [{"pooling_mode": "weightedmean"}, {"pooling_mode": ["mean", "max"]}, {"pooling_mode": 3}],
)
def test_other_sentence_transformers_6_poolings_are_not_exportable(
    tmp_path: Path, pooling: dict[str, object]
) -> None:
    with pytest.raises(NotExportable, match="pooling"):
        pooling_of(_folder(tmp_path, ["Transformer", "Pooling"], pooling))


@pytest.mark.parametrize(
    ("modules", "pooling", "why"),
    [
        (["Transformer", "Pooling", "Dense", "Normalize"], MEAN, "Dense"),
        (["Transformer", "Pooling"], {**MEAN, "pooling_mode_max_tokens": True}, "pooling"),
        (["Transformer", "Pooling"], {"pooling_mode_weightedmean_tokens": True}, "pooling"),
        (["Transformer", "Pooling"], {"pooling_mode_mean_tokens": False}, "pooling"),
    ],
)
def test_unsupported_folders_are_not_exportable(
    tmp_path: Path, modules: list[str], pooling: dict[str, bool], why: str
) -> None:
    with pytest.raises(NotExportable, match=why):
        pooling_of(_folder(tmp_path, modules, pooling))


def test_missing_modules_json_is_not_exportable(tmp_path: Path) -> None:
    with pytest.raises(NotExportable, match="modules.json"):
        pooling_of(tmp_path)


def test_cache_key_follows_model_id_and_files(tmp_path: Path) -> None:
    f = _folder(tmp_path, ["Transformer", "Pooling"], MEAN)
    key = manifest_key(f, "bundled:x")
    assert manifest_key(f, "bundled:x") == key
    assert manifest_key(f, "local:/other") != key
    weights = f / "model.safetensors"
    weights.write_bytes(b"1234")
    with_weights = manifest_key(f, "bundled:x")
    assert with_weights != key
    st = weights.stat()
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # rewritten file
    assert manifest_key(f, "bundled:x") != with_weights


def test_a_failed_export_is_remembered_for_those_files(tmp_path: Path) -> None:
    from kb.backends.onnx_export import export, known_failure

    f = _folder(tmp_path, ["Transformer", "Pooling", "Dense"], MEAN)
    target = tmp_path / "cache" / "onnx" / manifest_key(f, "local:x")
    assert known_failure(target) is None
    with pytest.raises(NotExportable, match="Dense"):
        export(None, f, target, "local:x")
    assert "Dense" in (known_failure(target) or "")
    assert not target.exists()


def test_unknown_runtime_is_a_config_error(tmp_path: Path) -> None:
    from kb.backends.embedder import make_embedder

    with pytest.raises(ConfigError, match="runtime"):
        make_embedder(EmbeddingSettings(runtime="tensorrt"), home=tmp_path)


# -- real model ---------------------------------------------------------------------------
def squad_texts(n: int) -> list[str]:
    """Real squad-dev chunk-sized texts: Markdown paragraphs of the wiki articles."""
    squad = require_squad()
    texts: list[str] = []
    for f in sorted((squad / "corpus" / "wiki").glob("*.md")):
        for para in f.read_text(encoding="utf-8").split("\n\n"):
            if len(para.split()) >= 8:
                texts.append(para.strip())
        if len(texts) >= n:
            break
    return texts[:n]


@pytest.mark.slow
def test_export_matches_sentence_transformers(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    from kb.backends.embedder import make_embedder
    from kb.backends.onnx_embedder import OnnxEmbedder

    texts = squad_texts(120)
    texts += ["", "x", "word " * 600]  # empty, one token, truncated at max_seq_length
    notes: list[str] = []
    settings = EmbeddingSettings(model="bundled", device="cpu")
    onnx = make_embedder(settings, home=tmp_path / "kb", notice=notes.append)
    assert isinstance(onnx, OnnxEmbedder), notes
    assert onnx.model_id == real_embedder.model_id and onnx.dim == real_embedder.dim
    ref = real_embedder.embed_batch(texts)
    got = onnx.embed_batch(texts)
    assert got.shape == ref.shape and got.dtype == np.float32
    cos = np.sum(ref * got, axis=1)
    assert float(cos.min()) >= 0.9999
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # a query alone equals the same text inside a sorted, padded batch
    np.testing.assert_allclose(onnx.embed_query(texts[3]), got[3], atol=1e-5)
    # at most the one "exporting once" note; the second call reuses the export silently
    assert len(notes) <= 1 and all("exporting" in n for n in notes)
    before = list(notes)
    again = make_embedder(settings, home=tmp_path / "kb", notice=notes.append)
    assert isinstance(again, OnnxEmbedder) and again.folder == onnx.folder
    assert notes == before
    # the bundled MiniLM is a BERT: its layers' attention is fused into single ops
    assert graph_ops(onnx.folder).count("Attention") == 6


def graph_ops(folder: Path) -> list[str]:
    """The op types of an export's ``model.onnx`` (weights not loaded)."""
    import onnx

    model = onnx.load(str(folder / "model.onnx"), load_external_data=False)
    return [n.op_type for n in model.graph.node]


@pytest.mark.slow
def test_a_failed_fusion_keeps_the_plain_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_embedder
) -> None:  # type: ignore[no-untyped-def]
    """When ONNX Runtime's optimizer cannot fuse the graph, the export is the plain
    (unfused) graph, checked like any other, and the model's attention is restored."""
    from kb.backends import onnx_export
    from kb.backends.embedder import SentenceTransformerEmbedder, model_folder
    from kb.backends.onnx_embedder import OnnxEmbedder

    def broken(raw: Path, config: object) -> None:
        raise onnx_export.NotExportable("fusion failed: test")

    monkeypatch.setattr(onnx_export, "_fuse", broken)
    settings = EmbeddingSettings(model="bundled", device="cpu")
    st = SentenceTransformerEmbedder(settings)
    before = st._model[0].auto_model.config._attn_implementation
    target = tmp_path / "export"
    onnx_export.export(st._model, model_folder(settings), target, "bundled:test")
    onnx = OnnxEmbedder(target)
    ops = graph_ops(onnx.folder)
    assert "Attention" not in ops and "Softmax" in ops
    texts = squad_texts(20)
    cos = np.sum(real_embedder.embed_batch(texts) * onnx.embed_batch(texts), axis=1)
    assert float(cos.min()) >= 0.9999
    assert st._model[0].auto_model.config._attn_implementation == before


@pytest.mark.slow
def test_unexportable_model_falls_back_with_one_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder whose pooling concatenates two modes loads in sentence-transformers but
    is outside what the ONNX path reproduces: one notice, sentence-transformers used."""
    from kb.backends.bundled import embedding_model_dir
    from kb.backends.embedder import SentenceTransformerEmbedder, make_embedder

    src = embedding_model_dir()
    folder = tmp_path / "model"
    shutil.copytree(src, folder, symlinks=True, ignore=shutil.ignore_patterns("*.safetensors"))
    for w in src.glob("*.safetensors"):
        (folder / w.name).symlink_to(w)
    cfg_path = folder / "1_Pooling" / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["pooling_mode_cls_token"] = True
    cfg_path.write_text(json.dumps(cfg))
    notes: list[str] = []
    settings = EmbeddingSettings(model=str(folder), device="cpu")
    emb = make_embedder(settings, home=tmp_path / "kb", notice=notes.append)
    assert isinstance(emb, SentenceTransformerEmbedder)
    assert len(notes) == 1 and "sentence-transformers" in notes[0] and "pooling" in notes[0]
    assert emb.embed_batch(["hello"]).shape == (1, 768)
    # the next command gives the same one notice without loading torch's exporter
    from kb.backends import onnx_export

    tried: list[str] = []
    monkeypatch.setattr(onnx_export, "export", lambda *a: tried.append("export"))
    again = make_embedder(settings, home=tmp_path / "kb", notice=notes.append)
    assert isinstance(again, SentenceTransformerEmbedder)
    assert tried == [] and len(notes) == 2 and notes[1] == notes[0]


@pytest.mark.slow
def test_a_model_saved_by_this_sentence_transformers_exports(tmp_path: Path) -> None:
    """A folder written by the installed sentence-transformers' ``save`` (its own
    ``1_Pooling`` format) gets the ONNX query path, with the same vectors. A small BERT
    with random weights and the bundled tokenizer stands in for a user's own model."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules
    from transformers import AutoTokenizer, BertConfig, BertModel

    from kb.backends.bundled import embedding_model_dir
    from kb.backends.embedder import SentenceTransformerEmbedder, make_embedder
    from kb.backends.onnx_embedder import OnnxEmbedder

    torch.manual_seed(0)
    hf = tmp_path / "hf"
    config = BertConfig(
        hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128
    )
    BertModel(config).save_pretrained(hf)
    AutoTokenizer.from_pretrained(str(embedding_model_dir())).save_pretrained(hf)
    body = modules.Transformer(str(hf), max_seq_length=128)
    st = SentenceTransformer(modules=[body, modules.Pooling(64, "mean"), modules.Normalize()])
    folder = tmp_path / "my-model"
    st.save(str(folder))

    settings = EmbeddingSettings(model=str(folder), device="cpu")
    notes: list[str] = []
    onnx = make_embedder(settings, home=tmp_path / "kb", purpose="query", notice=notes.append)
    assert isinstance(onnx, OnnxEmbedder), notes
    texts = squad_texts(20) + ["x"]
    ref = SentenceTransformerEmbedder(settings).embed_batch(texts)
    assert float(np.sum(ref * onnx.embed_batch(texts), axis=1).min()) >= 0.9999
