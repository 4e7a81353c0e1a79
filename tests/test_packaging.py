"""The built wheel ships kb, ingest, eval and the default configuration."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (whl,) = out.glob("kb_rag-*.whl")
    return whl


def test_wheel_contains_packages_and_default_config(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "kb/_defaults/default.toml" in names
    for pkg in ("kb/__init__.py", "ingest/__init__.py", "eval/__init__.py", "kb/cli/__init__.py"):
        assert pkg in names
    assert not any(n.startswith("tests/") for n in names)
    # kb serve ships every asset: templates, scripts, CSS and the vendored pdf.js
    for asset in (
        "kb/serve/templates/ask.html",
        "kb/serve/static/app.css",
        "kb/serve/static/ask.js",
        "kb/serve/static/pdf-view.mjs",
        "kb/serve/static/vendor/pdfjs/pdf.min.mjs",
        "kb/serve/static/vendor/pdfjs/pdf.worker.min.mjs",
        "kb/serve/static/vendor/pdfjs/LICENSE",
    ):
        assert asset in names, asset
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "kb = kb.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_installed_wheel_runs_help_and_config_show(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    # Run from an unrelated folder with the installed copy first on the path, so the source
    # checkout (and its config/ folder) cannot be what answers.
    env = {**os.environ, "PYTHONPATH": str(target), "KB_HOME": str(tmp_path / "kbhome")}
    run = lambda *a: subprocess.run(  # noqa: E731
        [
            sys.executable,
            "-c",
            "import sys; from kb.cli import main; sys.argv=['kb',*sys.argv[1:]]; main()",
            *a,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    where = subprocess.run(
        [sys.executable, "-c", "import kb.config as c; print(c.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(target))
    h = run("--help")
    assert h.returncode == 0 and "ingest" in h.stdout
    c = run("config", "show")
    assert c.returncode == 0, c.stderr
    assert "[search]" in c.stdout and "# sources: default" in c.stdout
