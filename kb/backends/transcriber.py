"""Speech to text.

A :class:`Transcriber` turns an audio file into timed :class:`Segment` s. ``model_id``
identifies everything that changes the transcript (model, language, beam size), so a
cached transcript is reused only when it would come out the same; it is known without
loading the model.

:class:`WhisperTranscriber` runs faster-whisper (CTranslate2). The model is loaded on
the first :meth:`~Transcriber.transcribe` call, so creating one is cheap, and loaded
models are shared process-wide by (folder, device, compute type), so a second
transcriber (another ingest run in the same process, a test) does not load it again.
The audio is decoded with ``faster_whisper.decode_audio`` (PyAV: any container,
resampled to 16 kHz mono); voice-activity filtering is off so timestamps cover the
whole file.
"""

from __future__ import annotations

import os
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.config import WhisperSettings
from kb.errors import IngestError, ModelError, notice
from kb.progress import SECONDS, step
from kb.quoting import quote_name

#: what CTranslate2 says when its CUDA libraries are missing or do not match the
#: machine's: "Library libcublas.so.12 is not found or cannot be loaded" (a CUDA 13
#: machine: faster-whisper issue 1431), a cuDNN library or symbol it cannot load, a
#: driver too old. Not a GPU that runs out of memory: that is no reason to give up on it.
_CUDA_LIBRARY_FAILURE = re.compile(
    r"(?i)lib(?:cublas|cudnn)\S*|library \S+ is not found|cannot load symbol"
    r"|driver version is insufficient"
)
#: set once CTranslate2's CUDA libraries failed in this process: ``auto`` is the CPU
#: from then on, for every transcriber (the note is said once)
_CUDA_BROKEN = False

SAMPLE_RATE = 16000

# Loaded models, shared by every WhisperTranscriber of the process:
# (folder, device, compute_type) -> faster_whisper.WhisperModel
_MODELS: dict[tuple[str, str, str], Any] = {}
_MODELS_LOCK = threading.Lock()


@dataclass(frozen=True)
class Segment:
    """A stretch of speech: ``start <= end`` in seconds from the beginning of the file."""

    start: float
    end: float
    text: str


class Transcriber(ABC):
    model_id: str
    device: str

    @abstractmethod
    def transcribe(
        self, path: Path, on_progress: Callable[[float], None] | None = None
    ) -> list[Segment]:
        """Transcribe ``path``; ``on_progress`` gets the seconds newly covered, summing to
        the file's duration. Raises :class:`IngestError` (``reason`` starting with "not a
        decodable audio file" or "empty audio") for bad input, :class:`ModelError` when
        the model cannot be loaded."""


def whisper_model_id(settings: WhisperSettings) -> str:
    """``bundled:whisper-base`` or ``local:<folder>``, plus ``|lang=..|beam=N``."""
    name = (
        "bundled:whisper-base"
        if settings.model == "bundled"
        else f"local:{Path(settings.model).expanduser().resolve()}"
    )
    return f"{name}|lang={settings.language or 'auto'}|beam={settings.beam_size}"


def resolve_device(requested: str) -> str:
    """``auto`` → ``cuda`` when CTranslate2 sees a CUDA device, else ``cpu``."""
    if requested != "auto":
        return requested
    if _CUDA_BROKEN:
        return "cpu"
    import ctranslate2

    try:
        return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
    except Exception:  # pragma: no cover - broken CUDA runtime: fall back
        return "cpu"


def decode(path: Path) -> Any:
    """float32 samples at 16 kHz mono; :class:`IngestError` if PyAV cannot decode it."""
    from faster_whisper import decode_audio

    try:
        return decode_audio(str(path), sampling_rate=SAMPLE_RATE)
    except Exception as e:  # PyAV raises a family of errors (InvalidDataError, ...)
        reason = " ".join(str(e).split())[:200] or type(e).__name__
        raise IngestError(str(path), f"not a decodable audio file: {reason}") from None


