"""Audio loader: real whisper on short WAVs, the transcript cache, and bad audio.

The real-model tests share one whisper model per session (see ``whisper`` in conftest);
the two files together are about 35 s of speech.
"""

from __future__ import annotations

import json
import wave
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.loaders import AudioLoader, LoadContext
from ingest.loaders.audio import cache_path, file_sha256
from kb.backends.transcriber import Segment, Transcriber
from kb.config import Settings
from kb.errors import IngestError

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
WAV = DEMO / "audio" / "heron-pilot.wav"


class Counting(Transcriber):
    """Wraps a transcriber and counts ``transcribe`` calls."""

    def __init__(self, inner: Transcriber) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.device = inner.device
        self.calls = 0

    def transcribe(
        self, path: Path, on_progress: Callable[[float], None] | None = None
    ) -> list[Segment]:
        self.calls += 1
        return self.inner.transcribe(path, on_progress)


class Fake(Transcriber):
    device = "cpu"

    def __init__(self, segments: list[Segment], model_id: str = "fake", duration: float = 0.0):
        self.segments = segments
        self.model_id = model_id
        self.duration = duration
        self.calls = 0

    def transcribe(
        self, path: Path, on_progress: Callable[[float], None] | None = None
    ) -> list[Segment]:
        self.calls += 1
        if on_progress is not None and self.duration:
            on_progress(self.duration)
        return list(self.segments)


def _ctx(
    settings: Settings,
    transcriber: Transcriber,
    cache: Path | None,
    progress: list[float] | None = None,
) -> LoadContext:
    return LoadContext(
        settings=settings,
        transcriber=lambda: transcriber,
        cache_dir=cache,
        on_audio_progress=progress.append if progress is not None else None,
    )


def _duration(path: Path) -> float:
    with wave.open(str(path)) as w:
        return w.getnframes() / w.getframerate()


@pytest.mark.slow
def test_real_whisper_demo_wav_and_cache_hit(
    whisper: Transcriber, settings: Settings, kb_home: Path
) -> None:
    counting = Counting(whisper)
    progress: list[float] = []
    ctx = _ctx(settings, counting, kb_home / "cache", progress)
    doc = AudioLoader().load(WAV, "audio/heron-pilot.wav", ctx)
    assert counting.calls == 1
    assert doc.doc_type == "audio"
    words = " ".join(s.text for s in doc.sections).lower()
    for word in ("project heron", "leeds", "barcode scanners", "reconciliation", "stock"):
        assert word in words
    assert all(s.span.seconds_start is not None and s.span.seconds_end for s in doc.sections)
    starts = [s.span.seconds_start or 0.0 for s in doc.sections]
    ends = [s.span.seconds_end or 0.0 for s in doc.sections]
    assert all(a <= b for a, b in zip(starts, ends, strict=True))
    assert starts == sorted(starts) and starts[0] == pytest.approx(0.0, abs=1.0)
    assert ends[-1] <= _duration(WAV) + 0.01
    assert sum(progress) == pytest.approx(_duration(WAV), abs=0.05)
    assert doc.meta["duration_seconds"] == pytest.approx(_duration(WAV), abs=0.05)
    # offsets index the space-joined transcript
    joined = " ".join(s.text for s in doc.sections)
    assert all(joined[s.char_start : s.char_end] == s.text for s in doc.sections)

    cached = cache_path(kb_home / "cache", file_sha256(WAV), whisper.model_id)
    assert cached.is_file() and json.loads(cached.read_text())["model_id"] == whisper.model_id
    progress.clear()
    again = AudioLoader().load(WAV, "audio/heron-pilot.wav", ctx)
    assert counting.calls == 1  # served from the cache
    assert again.sections == doc.sections and progress == []


@pytest.mark.slow
def test_real_whisper_squad_wav_22khz(
    whisper: Transcriber, settings: Settings, squad: Path
) -> None:
    path = squad / "corpus" / "audio" / "Computational_complexity_theory_part29.wav"
    doc = AudioLoader().load(path, path.name, _ctx(settings, whisper, None))
    text = " ".join(s.text for s in doc.sections).lower()
    assert "complexity" in text
    ends = [s.span.seconds_end or 0.0 for s in doc.sections]
    assert ends == sorted(ends) and ends[-1] <= _duration(path) + 0.01


def test_non_audio_bytes_with_audio_extension(
    whisper: Transcriber, settings: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "song.mp3"
    path.write_bytes(b"this is not an mp3 at all, just some text bytes\n" * 20)
    with pytest.raises(IngestError) as e:
        AudioLoader().load(path, "song.mp3", _ctx(settings, whisper, tmp_path / "cache"))
    assert e.value.path == "song.mp3"
    assert e.value.reason.startswith("not a decodable audio file: ")


def test_zero_second_wav(whisper: Transcriber, settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "silent.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"")
    with pytest.raises(IngestError, match=r"^silent.wav: empty audio \(0 seconds\)"):
        AudioLoader().load(path, "silent.wav", _ctx(settings, whisper, None))


def test_zero_byte_file_never_calls_the_transcriber(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "x.wav"
    path.write_bytes(b"")
    fake = Fake([])
    with pytest.raises(IngestError, match="empty file"):
        AudioLoader().load(path, "x.wav", _ctx(settings, fake, tmp_path))
    assert fake.calls == 0


def test_sections_cache_key_and_no_speech(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "a.wav"
    path.write_bytes(b"RIFF-but-the-fake-never-decodes-it")
    segs = [
        Segment(0.0, 2.5, " Hello there. "),
        Segment(2.5, 2.5, "  "),
        Segment(2.5, 6.0, "Second bit."),
    ]
    fake = Fake(segs, model_id="fake-a", duration=7.0)
    progress: list[float] = []
    doc = AudioLoader().load(path, "a.wav", _ctx(settings, fake, tmp_path / "c", progress))
    assert [
        (s.text, s.span.seconds_start, s.span.seconds_end, s.char_start, s.char_end)
        for s in doc.sections
    ] == [
        ("Hello there.", 0.0, 2.5, 0, 12),
        ("Second bit.", 2.5, 6.0, 13, 24),
    ]
    assert progress == [7.0] and doc.meta["duration_seconds"] == 7.0
    # same bytes, another model id: not served from the first model's cache
    other = Fake([Segment(0.0, 1.0, "Other.")], model_id="fake-b")
    assert (
        AudioLoader().load(path, "a.wav", _ctx(settings, other, tmp_path / "c")).sections[0].text
        == "Other."
    )
    assert other.calls == 1
    # a corrupt cache file is ignored and rewritten
    cached = cache_path(tmp_path / "c", file_sha256(path), "fake-a")
    cached.write_text("{not json", encoding="utf-8")
    AudioLoader().load(path, "a.wav", _ctx(settings, fake, tmp_path / "c"))
    assert fake.calls == 2 and json.loads(cached.read_text())["model_id"] == "fake-a"
    # nothing recognised
    with pytest.raises(IngestError, match=r"no speech recognised in 3.0 s of audio"):
        AudioLoader().load(path, "a.wav", _ctx(settings, Fake([], "fake-c", 3.0), None))
