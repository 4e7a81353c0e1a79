"""The llama.cpp generator on the real bundled GGUF: loading, errors, tokens, hashing."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from kb.backends.bundled import gguf_path
from kb.backends.generator import (
    HASH_CACHE_NAME,
    Generator,
    check_gguf,
    file_sha256,
    llama_device_info,
    make_generator,
    resolve_model_path,
)
from kb.config import LlmSettings
from kb.errors import ModelError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gen() -> Generator:
    return make_generator(LlmSettings(n_ctx=1024))


MESSAGES = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "What colour is the sky on a clear day?"},
]


def test_bundled_model_resolves_to_a_gguf_file() -> None:
    path = resolve_model_path(LlmSettings(model="bundled"))
    assert path == gguf_path() and path.suffix == ".gguf"
    assert check_gguf(path) == path.resolve()


def test_streams_pieces_quietly(gen: Generator, capfd: pytest.CaptureFixture[str]) -> None:
    pieces = list(gen.stream(MESSAGES, max_tokens=12))
    assert 1 < len(pieces) <= 12 and all(isinstance(p, str) and p for p in pieces)
    # deterministic: temperature 0 and a fixed seed give the same text again
    assert "".join(gen.stream(MESSAGES, max_tokens=12)) == "".join(pieces)
    captured = capfd.readouterr()
    assert captured.err == ""  # no llama.cpp log lines on the terminal


def test_load_is_quiet(capfd: pytest.CaptureFixture[str]) -> None:
    g = make_generator(LlmSettings(n_ctx=256))
    assert g.n_ctx == 256
    g.close()
    assert capfd.readouterr().err == ""


def test_max_tokens_bounds_the_output(gen: Generator) -> None:
    long_ask = [{"role": "user", "content": "Write a long story about a dragon."}]
    n = sum(1 for _ in gen.stream(long_ask, max_tokens=5))
    assert 1 <= n <= 5


def test_token_counts(gen: Generator) -> None:
    assert gen.count_tokens("") == 0
    one, two = gen.count_tokens("hello world"), gen.count_tokens("hello world hello world")
    assert 0 < one < two <= 2 * one + 1
    # the chat template adds role markers: the prompt costs more than its text
    text_only = sum(gen.count_tokens(m["content"]) for m in MESSAGES)
    assert gen.count_prompt_tokens(MESSAGES) > text_only
    assert gen.count_prompt_tokens("hello world") >= one


def test_missing_model_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelError, match=r"nope\.gguf: model file not found.*--model"):
        make_generator(LlmSettings(model=str(missing)))


def test_not_a_gguf_file(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04 this is a zip, not a model")
    with pytest.raises(ModelError, match=r"model\.gguf: not a GGUF model file"):
        make_generator(LlmSettings(model=str(bad)))
    with pytest.raises(ModelError, match="is a folder, not a regular file"):
        make_generator(LlmSettings(model=str(tmp_path)))


def test_truncated_gguf_fails_as_model_error(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 64)
    with pytest.raises(ModelError, match=r"broken\.gguf: llama\.cpp could not load the model"):
        make_generator(LlmSettings(model=str(broken)))
    assert capfd.readouterr().err == ""


def test_unreadable_model_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "locked.gguf"
    f.write_bytes(b"GGUF")

    def denied(self: Path, *a: object, **k: object) -> object:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", denied)  # chmod 0 does not stop root
    with pytest.raises(ModelError, match=r"locked\.gguf: cannot read the model file"):
        check_gguf(f)


def test_model_hash_is_sha256_and_cached(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + os.urandom(1000))
    cache = tmp_path / "cache" / HASH_CACHE_NAME
    expected = hashlib.sha256(model.read_bytes()).hexdigest()
    assert file_sha256(model, cache) == expected
    entry = json.loads(cache.read_text())[str(model.resolve())]
    assert entry["sha256"] == expected
    # a cache hit is served without reading the file: plant a marker to prove it
    entry["sha256"] = "cached"
    cache.write_text(json.dumps({str(model.resolve()): entry}))
    assert file_sha256(model, cache) == "cached"
    # a changed file (size/mtime) is hashed again
    model.write_bytes(b"GGUF" + os.urandom(2000))
    assert file_sha256(model, cache) == hashlib.sha256(model.read_bytes()).hexdigest()


def test_generator_model_hash_uses_its_cache(tmp_path: Path) -> None:
    g = make_generator(LlmSettings(n_ctx=256), cache_dir=tmp_path)
    digest = g.model_hash
    assert len(digest) == 64 and (tmp_path / HASH_CACHE_NAME).is_file()
    assert json.loads((tmp_path / HASH_CACHE_NAME).read_text())[str(g.model_path)]["sha256"] == (
        digest
    )
    g.close()


def test_device_info_reports_offload_support(monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp

    from kb.backends import generator

    monkeypatch.setattr(generator, "gpu_present", lambda: True)

    supports = bool(llama_cpp.llama_supports_gpu_offload())
    cpu = llama_device_info(LlmSettings(n_gpu_layers=0))
    assert cpu["installed"] and cpu["n_gpu_layers_effective"] == 0 and cpu["device"] == "cpu"
    assert cpu["gpu_offload_supported"] is supports
    full = llama_device_info(LlmSettings(n_gpu_layers=-1))
    if supports:
        assert full["n_gpu_layers_effective"] == "all" and full["device"] == "gpu"
    else:
        assert full["n_gpu_layers_effective"] == 0 and "GGML_CUDA" in full["note"]
        monkeypatch.setattr(generator, "gpu_present", lambda: False)
        # no GPU on the machine: the default (-1) on a CPU build is no reason for a note
        assert "note" not in llama_device_info(LlmSettings(n_gpu_layers=-1))


def test_gpu_layers_request_still_loads_on_a_cpu_build() -> None:
    g = make_generator(LlmSettings(n_ctx=256, n_gpu_layers=-1))
    assert "".join(g.stream("Hello", max_tokens=2))
    g.close()


def test_a_load_on_another_thread_keeps_the_processs_output(
    capfd: pytest.CaptureFixture[str],
) -> None:
    import threading

    from kb.backends.generator import silence_llama_logs

    assert silence_llama_logs()  # this llama-cpp-python's fd redirect is switched off
    loaded: list[Generator] = []
    t = threading.Thread(target=lambda: loaded.append(make_generator(LlmSettings(n_ctx=256))))
    capfd.readouterr()
    t.start()
    written = 0
    while t.is_alive():  # what the main thread prints meanwhile is not lost
        os.write(1, b"x")
        written += 1
    t.join()
    out = capfd.readouterr()
    assert loaded and out.out == "x" * written and out.err == ""


@pytest.mark.parametrize(
    "entry",
    [
        "from kb.backends.generator import silence_llama_logs as f; f()",
        "from kb.backends.generator import llama_device_info as f; from kb.config import "
        "LlmSettings; f(LlmSettings())",
        "from kb.backends.llama_import import import_llama_cpp as f; f()",
    ],
)
def test_llama_cpp_is_imported_after_onnxruntime(entry: str) -> None:
    """A CUDA build of llama-cpp-python kills the process when onnxruntime or torch is
    imported after it (:mod:`kb.backends.llama_import`); each way kb imports llama_cpp
    in a fresh process imports onnxruntime first."""
    import subprocess
    import sys

    show = "import sys; m = list(sys.modules); print(m.index('onnxruntime'), m.index('llama_cpp'))"
    code = f"{entry}\n{show}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    ort, llama = map(int, out.stdout.split())
    assert ort < llama


def test_a_model_that_does_not_load_on_the_gpu_loads_on_the_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With offload asked for (the default, -1) on a GPU build, a load that fails (the
    model does not fit in the GPU's memory, say) is retried on the CPU, with a note."""
    from kb.backends import generator

    tried: list[int] = []

    class FakeLlama:
        def __init__(self, model: Path, *, n_gpu_layers: int, **kw: object) -> None:
            tried.append(n_gpu_layers)
            if n_gpu_layers != 0:
                raise ModelError(f"{model}: llama.cpp could not load the model (out of memory)")

    monkeypatch.setattr(generator, "LlamaGenerator", FakeLlama)
    monkeypatch.setattr(generator, "gpu_offload_supported", lambda: True)
    g = make_generator(LlmSettings(requantize="off"), cache_dir=tmp_path)
    assert isinstance(g, FakeLlama) and tried == [-1, 0]
    err = capsys.readouterr().err
    assert "did not load on the GPU" in err and "answering on the CPU" in err
    # a CPU build does not retry: the error is the model's
    tried.clear()
    monkeypatch.setattr(generator, "gpu_offload_supported", lambda: False)
    with pytest.raises(ModelError, match="out of memory"):
        make_generator(LlmSettings(requantize="off"), cache_dir=tmp_path)
    assert tried == [-1]
    # a model that loads nowhere: the GPU's error, and no note about the CPU
    tried.clear()
    monkeypatch.setattr(generator, "gpu_offload_supported", lambda: True)

    class Broken(FakeLlama):
        def __init__(self, model: Path, *, n_gpu_layers: int, **kw: object) -> None:
            tried.append(n_gpu_layers)
            raise ModelError(f"{model}: llama.cpp could not load the model (bad tensor)")

    monkeypatch.setattr(generator, "LlamaGenerator", Broken)
    capsys.readouterr()
    with pytest.raises(ModelError, match="bad tensor"):
        make_generator(LlmSettings(requantize="off"), cache_dir=tmp_path)
    assert tried == [-1, 0] and "answering on the CPU" not in capsys.readouterr().err
    monkeypatch.setattr(generator, "LlamaGenerator", FakeLlama)
    # n_gpu_layers 0 never tries the GPU
    tried.clear()
    assert isinstance(make_generator(LlmSettings(n_gpu_layers=0, requantize="off")), FakeLlama)
    assert tried == [0]


def test_default_offloads_every_layer() -> None:
    assert LlmSettings().n_gpu_layers == -1


def test_torch_is_imported_after_onnxruntime() -> None:
    import subprocess
    import sys

    code = (
        "from kb.backends.llama_import import import_torch; import_torch()\n"
        "import sys; m = list(sys.modules); print(m.index('onnxruntime') < m.index('torch'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