class WhisperTranscriber(Transcriber):
    def __init__(self, settings: WhisperSettings, model_dir: Callable[[], Path]) -> None:
        self.settings = settings
        self.model_id = whisper_model_id(settings)
        self.device = resolve_device(settings.device)
        self._model_dir = model_dir
        self._model: Any = None

    def _load(self) -> Any:
        """The faster-whisper model, loaded once per process for each folder, device and
        compute type (later transcribers reuse it)."""
        if self._model is not None:
            return self._model
        with _MODELS_LOCK:
            folder = self._model_dir()
            key = (str(folder.resolve()), self.device, self.settings.compute_type)
            if key not in _MODELS:
                with step("loading the speech model"):
                    _MODELS[key] = self._open(folder)
            self._model = _MODELS[key]
            return self._model

    def _open(self, folder: Path) -> Any:
        """The faster-whisper model in ``folder`` (a CTranslate2 conversion)."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from faster_whisper import WhisperModel

        if not (folder / "model.bin").is_file():
            raise ModelError(
                f"{folder}: not a CTranslate2 whisper folder (model.bin is missing); "
                "set [whisper] model to a converted faster-whisper model"
            )
        try:
            return WhisperModel(
                str(folder), device=self.device, compute_type=self.settings.compute_type
            )
        except (RuntimeError, ValueError, OSError) as e:
            raise ModelError(f"{folder}: cannot load the whisper model: {e}") from None

    def transcribe(
        self, path: Path, on_progress: Callable[[float], None] | None = None
    ) -> list[Segment]:
        """See :class:`Transcriber`. On the GPU, CTranslate2 loads cuBLAS and cuDNN only
        at the first encode, and fails there when the machine's CUDA libraries are not
        the ones its wheel was built for (a CUDA 13 machine has no ``libcublas.so.12``).
        With ``[whisper] device = "auto"`` kb then transcribes on the CPU from here on,
        with a one-line note; with ``"cuda"`` asked for, that is a :class:`ModelError`
        saying what to do."""
        audio = decode(path)
        duration = len(audio) / SAMPLE_RATE
        if len(audio) == 0:
            raise IngestError(str(path), "empty audio (0 seconds); nothing to transcribe")
        reported = [0.0]
        self._load()
        with step(f"transcribing {quote_name(path.name)}", total=duration, unit=SECONDS) as s:

            def tell(seconds: float) -> None:
                s.advance(seconds)  # mm:ss of audio done / total (kb.progress)
                if on_progress is not None:
                    on_progress(seconds)

            def progress(seconds: float) -> None:
                reported[0] += seconds
                tell(seconds)

            try:
                return self._run(audio, duration, progress)
            except RuntimeError as e:
                if self.device != "cuda" or not _CUDA_LIBRARY_FAILURE.search(str(e)):
                    raise
                if self.settings.device != "auto":
                    raise ModelError(
                        f"whisper cannot run on the GPU ({e}); install the CUDA libraries "
                        'CTranslate2 needs, or set [whisper] device = "cpu"'
                    ) from None
                self._give_up_cuda(str(e))
                return self._run(audio, duration, _after(reported[0], tell))

    def _give_up_cuda(self, why: str) -> None:
        """Transcribe on the CPU from now on, in this process (:data:`_CUDA_BROKEN`); the
        CUDA model is dropped from the shared cache, so its GPU memory is freed."""
        global _CUDA_BROKEN
        with _MODELS_LOCK:
            if not _CUDA_BROKEN:
                notice(f"note: whisper cannot run on the GPU ({why}); transcribing on the CPU")
            _CUDA_BROKEN = True
            for key in [k for k in _MODELS if k[1] == "cuda"]:
                del _MODELS[key]
        self.device, self._model = "cpu", None

    def _run(
        self, audio: Any, duration: float, on_progress: Callable[[float], None] | None
    ) -> list[Segment]:
        model = self._load()
        pieces, _info = model.transcribe(
            audio,
            language=self.settings.language or None,
            beam_size=self.settings.beam_size,
            vad_filter=False,
        )
        out: list[Segment] = []
        done = 0.0
        for piece in pieces:
            start = max(0.0, min(float(piece.start), duration))
            end = max(start, min(float(piece.end), duration))
            text = piece.text.strip()
            if text:
                out.append(Segment(round(start, 3), round(end, 3), text))
            if on_progress is not None and end > done:
                on_progress(end - done)
                done = end
        if on_progress is not None and duration > done:
            on_progress(duration - done)
        return out


def _after(
    done: float, on_progress: Callable[[float], None] | None
) -> Callable[[float], None] | None:
    """``on_progress`` for a second pass over a file whose first pass reported ``done``
    seconds already: only the seconds past those are passed on."""
    if on_progress is None:
        return None
    left = [done]

    def progress(seconds: float) -> None:
        skip = min(left[0], seconds)
        left[0] -= skip
        if seconds > skip:
            on_progress(seconds - skip)

    return progress


def make_transcriber(settings: WhisperSettings, kb_home: Path | None) -> Transcriber:
    """The configured transcriber: ``model = "bundled"`` uses the whisper base model joined
    from the bundled packages (:func:`kb.backends.bundled.whisper_model_dir`); anything
    else is a local CTranslate2 folder. Nothing is loaded until the first transcription."""
    if settings.model == "bundled":
        from kb.backends.bundled import whisper_model_dir

        def folder() -> Path:
            return whisper_model_dir(kb_home)

    else:
        local = Path(settings.model).expanduser()
        if not local.is_dir():
            raise ModelError(
                f"{local}: whisper model folder not found; set [whisper] model to a "
                'CTranslate2 folder or "bundled"'
            )

        def folder() -> Path:
            return local

    return WhisperTranscriber(settings, folder)
