"""kb.backends.transcriber: model ids, device choice, errors, and the real whisper model."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest

from kb.backends.transcriber import (
    WhisperTranscriber,
    make_transcriber,
    resolve_device,
    whisper_model_id,
)
from kb.config import WhisperSettings
from kb.errors import IngestError, ModelError

WAV = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "audio" / "heron-pilot.wav"


def test_model_id_names_everything_that_changes_the_transcript(tmp_path: Path) -> None:
    base = WhisperSettings()
    assert whisper_model_id(base) == "bundled:whisper-base|lang=en|beam=5"
    ids = {
        whisper_model_id(base),
        whisper_model_id(WhisperSettings(language="")),
        whisper_model_id(WhisperSettings(beam_size=1)),
        whisper_model_id(WhisperSettings(model=str(tmp_path))),
    }
    assert len(ids) == 4
    assert whisper_model_id(WhisperSettings(language="")).endswith("|lang=auto|beam=5")
    # device and compute type do not change the words, so they share transcripts
    assert whisper_model_id(
        WhisperSettings(device="cuda", compute_type="float16")
    ) == whisper_model_id(base)


def test_resolve_device() -> None:
    import ctranslate2

    assert resolve_device("cpu") == "cpu" and resolve_device("cuda") == "cuda"
    expected = "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
    assert resolve_device("auto") == expected


def test_make_transcriber_is_lazy_and_checks_local_folders(tmp_path: Path) -> None:
    t = make_transcriber(WhisperSettings(device="cpu"), tmp_path / "kb")
    assert isinstance(t, WhisperTranscriber) and t.device == "cpu"
    assert not (tmp_path / "kb").exists()  # nothing joined or loaded yet
    with pytest.raises(ModelError, match="whisper model folder not found"):
        make_transcriber(WhisperSettings(model=str(tmp_path / "missing")), None)


def test_folder_without_model_bin(tmp_path: Path) -> None:
    t = make_transcriber(WhisperSettings(model=str(tmp_path), device="cpu"), None)
    with pytest.raises(ModelError, match="model.bin is missing"):
        t.transcribe(WAV)


def test_decode_errors_come_before_loading(tmp_path: Path) -> None:
    t = make_transcriber(WhisperSettings(model=str(tmp_path), device="cpu"), None)
    bogus = tmp_path / "a.ogg"
    bogus.write_bytes(b"\x00\x01 not audio" * 50)
    with pytest.raises(IngestError, match="not a decodable audio file"):
        t.transcribe(bogus)
    empty = tmp_path / "empty.wav"
    with wave.open(str(empty), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
    with pytest.raises(IngestError, match=r"empty audio \(0 seconds\)"):
        t.transcribe(empty)


@pytest.mark.slow
def test_real_whisper_detects_language_and_reports_progress() -> None:
    settings = WhisperSettings(device="cpu", language="", beam_size=1)
    t = make_transcriber(settings, None)
    progress: list[float] = []
    segments = t.transcribe(WAV, on_progress=progress.append)
    text = " ".join(s.text for s in segments).lower()
    assert "warehouse" in text and "reconciliation" in text
    assert all(0 <= s.start <= s.end for s in segments)
    assert [s.start for s in segments] == sorted(s.start for s in segments)
    with wave.open(str(WAV)) as w:
        duration = w.getnframes() / w.getframerate()
    assert all(p > 0 for p in progress) and sum(progress) == pytest.approx(duration, abs=0.01)
    # a second transcriber on the same folder reuses the loaded model
    other = make_transcriber(WhisperSettings(device="cpu", beam_size=2), None)
    assert isinstance(t, WhisperTranscriber) and isinstance(other, WhisperTranscriber)
    assert other._load() is t._load()


class _FakeWhisper:
    """Stands in for a faster-whisper model: on ``cuda`` it fails at the first encode
    as CTranslate2 does on a CUDA 13 machine; on the CPU it hears one sentence."""

    def __init__(self, device: str) -> None:
        self.device = device

    def transcribe(self, audio: object, **kw: object) -> tuple[object, object]:
        from types import SimpleNamespace

        def pieces():  # type: ignore[no-untyped-def]
            if self.device == "cuda":
                raise RuntimeError("Library libcublas.so.12 is not found or cannot be loaded")
            yield SimpleNamespace(start=0.0, end=1.0, text=" Hello there.")

        return pieces(), None


@pytest.mark.parametrize("asked", ["auto", "cuda"])
def test_a_gpu_without_ctranslate2s_cuda_libraries(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], asked: str
) -> None:
    """``auto`` picked cuda, but the first encode cannot load cuBLAS: ``auto`` goes on on
    the CPU with a note (and stays there); ``cuda`` asked for is a ModelError."""
    import numpy as np

    from kb.backends import transcriber

    monkeypatch.setattr(transcriber, "decode", lambda path: np.zeros(16000, dtype=np.float32))
    monkeypatch.setattr(transcriber, "_CUDA_BROKEN", False)
    t = WhisperTranscriber(WhisperSettings(device=asked), lambda: Path("/nowhere"))
    t.device = "cuda"
    monkeypatch.setattr(t, "_load", lambda: _FakeWhisper(t.device))
    if asked == "cuda":
        with pytest.raises(ModelError, match=r'libcublas.*\[whisper\] device = "cpu"'):
            t.transcribe(WAV)
        return
    seconds: list[float] = []
    got = t.transcribe(WAV, seconds.append)
    assert [s.text for s in got] == ["Hello there."] and t.device == "cpu"
    assert sum(seconds) == pytest.approx(1.0)  # the file's second, counted once
    assert "transcribing on the CPU" in capsys.readouterr().err
    assert [s.text for s in t.transcribe(WAV)] == ["Hello there."]
    # a later transcriber of this process starts on the CPU, and says nothing
    assert resolve_device("auto") == "cpu"
    assert capsys.readouterr().err == ""


def test_other_runtime_errors_are_not_taken_for_a_gpu_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import numpy as np

    from kb.backends import transcriber

    class Broken(_FakeWhisper):
        def transcribe(self, audio: object, **kw: object) -> tuple[object, object]:
            raise RuntimeError("unsupported model architecture")

    monkeypatch.setattr(transcriber, "decode", lambda path: np.zeros(16000, dtype=np.float32))
    monkeypatch.setattr(transcriber, "_CUDA_BROKEN", False)
    t = WhisperTranscriber(WhisperSettings(device="auto"), lambda: Path("/nowhere"))
    t.device = "cuda"
    monkeypatch.setattr(t, "_load", lambda: Broken(t.device))
    with pytest.raises(RuntimeError, match="unsupported"):
        t.transcribe(WAV)

    class OutOfMemory(_FakeWhisper):  # a GPU that is full is no reason to give up on it
        def transcribe(self, audio: object, **kw: object) -> tuple[object, object]:
            raise RuntimeError("CUDA failed with error out of memory")

    monkeypatch.setattr(t, "_load", lambda: OutOfMemory(t.device))
    with pytest.raises(RuntimeError, match="out of memory"):
        t.transcribe(WAV)
    assert t.device == "cuda" and resolve_device("cpu") == "cpu"


def test_a_second_pass_reports_only_the_seconds_past_the_first() -> None:
    from kb.backends.transcriber import _after

    got: list[float] = []
    progress = _after(2.5, got.append)
    assert progress is not None
    for s in (1.0, 1.0, 1.0, 1.0):
        progress(s)
    assert got == [0.5, 1.0] and _after(1.0, None) is None
