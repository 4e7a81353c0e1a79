"""The built wheel ships kb, ingest, eval and the default configuration."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

MAKEFILE = ROOT / "Makefile"


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


def test_constraints_pin_every_dependency_within_its_range() -> None:
    """`make install` installs with ``-c constraints.txt``: every dependency of kb (and
    of its ``models`` and ``dev`` extras) must be pinned there, at a version its range in
    pyproject.toml admits, or a fresh install would fail or float. torch and
    llama-cpp-python are pinned in the Makefile instead (their builds differ by machine)."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[canonicalize_name(name)] = version
    for m in re.finditer(r"(?m)^(?:TORCH|LLAMA)_SPEC \?= ([\w.-]+)==(\S+)$", MAKEFILE.read_text()):
        pins[canonicalize_name(m.group(1))] = m.group(2)  # pinned in the Makefile
    reqs = [*project["dependencies"]]
    for extra in ("models", "dev"):
        reqs += project["optional-dependencies"][extra]
    for spec in reqs:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in constraints.txt: run `make constraints`"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {req.name}=={pins[name]} outside {req.specifier}"
        )
