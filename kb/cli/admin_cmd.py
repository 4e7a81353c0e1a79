"""``kb status``, ``kb doctor``, ``kb reindex`` and ``kb config``."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for
from kb.cli.help import command_kwargs, show_help_without_command

config_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)


@config_app.callback()
def _config(ctx: typer.Context) -> None:
    """Show the effective configuration and where it comes from.

    \b
    Examples:
      kb config show
      kb config path
    """
    show_help_without_command(ctx)


def status(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Documents and chunks by type and status, sources, chunker, models and store paths.

    \b
    Examples:
      kb status
      kb status --json
    """
    import json

    from kb.search.ann_leg import describe
    from kb.search.keyword_lance import describe as describe_keyword
    from kb.store import Store
    from kb.store.sources import list_sources
    from kb.store.stats import store_stats

    settings = settings_for(kb)
    with Store.open(settings.home, create=False) as store:
        stats = store_stats(store)
        stats["vector_search"] = describe(store, settings.search.ann_threshold)
        stats["keyword_search"] = describe_keyword(store, settings.search.keyword_index_threshold)
        raw = store.meta_get("chunker")
        stats["sources"] = [s.to_dict() for s in list_sources(store, with_stats=True)]
    stats["chunker"] = json.loads(raw) if raw else None
    stats["configured"] = {
        "chunker": settings.ingest.chunker,
        "embedding_model": settings.embedding.model,
        "llm_model": settings.llm.model,
        "whisper_model": settings.whisper.model,
    }
    if json_out:
        print_json(stats)
        return
    typer.echo(status_text(stats))


def status_text(stats: dict[str, Any]) -> str:
    """``kb status`` as readable lines (no tables, no colour: fine in a pipe)."""
    from kb.types import plural

    t = stats["totals"]
    lines = [
        f"KB {stats['home']}",
        f"  {plural(t['documents'], 'document')} ({t['documents_failed']} failed), "
        f"{plural(t['chunks'], 'chunk')} ({t['chunks_embedded']} embedded, "
        f"{t['chunks_pending']} pending)",
    ]
    for typ in sorted(set(stats["documents"]) | set(stats["chunks"])):
        d, c = stats["documents"].get(typ, {}), stats["chunks"].get(typ, {})
        failed = f", {d['failed']} failed" if d.get("failed") else ""
        lines.append(
            f"  {typ:<6} {plural(d.get('indexed', 0), 'document')}{failed}, "
            f"{plural(c.get('embedded', 0) + c.get('pending', 0), 'chunk')}"
        )
    lines.append("sources:" if stats["sources"] else "sources: none yet; run `kb ingest PATH`")
    for src in stats["sources"]:
        lines.append(f"  {src['name']}  {src['path']}  {plural(src['documents'], 'document')}")
    ch = stats.get("chunker")
    if ch:
        params = ", ".join(f"{k}={v}" for k, v in sorted(ch["params"].items()))
        lines.append(f"chunker: {ch['name']} ({params}); change with `kb ingest --chunker NAME`")
    for chg in stats.get("chunkings") or []:
        if not chg["live"]:
            stale = ", stale" if chg["stale"] else ""
            lines.append(f"  also stored: {chg['spec']} ({chg['chunks']} chunks{stale})")
    m = stats["embedding_model"]
    lines.append(
        f"embedding model: {m['id']} ({m['dim']} dims)" if m else "embedding model: none yet"
    )
    cache = stats.get("embedding_cache")
    if cache:
        lines.append(
            f"embedding cache: {plural(cache['vectors'], 'vector')} "
            f"({cache['texts_used']} used by the chunkings, {cache['unused']} unused; "
            "`kb doctor --repair` drops unused ones)"
        )
    sv = stats.get("sentence_vectors")
    if sv and sv["chunks"]:
        rest = sv["chunks"] - sv["with_sentence_vectors"]
        hint = f"; `kb reindex --sentences` adds the other {rest}" if rest else ""
        lines.append(
            f"sentence vectors: {sv['with_sentence_vectors']} of {plural(sv['chunks'], 'chunk')}"
            f" (sentence rerank{hint})"
        )
    if stats.get("vector_search"):
        from kb.search.ann_leg import describe_line

        lines.append(describe_line(stats["vector_search"]))
    if stats.get("keyword_search"):
        from kb.search.keyword_lance import describe_line as keyword_line

        lines.append(keyword_line(stats["keyword_search"]))
    lines.append(f"sqlite: {stats['sqlite']}")
    lines.append(f"lancedb: {stats['lancedb']}")
    from kb.quoting import quote_name

    for f in stats["failed"]:
        lines.append(f"failed: {quote_name(f['path'])}: {f['error']}")
    return "\n".join(lines)


