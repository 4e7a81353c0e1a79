"""Settings: a frozen dataclass tree.

Precedence, lowest to highest:

1. defaults in code (the dataclass field defaults below);
2. the shipped ``config/default.toml`` (packaged as ``kb/_defaults/default.toml``);
3. the user file: ``$KB_CONFIG`` if set (a file that does not exist is a
   :class:`ConfigError`: a mistyped name must not silently fall back to defaults),
   else ``<user config dir>/kb/config.toml`` when it exists;
4. ``<KB home>/config.toml`` (per-KB settings, e.g. the chunker of that KB);
5. environment: ``KB_HOME`` selects the KB folder;
6. command-line flags, applied with :func:`override`.

Unknown sections or keys and values of the wrong type raise :class:`ConfigError`
naming the file and the dotted key.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, is_dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

from kb.errors import ConfigError
from kb.safe_open import CONFIG, folder_problem, read_text, show, what_is

T = TypeVar("T")


@dataclass(frozen=True)
class IngestSettings:
    chunker: str = "structure"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    embed_batch_size: int = 256
    max_file_mb: float = 200.0


@dataclass(frozen=True)
class StructureChunkerSettings:
    max_tokens: int = 200
    min_tokens: int = 40


@dataclass(frozen=True)
class WindowChunkerSettings:
    size: int = 128
    overlap: int = 32


@dataclass(frozen=True)
class ChunkerSettings:
    structure: StructureChunkerSettings = StructureChunkerSettings()
    window: WindowChunkerSettings = WindowChunkerSettings()


@dataclass(frozen=True)
class EmbeddingSettings:
    model: str = "bundled"
    device: str = "auto"
    runtime: str = "auto"
    threads: int = 0
    quantize: str = "none"
    sentence_vectors: bool = True


@dataclass(frozen=True)
class WhisperSettings:
    model: str = "bundled"
    device: str = "auto"
    compute_type: str = "int8"
    language: str = "en"
    beam_size: int = 5
    segment_seconds: float = 30.0


@dataclass(frozen=True)
class SearchSettings:
    mode: str = "hybrid"
    k: int = 5
    candidates: int = 50
    fusion: str = "score"
    rrf_k: int = 60
    vector_weight: float = 1.0
    keyword_weight: float = 1.0
    sentence_weight: float = 0.3
    rerank_depth: int = 20
    links: int = 2
    min_score: float = 0.25
    vector_cache: bool = True
    ann_threshold: int = 200_000
    ann_nprobes: int = 20
    ann_refine_factor: int = 10
    ann_index: str = "faiss_ivf_sq8"
    ann_ef: int = 128
    keyword_index_threshold: int = 200_000


@dataclass(frozen=True)
class LlmSettings:
    model: str = "bundled"
    n_ctx: int = 2048
    n_gpu_layers: int = -1
    threads: int = 0
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 256
    grammar: bool = True
    repeat_penalty: float = 1.1
    requantize: str = "auto"


@dataclass(frozen=True)
class PromptSettings:
    version: str = "v2"
    refusal_phrase: str = "not in context"
    system: str = (
        "You answer questions using only the numbered context passages. "
        "End every sentence with the number of the passage it comes from, written like [#1]. "
        "If the passages do not contain the answer, reply exactly: not in context"
    )
    context_template: str = "[#{n}] {text}"
    question_template: str = (
        "Context:\n{contexts}\n\nQuestion: {question}\nAnswer with citations like [#1]:"
    )
    quote_system: str = (
        "You answer questions by choosing from numbered sentences. Reply with the number of "
        "the sentence that answers the question. If no sentence answers it, reply exactly: "
        "not in context"
    )
    quote_template: str = (
        "Sentences:\n{candidates}\n\nQuestion: {question}\nNumber of the sentence that answers it:"
    )


@dataclass(frozen=True)
class AnswerSettings:
    mode: str = "quote"
    verify: bool = True
    support_threshold: float = 0.5
    suggest_margin: float = 0.15
    min_answerable: float = 0.4
    require_key_terms: bool = True
    quote_candidates: int = 8
    quote_max_sentences: int = 1
    #: ids of the answer rules not to run (kb/rag/rules.py; `kb eval rules` lists them)
    rules_off: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvalSettings:
    k: int = 10


@dataclass(frozen=True)
class Settings:
    home: Path = Path(".")
    ingest: IngestSettings = IngestSettings()
    chunkers: ChunkerSettings = ChunkerSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    whisper: WhisperSettings = WhisperSettings()
    search: SearchSettings = SearchSettings()
    llm: LlmSettings = LlmSettings()
    prompt: PromptSettings = PromptSettings()
    answer: AnswerSettings = AnswerSettings()
    eval: EvalSettings = EvalSettings()
    sources: tuple[str, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        out = _as_plain(self)
        assert isinstance(out, dict)
        return out


def _as_plain(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _as_plain(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, tuple):
        return [_as_plain(x) for x in obj]
    if isinstance(obj, Path):
        return str(obj)
    return obj


def default_home() -> Path:
    """The KB folder when neither ``--kb`` nor ``KB_HOME`` is given."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("kb", appauthor=False))


