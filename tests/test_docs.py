"""The manual is tested: generated pages are current, the site builds with --strict, the
runnable shell examples run against a demo KB with the exit code they declare, the README
stays short and links into docs/, and nothing a user receives points outside the repository.

A runnable example is a fenced ``bash`` block right after ``<!-- runnable -->`` (exit 0
expected) or ``<!-- runnable: exit N -->``; each of its lines is one command.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
VENV_BIN = Path(sys.executable).parent
RUNNABLE = re.compile(r"<!--\s*runnable(?::\s*exit\s+(\d+))?\s*-->\s*\n```bash\n(.*?)\n```", re.S)
README_MAX_LINES = 250


def _load_gen():
    spec = importlib.util.spec_from_file_location("docs_gen", DOCS / "gen.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_pages_are_current() -> None:
    """(a) docs/gen.py's output equals the committed pages."""
    pages = _load_gen().generate()
    assert {"reference/index.md", "configuration.md", "api.md", "metrics.md"} <= set(pages)
    stale = [
        rel
        for rel, text in pages.items()
        if not (DOCS / rel).is_file() or (DOCS / rel).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"generated docs pages are stale: {', '.join(stale)}; run `make docs`"
    committed = {p.relative_to(DOCS).as_posix() for p in (DOCS / "reference").glob("*.md")}
    extra = committed - set(pages)
    assert not extra, f"docs/reference has pages no command makes: {sorted(extra)}; run `make docs`"


def test_reference_covers_every_command_and_option() -> None:
    """Every command and option of the app appears in its generated page."""
    from typer.main import get_command

    from kb.cli import app

    root: Any = get_command(app)
    for name, cmd in root.commands.items():
        page = (DOCS / "reference" / f"{name}.md").read_text(encoding="utf-8")
        todo = [(f"kb {name}", cmd)]
        while todo:
            path, c = todo.pop()
            assert re.search(rf"^#+ {re.escape(path)}$", page, re.M), (
                f"{path} missing from docs/reference/{name}.md"
            )
            for p in c.params:
                for opt in getattr(p, "opts", []):
                    if opt.startswith("-") and not getattr(p, "hidden", False):
                        assert f"`{opt}`" in page, f"{path} {opt} missing from {name}.md"
            for sub_name, sub in getattr(c, "commands", {}).items():
                todo.append((f"{path} {sub_name}", sub))


def test_configuration_page_has_every_key() -> None:
    import tomllib

    from kb.config import packaged_defaults_text

    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    data = tomllib.loads(packaged_defaults_text())

    def walk(prefix: str, d: dict) -> None:
        for k, v in d.items():
            if isinstance(v, dict):
                walk(f"{prefix}.{k}" if prefix else k, v)
            else:
                assert f"## `[{prefix}]`" in page and f"| `{k}` |" in page, f"{prefix}.{k}"

    walk("", data)
    blank = re.findall(r"^\| `(\w+)` \| [^|]+ \| [^|]+ \|  \|$", page, re.M)
    assert not blank, f"configuration keys without a meaning: {blank}; comment them in "
    "config/default.toml or add them to docs/gen.py's MEANINGS"


@pytest.mark.slow
def test_site_builds_strict(tmp_path: Path) -> None:
    """(b) mkdocs build --strict: a broken link or anchor fails. Never with -q: mkdocs then
    drops the warnings that --strict counts, and a broken link passes."""
    mkdocs = VENV_BIN / "mkdocs"
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (pip install -e '.[dev]' -c constraints.txt)")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "search.html").is_file()

    # the same build fails on a broken anchor: the check above can fail
    broken = tmp_path / "broken"
    shutil.copytree(DOCS, broken / "docs")
    shutil.copy(ROOT / "mkdocs.yml", broken / "mkdocs.yml")
    with (broken / "docs" / "index.md").open("a", encoding="utf-8") as f:
        f.write("\n[gone](search.md#no-such-section)\n")
    bad = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", str(broken / "site")],
        cwd=broken,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode != 0 and "no-such-section" in bad.stdout + bad.stderr


def _runnable_examples() -> list[tuple[str, int, str]]:
    found = []
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for m in RUNNABLE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append((f"{page.relative_to(ROOT)}:{line}", int(m.group(1) or 0), m.group(2)))
    return found


def test_runnable_examples_are_marked() -> None:
    examples = _runnable_examples()
    assert len(examples) >= 4, examples
    assert sum("kb ask" in body for _, _, body in examples) <= 1, "at most one kb ask example"


@pytest.mark.slow
def test_runnable_examples_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    """(c) every runnable example, run with the real kb against a demo KB."""
    kb = VENV_BIN / "kb"
    assert kb.exists(), f"{kb} missing: install kb into the venv"
    home = tmp_path_factory.mktemp("kb-home")
    env = {
        **os.environ,
        "KB_HOME": str(home),
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HF_HUB_OFFLINE": "1",
        "NO_COLOR": "1",
    }
    env.pop("KB_CONFIG", None)
    first = subprocess.run(
        [str(kb), "ingest", "fixtures/demo", "-q"], cwd=ROOT, env=env, capture_output=True
    )
    assert first.returncode == 0, first.stderr.decode()
    failures = []
    for where, expected, body in _runnable_examples():
        for cmd in body.splitlines():
            cmd = cmd.split(" #", 1)[0].strip()
            if not cmd or cmd.startswith("#"):
                continue
            run = subprocess.run(
                ["bash", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
            )
            if run.returncode != expected:
                failures.append(
                    f"{where}: `{cmd}` exited {run.returncode}, expected {expected}: "
                    f"{run.stderr.strip()[-300:]}"
                )
    assert not failures, "\n".join(failures)


def _slug(heading: str) -> str:
    """The anchor mkdocs' toc extension gives a heading (its default slugify)."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def test_readme_is_short_and_links_resolve() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    n = len(readme.splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines; keep it <= {README_MAX_LINES}"
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#([^)]*))?\)", readme)
    assert links, "the README links into docs/"
    missing = [link for link, _ in links if not (ROOT / link).is_file()]
    assert not missing, f"README.md links to missing docs files: {missing}"
    for link, anchor in links:
        if anchor:
            heads = re.findall(r"^#+ (.+)$", (ROOT / link).read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in heads}, (
                f"README.md: {link}#{anchor} has no such heading"
            )
    first_screen = "\n".join(readme.splitlines()[:50])
    for what in ("make demo", "make test", "kb ingest", "kb ask", "kb eval"):
        assert what in first_screen, f"README's first 50 lines should show `{what}`"


SHIPPED = ["kb", "ingest", "eval", "config", "fixtures", "docs", "README.md", "CHANGELOG.md",
           "pyproject.toml", "Makefile"]  # fmt: skip
OUTSIDE = re.compile(r"(?<![\w.-])(\.\./)*shared/")


def _tracked(paths: list[str]) -> list[Path]:
    if shutil.which("git") and (ROOT / ".git").exists():
        out = subprocess.run(
            ["git", "ls-files", "-z", "--", *paths], cwd=ROOT, capture_output=True, check=True
        )
        return [ROOT / p for p in out.stdout.decode().split("\0") if p]
    files: list[Path] = []
    for p in paths:
        path = ROOT / p
        files += [f for f in path.rglob("*") if f.is_file()] if path.is_dir() else [path]
    return files


def test_no_reference_outside_the_repository() -> None:
    """(d) nothing users receive points at shared/ or ../shared."""
    hits = []
    for path in _tracked(SHIPPED):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:120]}")
    assert not hits, "references outside the repository:\n" + "\n".join(hits)


def test_outside_pattern_catches_what_it_must() -> None:
    assert OUTSIDE.search("see shared/golden-format.md")
    assert OUTSIDE.search("(``../shared/x``)")
    assert not OUTSIDE.search("shared by every KB; kb/shared_cache.py")
