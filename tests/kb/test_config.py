"""Settings layers: code defaults < shipped TOML < user file < KB file < KB_HOME < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.config import Settings, load_settings, override, packaged_defaults_text
from kb.errors import ConfigError


def test_shipped_defaults_match_code_defaults(kb_home: Path) -> None:
    # the TOML documents the defaults; both must agree so neither silently drifts
    s = load_settings()
    code = Settings()
    for section in ("ingest", "chunkers", "embedding", "whisper", "search", "llm", "prompt"):
        assert getattr(s, section) == getattr(code, section), section
    assert "[search]" in packaged_defaults_text()


def test_kb_home_env_and_flag(kb_home: Path, tmp_path: Path) -> None:
    assert load_settings().home == kb_home.resolve()
    assert load_settings(tmp_path / "other").home == (tmp_path / "other").resolve()


def test_user_file_then_kb_file_then_flags(
    kb_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[search]\nk = 9\nmode = "vector"\n[ingest]\nexclude = ["drafts/**"]\n')
    monkeypatch.setenv("KB_CONFIG", str(user))
    kb_home.mkdir(parents=True)
    (kb_home / "config.toml").write_text("[search]\nk = 7\n")
    s = load_settings()
    assert s.search.k == 7  # per-KB file beats the user file
    assert s.search.mode == "vector"  # user file beats shipped default
    assert s.ingest.exclude == ("drafts/**",)
    s2 = override(s, **{"search.k": 3, "search.mode": None})
    assert s2.search.k == 3 and s2.search.mode == "vector"
    assert str(user) in s.sources


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[search]\nkk = 1\n", "search.kk: unknown setting"),
        ("[nosuch]\nx = 1\n", "nosuch: unknown setting"),
        ('[search]\nk = "five"\n', "search.k: expected int"),
        ("[search\n", "invalid TOML"),
        ("search = 3\n", "search: expected a table"),
        (
            "[search]\nkeyword_index_threshold = -5\n",
            "search.keyword_index_threshold = -5: must be at least 0 (0 = never",
        ),
        ("[search]\nann_threshold = -1\n", "search.ann_threshold = -1: must be at least 0"),
        ("[llm]\nthreads = -1\n", "llm.threads = -1: must be at least 0 (0 = one per CPU core)"),
        ("[embedding]\nthreads = -2\n", "embedding.threads = -2: must be at least 0"),
        (
            '[llm]\nrequantize = "q4"\n',
            "llm.requantize = 'q4': use one of auto, off, q8_0, f16",
        ),
    ],
)
def test_bad_user_config_names_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, needle: str
) -> None:
    user = tmp_path / "user.toml"
    user.write_text(text)
    monkeypatch.setenv("KB_CONFIG", str(user))
    with pytest.raises(ConfigError) as e:
        load_settings()
    assert needle in str(e.value)
    assert str(user) in str(e.value)


def test_flag_with_wrong_type_is_a_config_error(kb_home: Path) -> None:
    with pytest.raises(ConfigError, match="search.k"):
        override(load_settings(), **{"search.k": "x"})


def test_kb_config_naming_a_missing_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "missing.toml"
    monkeypatch.setenv("KB_CONFIG", str(missing))
    with pytest.raises(ConfigError, match="KB_CONFIG=.*missing.toml: the file does not exist"):
        load_settings()
    monkeypatch.setenv("KB_CONFIG", str(tmp_path))  # a folder is no config file either
    with pytest.raises(ConfigError, match="is a folder"):
        load_settings()