def user_config_path() -> Path:
    env = os.environ.get("KB_CONFIG")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("kb", appauthor=False)) / "config.toml"


def packaged_defaults_text() -> str:
    """The shipped default TOML: from the wheel, or from the source tree in a checkout."""
    try:
        res = resources.files("kb") / "_defaults" / "default.toml"
        if res.is_file():
            return res.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - defensive
        pass
    src = Path(__file__).resolve().parent.parent / "config" / "default.toml"
    if src.is_file():
        return src.read_text(encoding="utf-8")
    raise ConfigError("the default configuration is missing from the installation; reinstall kb")


def _coerce(value: Any, typ: Any, where: str) -> Any:
    origin = getattr(typ, "__origin__", None)
    if typ is bool:
        if isinstance(value, bool):
            return value
    elif typ is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif typ is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if value != value or value in (float("inf"), float("-inf")):
                raise ConfigError(f"{where}: expected a finite number, got {value!r}")
            return float(value)
    elif typ is str:
        if isinstance(value, str):
            return value
    elif typ is Path:
        if isinstance(value, str | Path):
            return Path(value).expanduser()
    elif origin is tuple:
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return tuple(value)
    else:  # pragma: no cover - all field types are covered above
        return value
    name = getattr(typ, "__name__", str(typ))
    raise ConfigError(f"{where}: expected {name}, got {value!r}")


#: settings that were renamed: old dotted key -> what to write instead
RENAMED = {
    "answer.min_coverage": "answer.min_answerable (a probability now, default 0.4; "
    "see README, Refusals that happen)",
}


#: settings with a lower bound that no other check covers: dotted key -> (minimum, meaning)
#: settings that take one of a few words (checked when a file sets them)
CHOICES: dict[str, tuple[str, ...]] = {
    "llm.requantize": ("auto", "off", "q8_0", "f16"),
}

MINIMUM = {
    "search.k": (1, "the number of hits to show"),
    "eval.k": (1, "the ranking depth eval scores"),
    "search.ann_threshold": (0, "0 = never use the ANN index"),
    "search.keyword_index_threshold": (0, "0 = never use the keyword index"),
    "llm.threads": (0, "0 = one per CPU core"),
    "embedding.threads": (0, "0 = every CPU"),
}

#: settings that must be above a bound (a size of 0 or less makes no sense)
ABOVE = {
    "ingest.max_file_mb": (0, "the largest file to ingest, in MB"),
}


def _merge(obj: T, data: dict[str, Any], origin: str, prefix: str = "") -> T:
    """Return ``obj`` with ``data`` applied; errors read ``ORIGIN: section.key: problem``."""
    hints = get_type_hints(type(obj))
    known = {f.name for f in fields(obj)} - {"sources"}  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if dotted in RENAMED:
            raise ConfigError(f"{origin}: {dotted}: renamed; use {RENAMED[dotted]}")
        if key not in known:
            raise ConfigError(
                f"{origin}: {dotted}: unknown setting; see `kb config show` for valid keys"
            )
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: {dotted}: expected a table")
            changes[key] = _merge(current, value, origin, dotted + ".")
        else:
            changes[key] = _coerce(value, hints[key], f"{origin}: {dotted}")
            allowed = CHOICES.get(dotted)
            if allowed is not None and changes[key] not in allowed:
                raise ConfigError(
                    f"{origin}: {dotted} = {changes[key]!r}: use one of {', '.join(allowed)}"
                )
            low, meaning = MINIMUM.get(dotted, (None, ""))
            if low is not None and changes[key] < low:
                raise ConfigError(
                    f"{origin}: {dotted} = {changes[key]}: must be at least {low} ({meaning})"
                )
            floor, what = ABOVE.get(dotted, (None, ""))
            if floor is not None and changes[key] <= floor:
                raise ConfigError(
                    f"{origin}: {dotted} = {changes[key]:g}: must be more than {floor} ({what})"
                )
    return replace(obj, **changes)  # type: ignore[type-var]