def doctor(
    repair: Annotated[bool, typer.Option("--repair", help="Fix what was found.")] = False,
    salvage: Annotated[
        bool,
        typer.Option(
            "--salvage",
            help="Damaged kb.sqlite: copy every readable row into a new database, keeping "
            "the damaged file beside it; `kb ingest` then restores the rest.",
        ),
    ] = False,
    deep: Annotated[
        bool,
        typer.Option(
            "--deep",
            help="SQLite's full PRAGMA integrity_check (also compares every index with its "
            "table) instead of the faster quick_check.",
        ),
    ] = False,
    devices: Annotated[
        bool, typer.Option("--devices/--no-devices", help="Report which device each backend uses.")
    ] = True,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Check the database's pages (SQLite's quick_check; --deep: integrity_check), then
    SQLite against LanceDB (missing vectors, pending chunks, FTS sync, unused cached
    vectors) and the sources.

    A damaged database is one line naming the unreadable tables; `kb doctor --salvage`
    is what repairs it. Everything else `kb doctor --repair` fixes.

    \b
    Examples:
      kb doctor
      kb doctor --deep
      kb doctor --repair --no-devices

    Exit code 0 when clean (or repaired), 1 when problems remain.
    """
    from kb.store import Store
    from kb.store.doctor import check
    from kb.store.doctor import repair as do_repair

    settings = settings_for(kb)
    from kb.store.lock import write_lock

    if salvage:
        with write_lock(settings.home, "kb doctor --salvage"):
            _salvage(settings.home, json_out)
        return
    lock: contextlib.AbstractContextManager[None] = (
        write_lock(settings.home, "kb doctor --repair") if repair else contextlib.nullcontext()
    )
    steps: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if repair:  # an index rebuild or an embedding shows how far it is
        from kb.cli.progress_steps import shown_steps

        steps = shown_steps(prefix="doctor")
    with lock, steps, Store.open(settings.home, create=False) as store:
        if repair:
            store.require_writable("kb doctor --repair")
        report = check(store, deep)
        model_meta = None if report.damaged else store.meta_get("model_files")
        if (
            repair
            and not report.damaged
            and (
                not report.clean
                or report.unused_vectors
                or report.unused_sentence_vectors
                or report.outdated_sentence_vectors
                or report.keyword_index_stale
                or report.ann_index_stale
            )
        ):
            do_repair(store, report)
            if store.count_chunks("pending") or report.outdated_sentence_vectors:
                from ingest.embedding import embed_pending
                from ingest.sentence_vectors import drop_stale, fill_missing
                from kb.backends.embedder import make_embedder

                embedder = make_embedder(settings.embedding, home=store.home, purpose="ingest")
                if store.count_chunks("pending"):
                    n = embed_pending(
                        store, embedder, sentences=settings.embedding.sentence_vectors
                    )
                    report.repaired.append(f"embedded {n} pending chunks")
                if report.outdated_sentence_vectors and settings.embedding.sentence_vectors:
                    from kb.types import plural

                    drop_stale(store, embedder.model_id)
                    n, _ = fill_missing(store, embedder)
                    report.repaired.append(
                        f"cut {plural(n, 'chunk text')} into sentences afresh and embedded them"
                    )
            repaired = report.repaired
            report = check(store, deep)
            report.repaired = repaired
    out: dict[str, Any] = report.to_dict()
    from kb.cli.cache_cmd import model_files_check

    out["model_files"] = model_files_check(settings.home, model_meta, repair=repair)
    out["repaired"] = [*out["repaired"], *out["model_files"]["repaired"]]
    if devices:
        out["devices"] = device_report(settings)
    if json_out:
        print_json(out)
    else:
        typer.echo(doctor_text(out))
    if report.damaged:
        err(f"kb: {settings.home / 'kb.sqlite'} is damaged; run `kb doctor --salvage`")
        raise typer.Exit(1)
    if not report.clean or not out["model_files"]["ok"]:
        err("kb: the KB needs repair; run `kb doctor --repair`")
        raise typer.Exit(1)


def doctor_text(out: dict[str, Any]) -> str:
    """``kb doctor`` as readable lines: one per check, then devices and repairs."""
    from kb.types import plural

    checks = [
        ("pending chunks", out["pending_chunks"], "chunk", "not yet embedded"),
        ("missing vectors", out["missing_vectors"], "embedded chunk", "without a vector"),
        ("vector tombstones", out["tombstones"], "deleted chunk id", "not yet cleared"),
    ]
    lines = ["the KB is consistent" if out["clean"] else "the KB needs repair"]
    db = out.get("database") or {"ok": True, "check": "quick_check"}
    if not db["ok"]:
        from kb.store.integrity import DatabaseCheck, finding_line

        found = DatabaseCheck(db["check"], db["problems"], db["damaged_tables"])
        lines.append(f"  FAIL  {finding_line(found)}")
        lines.extend(f"repaired: {line}" for line in out.get("repaired") or [])
        return "\n".join(lines)
    lines.append(f"  ok    database pages (SQLite {db['check']})")
    for name, n, noun, what in checks:
        lines.append(f"  ok    {name}" if n == 0 else f"  FAIL  {name}: {plural(n, noun)} {what}")
    lines.append(
        "  ok    full-text index" if out["fts_in_sync"] else "  FAIL  full-text index out of sync"
    )
    from kb.quoting import quote_name

    for bad in out.get("bad_sources") or []:
        lines.append(
            f"  FAIL  source {quote_name(bad['name'])}: {quote_name(bad['path'])} is "
            f"{bad['what']}; `kb doctor --repair` removes the source"
        )
    if out.get("unused_sentence_vectors"):
        lines.append(
            f"  note  sentence vectors: {plural(out['unused_sentence_vectors'], 'chunk text')} "
            "no chunking uses (`kb doctor --repair` drops them)"
        )
    if out.get("outdated_sentence_vectors"):
        lines.append(
            f"  note  sentence vectors: {plural(out['outdated_sentence_vectors'], 'chunk text')} "
            "cut into sentences by an older kb (embedded again at every query; "
            "`kb doctor --repair` or `kb reindex --sentences` stores them afresh)"
        )
    if out["unused_vectors"]:
        lines.append(
            f"  note  embedding cache: {plural(out['unused_vectors'], 'vector')} no chunking "
            "uses (kept so switching back is free; `kb doctor --repair` drops them)"
        )
    if out.get("keyword_index_stale"):
        lines.append(
            "  note  keyword index: out of date, keyword search uses FTS5 until "
            "`kb doctor --repair` or `kb reindex --keyword` rebuilds it"
        )
    if out.get("ann_index_stale"):
        lines.append(
            "  note  ANN index: out of date, vector search patches the difference exactly "
            "until `kb doctor --repair` or `kb reindex --ann` rebuilds it"
        )
    from kb.cli.cache_cmd import model_files_lines

    lines.extend(model_files_lines(out.get("model_files")))
    for backend, info in (out.get("devices") or {}).items():
        lines.append(f"device {backend}: {info}")
    for line in out.get("repaired") or []:
        lines.append(f"repaired: {line}")
    return "\n".join(lines)


def device_report(settings: Any) -> dict[str, str]:
    """Which device each backend will use, without loading any model."""
    out: dict[str, str] = {}
    try:
        from kb.backends.devices import gpu_present
        from kb.backends.embedder import resolve_device

        want = settings.embedding.device
        # no GPU driver: "auto" is the CPU, known without importing torch (seconds)
        out["embeddings"] = "cpu" if want == "auto" and not gpu_present() else resolve_device(want)
    except Exception as e:  # noqa: BLE001 - report, don't fail the doctor
        out["embeddings"] = f"unavailable ({e})"
    try:
        import ctranslate2

        want = settings.whisper.device
        cuda = ctranslate2.get_cuda_device_count() > 0
        out["whisper"] = "cuda" if want == "cuda" or (want == "auto" and cuda) else "cpu"
    except Exception as e:  # noqa: BLE001
        out["whisper"] = f"unavailable ({e})"
    try:
        from kb.backends.generator import llama_device_info

        info = llama_device_info(settings.llm)
        out["llama"] = ", ".join(f"{k}={v}" for k, v in info.items() if k != "system_info")
    except Exception as e:  # noqa: BLE001
        out["llama"] = f"unavailable ({e})"
    return out


def _salvage(home: Path, json_out: bool) -> None:
    from kb.errors import ReadOnlyStoreError, StoreError
    from kb.store import health
    from kb.store.salvage import salvage
    from kb.store.sqlite import DB_NAME

    db = home / DB_NAME
    if not db.is_file():
        raise StoreError(f"{home}: no KB database to salvage")
    if not health.writable(home, db):
        raise ReadOnlyStoreError(health.read_only_message(home, "kb doctor --salvage"))
    report = salvage(home)
    if json_out:
        print_json(report.to_dict())
    else:
        for line in report.lines():
            typer.echo(line)


AnnOption = Annotated[
    bool,
    typer.Option(
        "--ann",
        help="Only (re)build the ANN vector index over the stored vectors; nothing is "
        "re-embedded. It is searched once the KB has [search] ann_threshold chunks.",
    ),
]


SentencesOption = Annotated[
    bool,
    typer.Option(
        "--sentences",
        help="Only embed the sentence vectors that chunks lack (a KB ingested before "
        "they existed, or with [embedding] sentence_vectors = false) or that a newer kb "
        "cuts into sentences differently; chunk vectors are kept.",
    ),
]


KeywordOption = Annotated[
    bool,
    typer.Option(
        "--keyword",
        help="Only (re)build the keyword index (LanceDB full-text) from the chunks in "
        "SQLite. It is searched once the KB has [search] keyword_index_threshold chunks.",
    ),
]


def reindex(
    kb: KbOption = None,
    json_out: JsonOption = False,
    ann_only: AnnOption = False,
    sentences_only: SentencesOption = False,
    keyword_only: KeywordOption = False,
) -> None:
    """Rebuild every vector from the chunks in SQLite with the configured embedding model.

    Use it after changing the embedding model. Chunks are not re-parsed. With
    ``--ann``, only the ANN vector index is rebuilt from the stored vectors; with
    ``--keyword``, only the keyword index from the chunks (both flags: both). With
    ``--sentences``, only missing or outdated sentence vectors (the sentence rerank's)
    are embedded.

    \b
    Examples:
      kb reindex
      kb reindex --ann
      kb reindex --sentences
      kb reindex --keyword
    """
    import time

    from ingest.embedding import embed_pending
    from kb.backends.embedder import make_embedder
    from kb.progress import step
    from kb.store import ann
    from kb.store.sqlite import EmbeddingModelInfo

    settings = settings_for(kb)
    started = time.perf_counter()
    if ann_only or keyword_only:
        from kb.cli.reindex_parts import reindex_derived

        reindex_derived(settings, ann_only, keyword_only, json_out)
        return
    if sentences_only:
        from kb.cli.reindex_parts import reindex_sentences

        reindex_sentences(settings, json_out, started)
        return
    from kb.cli.reindex_parts import reindexing

    with reindexing(settings.home, "kb reindex") as store:
        embedder = make_embedder(settings.embedding, home=store.home, purpose="ingest")
        with store.tx() as c:
            c.execute("UPDATE chunks SET embedding_status = 'pending'")
            c.execute("DELETE FROM vector_tombstones")
            c.execute("DELETE FROM sentence_vectors")
            store.set_embedding_model(EmbeddingModelInfo(embedder.model_id, embedder.dim))
        store.vectors.drop()
        with step("embedding chunks", store.count_chunks("pending"), "chunks") as s:
            n = embed_pending(
                store,
                embedder,
                settings.ingest.embed_batch_size,
                on_batch=s.advance,
                sentences=settings.embedding.sentence_vectors,
            )
        with store.tx() as c:  # the dropped table took its indexes along
            c.execute("DELETE FROM meta WHERE key = ?", (ann.META_KEY,))
        ann.maintain(store, settings.search.ann_threshold, settings.search.ann_index)
        from kb.cli.ingest_cmd import write_search_cache

        write_search_cache(store, settings)
    result = {
        "chunks_embedded": n,
        "model": embedder.model_id,
        "seconds": time.perf_counter() - started,
    }
    if json_out:
        print_json(result)
    else:
        typer.echo(f"reindexed {n} chunks with {embedder.model_id} in {result['seconds']:.1f}s")


@config_app.command("show", **command_kwargs("Print the effective configuration."))
def config_show(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Print the effective configuration (all layers applied) as TOML or JSON.

    \b
    Examples:
      kb config show
      kb config show --json
    """
    settings = settings_for(kb)
    data = settings.to_dict()
    if json_out:
        print_json(data)
        return
    typer.echo(f"# sources: {', '.join(settings.sources)}")
    typer.echo(_to_toml(data))


@config_app.command("path", **command_kwargs("Print the user configuration file's path."))
def config_path() -> None:
    """Print the user configuration file's path (it may not exist yet).

    \b
    Examples:
      kb config path
    """
    from kb.config import user_config_path

    typer.echo(str(user_config_path()))


def _to_toml(data: dict[str, Any]) -> str:
    """Render nested dicts as TOML tables (``[a]``, ``[a.b]``), scalars as JSON literals."""
    import json

    blocks: list[str] = []

    def emit(node: dict[str, Any], name: str) -> None:
        scalars = [
            f"{k} = {json.dumps(v, ensure_ascii=False)}"
            for k, v in node.items()
            if not isinstance(v, dict)
        ]
        if scalars:
            blocks.append((f"[{name}]\n" if name else "") + "\n".join(scalars))
        for k, v in node.items():
            if isinstance(v, dict):
                emit(v, f"{name}.{k}" if name else k)

    emit({k: v for k, v in data.items() if k != "sources"}, "")
    return "\n\n".join(blocks) + "\n"
