"""``kb chunks show FILE [--chunker A] [--vs B] [--golden GOLDEN] [--html OUT]``"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, output_path, print_json, settings_for
from kb.cli.help import command_kwargs, show_help_without_command

if TYPE_CHECKING:
    from kb.cli.chunks_view import Chunking, EvidenceMark
    from kb.config import Settings
    from kb.store import Store
    from kb.types import LoadedDocument

chunks_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)


@chunks_app.callback()
def _chunks(ctx: typer.Context) -> None:
    """Chunks: see how a chunking cuts one stored document.

    \b
    Examples:
      kb chunks show notes/todo.md
      kb chunks show wiki/Normans.md --vs window:size=128 --golden golden.yaml
    """
    show_help_without_command(ctx)


@chunks_app.command("show", **command_kwargs("One document's chunk boundaries, A beside B."))
def show(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE", help="The document as `kb docs` shows it, or its file path."
        ),
    ],
    chunker: Annotated[
        str | None,
        typer.Option(
            "--chunker",
            metavar="SPEC",
            help="Column A: chunk with SPEC. [default: the stored chunks]",
            show_default=False,
        ),
    ] = None,
    vs: Annotated[
        str | None,
        typer.Option(
            "--vs", metavar="SPEC", help="Column B: chunk with SPEC beside A.", show_default=False
        ),
    ] = None,
    golden: Annotated[
        Path | None,
        typer.Option(
            "--golden",
            metavar="GOLDEN",
            help="Mark this golden set's evidence spans in the document.",
            show_default=False,
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            callback=output_path,
            metavar="OUT",
            help="Also write an offline HTML view.",
            show_default=False,
        ),
    ] = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Show where the chunks of one stored document start and end: boundaries (chunk
    n runs from ⟦n to n⟧), overlaps, gaps (text no chunk holds) and, with --golden,
    the golden evidence spans (from ‹En to En›), column A beside column B.

    A is the stored chunking unless --chunker names another spec; --chunker and --vs
    run that chunker on the document's loaded text (plug-ins in their own process);
    nothing is embedded or stored. Offsets alone place every marker, and the text
    between markers is the document's, unchanged.

    \b
    Examples:
      kb chunks show notes/todo.md
      kb chunks show notes/todo.md --vs window:size=64,overlap=16
      kb chunks show wiki/Normans.md --golden golden.yaml --html normans.html
    """
    from kb.cli import chunks_render as render
    from kb.cli.chunks_view import Chunking
    from kb.cli.common import open_kb
    from kb.cli.eval_common import console, write_report
    from kb.errors import UsageError

    settings = settings_for(kb)
    with open_kb(settings) as store:
        row = _document(store, file)
        stored = [
            (int(r[0]), int(r[1]), str(r[2]))
            for r in store.conn.execute(
                "SELECT char_start, char_end, text FROM live_chunks WHERE document_id = ? "
                "AND char_start IS NOT NULL ORDER BY char_start, ord",
                (row["id"],),
            )
        ]
        doc = _load(settings, row)
        if doc is None and (chunker or vs):
            raise UsageError(
                f"{row['path']}: the file changed or is gone since it was ingested; "
                "run `kb ingest` before chunking it with --chunker/--vs"
            )
        if doc is None:
            from eval.token_space import rebuild_text

            err(f"kb: warning: {row['path']}: file changed or gone; text rebuilt from chunks")
            text = rebuild_text(stored)
        else:
            from ingest.chunkers.spans import document_text

            text = document_text(doc)
        label = f"stored: {row['chunker']} {row['chunker_version']} {row['chunker_params']}"
        cols = [
            _run(settings, chunker, doc)
            if chunker
            else Chunking(label, tuple((s, e) for s, e, _ in stored))
        ]
        if vs:
            cols.append(_run(settings, vs, doc))
        evidence = _evidence(store, golden, str(row["path"])) if golden else []
    path = str(row["path"])
    if html is not None:
        write_report(html, render.html_page(path, text, cols, evidence))
    if json_out:
        print_json(render.to_json(path, text, cols, evidence))
        return
    out = console()
    for col in cols:
        out.print(render.summary_line(text, col, evidence), highlight=False)
    for line in render.legend(evidence):
        out.print(line, highlight=False)
    if len(cols) == 1:
        out.print(render.terminal_text(text, cols[0], evidence))
        return
    from rich.table import Table

    t = Table(show_header=True, expand=True, show_lines=False)
    for col in cols:
        t.add_column(f"{'AB'[cols.index(col)]}: {col.label}", ratio=1)
    t.add_row(*(render.terminal_text(text, c, evidence) for c in cols))
    out.print(t)


