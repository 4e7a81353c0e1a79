"""Hold every module's imports to the layering in shared/architecture.md (parsed with ast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = {"torch", "sentence_transformers", "lancedb", "llama_cpp", "faster_whisper"}
# kb serve / kb mcp only: never loaded by `kb --help` (checked like the model libraries)
HEAVY |= {"starlette", "uvicorn", "mcp", "jinja2"}

# the stdlib-only base layer every package may use
BASE = (
    "kb.types",
    "kb.errors",
    "kb.config",
    "kb.globs",
    "kb.hashing",
    "kb.quoting",
    "kb.sentence_spans",
    "kb.edits",
    "kb.months",
    "kb.safe_open",
    "kb.limits",
    "kb.lang",
    "kb.progress",
)

# module prefix -> kb-internal prefixes it may import
ALLOWED: dict[str, tuple[str, ...]] = {
    "kb.types": ("kb.quoting",),
    "kb.errors": (),
    "kb.globs": (),
    "kb.hashing": (),
    "kb.quoting": (),
    "kb.sentence_spans": ("kb.lang",),
    "kb.edits": (),
    "kb.months": ("kb.lang",),
    "kb.lang": ("kb.lang",),
    "kb.safe_open": ("kb.errors", "kb.quoting"),
    "kb.limits": ("kb.errors",),
    "kb.progress": ("kb.types",),
    "kb.config": ("kb.errors", "kb.safe_open"),
    "kb.store": (*BASE, "kb.store"),
    "kb.backends": (*BASE, "kb.backends"),
    "kb.search": (*BASE, "kb.store", "kb.backends", "kb.search"),
    "kb.rag": (*BASE, "kb.store", "kb.backends", "kb.search", "kb.rag"),
    "ingest": (*BASE, "kb.store", "kb.backends", "ingest"),
    "eval": (*BASE, "kb.store", "kb.backends", "kb.search", "kb.rag", "eval"),
    "kb.cli": ("kb", "ingest", "eval"),
    # the web app / API / MCP server: a composition root that reads, never ingests
    "kb.serve": ("kb", "eval"),
    "kb": ("kb",),  # kb/__init__.py, kb/__main__.py
}


def modules() -> list[tuple[str, Path]]:
    out = []
    for pkg in ("kb", "ingest", "eval"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            name = ".".join(p for p in rel.parts if p != "__init__")
            out.append((name, path))
    return out


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) pairs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append((child.module, top))
            nested = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            guarded = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            visit(child, top and not nested and not guarded)

    visit(tree, True)
    return found


def rule_for(name: str) -> tuple[str, ...]:
    best = max((p for p in ALLOWED if name == p or name.startswith(p + ".")), key=len)
    return ALLOWED[best]


@pytest.mark.parametrize(("name", "path"), modules(), ids=[m[0] for m in modules()])
def test_imports_follow_the_layering(name: str, path: Path) -> None:
    allowed = rule_for(name)
    for mod, _top in imports_of(path):
        root = mod.split(".")[0]
        if root not in {"kb", "ingest", "eval"}:
            continue
        ok = any(mod == a or mod.startswith(a + ".") for a in allowed)
        assert ok, f"{name} imports {mod}; allowed: {allowed}"


@pytest.mark.parametrize(("name", "path"), modules(), ids=[m[0] for m in modules()])
def test_heavy_libraries_are_imported_lazily_in_cli_and_base(name: str, path: Path) -> None:
    if not (name.startswith("kb.cli") or name in {"kb", "kb.types", "kb.errors", "kb.config"}):
        return
    for mod, top in imports_of(path):
        assert not (top and mod.split(".")[0] in HEAVY), f"{name} imports {mod} at module level"


#: the modules that may import llama_cpp or torch themselves: the ordered importer, and
#: code that runs only once it has loaded them (kb.backends.llama_import)
NATIVE_ORDER = {
    "llama_cpp": {"kb.backends.llama_import", "kb.backends.generator"},
    "torch": {"kb.backends.llama_import", "kb.backends.onnx_export"},
}


@pytest.mark.parametrize(("name", "path"), modules(), ids=[m[0] for m in modules()])
def test_llama_cpp_and_torch_are_imported_in_order(name: str, path: Path) -> None:
    """A CUDA build of llama-cpp-python crashes a process that imports onnxruntime or
    torch after it: kb imports both through kb.backends.llama_import, which puts
    onnxruntime first. generator.py imports names from llama_cpp only after a load
    through it, and onnx_export uses torch only once sentence-transformers loaded it."""
    for mod, _top in imports_of(path):
        root = mod.split(".")[0]
        if root in NATIVE_ORDER:
            assert name in NATIVE_ORDER[root], f"{name} imports {mod}: use kb.backends.llama_import"


#: the most lines a module of kb/rag may have: one concept per module (issue 52)
RAG_MAX_LINES = 600
#: the kb/rag modules still over the limit, to be split by the people editing them now;
#: this allow-list must shrink to empty, never grow
RAG_OVERSIZED: frozenset[str] = frozenset()


@pytest.mark.parametrize(
    "path", sorted((ROOT / "kb" / "rag").glob("*.py")), ids=lambda p: f"kb/rag/{p.name}"
)
def test_rag_modules_stay_under_600_lines(path: Path) -> None:
    if path.name in RAG_OVERSIZED:
        return
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= RAG_MAX_LINES, f"kb/rag/{path.name} has {n} lines (at most {RAG_MAX_LINES})"