def _load_toml(path: Path) -> dict[str, Any]:
    """The TOML file at ``path``, read through :func:`kb.safe_open.read_text`: a FIFO, a
    device, a link to one, a file over 1 MB or bytes that are not UTF-8 are one-line
    :class:`ConfigError` lines naming the file and what it is."""
    text = read_text(path, CONFIG)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def apply_toml(settings: Settings, data: dict[str, Any], origin: str) -> Settings:
    data = {k: v for k, v in data.items() if k != "home"}
    merged = _merge(settings, data, origin)
    return replace(merged, sources=(*settings.sources, origin))


def load_settings(home: Path | str | None = None, user_file: Path | None = None) -> Settings:
    """Build settings from every layer; ``home`` (the ``--kb`` flag) beats ``KB_HOME``."""
    s = Settings()
    s = apply_toml(s, tomllib.loads(packaged_defaults_text()), "default")
    ufile = user_file or user_config_path()
    check_kb_config(ufile if user_file is None else None)
    if _present(ufile):
        s = apply_toml(s, _load_toml(ufile), str(ufile))
    chosen, origin = (Path(home), "--kb") if home else (None, "")
    if chosen is None and os.environ.get("KB_HOME"):
        chosen, origin = Path(os.environ["KB_HOME"]), "KB_HOME"
    if chosen is None and "home" in _explicit_home(ufile):
        chosen, origin = Path(_explicit_home(ufile)["home"]), f"home in {show(ufile)}"
    if chosen is not None:
        check_home(chosen.expanduser(), origin)
    kb_home = (chosen or default_home()).expanduser().resolve()
    s = replace(s, home=kb_home)
    per_kb = kb_home / "config.toml"
    if _present(per_kb):
        s = apply_toml(s, _load_toml(per_kb), str(per_kb))
    return s


def check_home(path: Path, origin: str) -> None:
    """Refuse a KB folder (``--kb``, ``KB_HOME``, ``home`` in the user's file) that is
    not a folder, a symlink to one, or missing: ``--kb /tmp/x is a FIFO, not a folder;
    name the KB's folder`` (:func:`kb.safe_open.folder_problem`), exit 2, before
    anything is read or created there."""
    problem = folder_problem(path)
    if problem is not None:
        raise ConfigError(f"{origin} {show(path)} is {problem}; name the KB's folder")


def _present(path: Path) -> bool:
    """True when something is at ``path`` (a dangling link included): it is then read
    through :func:`_load_toml`, which refuses anything but a regular file, so a FIFO or
    a link to a device at a config path is an error, never silently skipped."""
    return os.path.lexists(path)


def check_kb_config(path: Path | None) -> None:
    """Raise :class:`ConfigError` when ``$KB_CONFIG`` names ``path`` and it is no regular
    file: ``does not exist``, ``is a folder``, ``is a FIFO, not a regular file``,
    ``is a symlink to /dev/zero (a character device), ...`` (:func:`kb.safe_open.what_is`)."""
    env = os.environ.get("KB_CONFIG")
    if not env or path is None:
        return
    what = what_is(path)
    if what == "a regular file":
        return
    if what == "missing":
        said = "does not exist; create it (`kb config show` prints every key)"
    elif what.startswith("a folder"):
        said = "is a folder; name a TOML file"
    else:
        said = f"is {what}; name a TOML file"
    raise ConfigError(f"KB_CONFIG={show(env)}: the file {said} or unset KB_CONFIG")


def _explicit_home(ufile: Path) -> dict[str, Any]:
    if _present(ufile):
        data = _load_toml(ufile)
        if isinstance(data.get("home"), str):
            return {"home": data["home"]}
    return {}


def override(settings: Settings, **dotted: Any) -> Settings:
    """Apply flag values, e.g. ``override(s, **{"search.k": 10})``; ``None`` values are skipped."""
    tree: dict[str, Any] = {}
    for key, value in dotted.items():
        if value is None:
            continue
        node = tree
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = list(value) if isinstance(value, tuple) else value
    if not tree:
        return settings
    return _merge(settings, tree, "command-line flag")