def _document(store: Store, file: str) -> Any:
    from kb.errors import UsageError
    from kb.safe_open import show
    from kb.store.sources import abs_key

    try:
        key = abs_key(file)
    except (OSError, ValueError, RuntimeError):  # a NUL, a symlink loop: no file's key
        key = file
    row = store.conn.execute(
        "SELECT id, path, abs_path, content_hash, doc_type, chunker, chunker_version, "
        "chunker_params FROM documents WHERE (path = ? OR abs_path = ?) AND status = 'indexed'",
        (file, key),
    ).fetchone()
    if row is None:
        raise UsageError(f"{show(file)}: no such indexed document in the KB; see `kb docs`")
    return row


def _load(settings: Settings, row: Any) -> LoadedDocument | None:
    """The document loaded again from its file, or ``None`` when the file is gone or
    its content hash is no longer the stored one (offsets would not match)."""
    from ingest.loaders import LoadContext, loader_for
    from kb.errors import KbError
    from kb.safe_open import DOCUMENT, read_bytes

    path = Path(str(row["abs_path"] or ""))
    loader = loader_for(path)
    try:  # a file replaced by a FIFO or a device since the ingest is never opened
        data = read_bytes(path, DOCUMENT, int(settings.ingest.max_file_mb * 1_000_000))
    except KbError:
        return None
    digest = hashlib.sha256(data).hexdigest()
    if loader is None or digest != row["content_hash"]:
        return None

    def transcriber():  # type: ignore[no-untyped-def]
        from kb.backends.transcriber import make_transcriber

        return make_transcriber(settings.whisper, settings.home)

    ctx = LoadContext(settings, transcriber, settings.home / "cache")
    return loader.load(path, str(row["path"]), ctx)


def _run(settings: Settings, spec: str, doc: LoadedDocument | None) -> Chunking:
    from ingest.chunkers import make_chunker
    from kb.cli.chunks_view import Chunking

    assert doc is not None
    chunker = make_chunker(spec, settings)
    try:
        drafts = chunker.chunk(doc)
    finally:
        close = getattr(chunker, "close", None)
        if close is not None:
            close()
    info = chunker.info
    return Chunking(
        f"{info.name} {info.version} {info.params}",
        tuple((d.char_start, d.char_end) for d in drafts),
    )


def _evidence(store: Store, golden: Path, path: str) -> list[EvidenceMark]:
    """The golden set's evidence spans located in document ``path`` (the eval's
    resolution: the snippet found in the stored text)."""
    from eval.golden import load_golden
    from eval.resolve import Resolver
    from kb.cli.chunks_view import EvidenceMark

    gs = load_golden(golden)
    resolver = Resolver(store.conn, gs.corpus_dir)
    out: list[EvidenceMark] = []
    missed = 0
    for q in gs.queries:
        for s in q.supports:
            if resolver.kb_path(s.path) != path:
                continue
            r = resolver.resolve(s)
            if r.doc_span is None:
                missed += 1
                continue
            out.append(EvidenceMark(q.id, r.doc_span[0], r.doc_span[1]))
    if missed:
        err(f"kb: note: {missed} support(s) of {golden} in {path} have no located snippet")
    return sorted(out, key=lambda m: (m.start, m.end))
