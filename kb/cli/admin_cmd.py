"""``kb status``, ``kb doctor``, ``kb reindex`` and ``kb config``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for

config_app = typer.Typer(help="Show the effective configuration and where it comes from.")


def status(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Documents and chunks by type and status, models and chunkers in use, store paths."""
    from kb.store import Store
    from kb.store.stats import store_stats

    settings = settings_for(kb)
    with Store.open(settings.home, create=False) as store:
        stats = store_stats(store)
    stats["configured"] = {
        "chunker": settings.ingest.chunker,
        "embedding_model": settings.embedding.model,
        "llm_model": settings.llm.model,
        "whisper_model": settings.whisper.model,
    }
    if json_out:
        print_json(stats)
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"[bold]KB[/bold] {stats['home']}")
    console.print(f"  sqlite  {stats['sqlite']}\n  lancedb {stats['lancedb']}")
    table = Table("type", "documents ok", "failed", "chunks embedded", "pending")
    for t in sorted(set(stats["documents"]) | set(stats["chunks"])):
        d, c = stats["documents"].get(t, {}), stats["chunks"].get(t, {})
        table.add_row(
            t,
            str(d.get("indexed", 0)),
            str(d.get("failed", 0)),
            str(c.get("embedded", 0)),
            str(c.get("pending", 0)),
        )
    console.print(table)
    m = stats["embedding_model"]
    console.print(
        f"embedding model: {m['id']} ({m['dim']} dims)" if m else "embedding model: none yet"
    )
    for ch in stats["chunkers"]:
        console.print(
            f"chunker: {ch['name']} v{ch['version']} {ch['params']} ({ch['chunks']} chunks)"
        )
    for f in stats["failed"]:
        console.print(f"[red]failed[/red] {f['path']}: {f['error']}", highlight=False)


def doctor(
    repair: Annotated[bool, typer.Option("--repair", help="Fix what was found.")] = False,
    devices: Annotated[
        bool, typer.Option("--devices/--no-devices", help="Report which device each backend uses.")
    ] = True,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Check SQLite against LanceDB (missing or orphan vectors, pending chunks, FTS sync).

    Exit code 0 when clean (or repaired), 1 when problems remain.
    """
    from kb.store import Store
    from kb.store.doctor import check
    from kb.store.doctor import repair as do_repair

    settings = settings_for(kb)
    with Store.open(settings.home, create=False) as store:
        report = check(store)
        if repair and not report.clean:
            do_repair(store, report)
            if store.count_chunks("pending"):
                from ingest.embedding import embed_pending
                from kb.backends.embedder import make_embedder

                n = embed_pending(
                    store, make_embedder(settings.embedding, home=store.home, purpose="ingest")
                )
                report.repaired.append(f"embedded {n} pending chunks")
            repaired = report.repaired
            report = check(store)
            report.repaired = repaired
    out: dict[str, Any] = report.to_dict()
    if devices:
        out["devices"] = device_report(settings)
    if json_out:
        print_json(out)
    else:
        for key, value in out.items():
            if key == "devices":
                for backend, info in value.items():
                    typer.echo(f"device {backend}: {info}")
            elif key != "repaired":
                typer.echo(f"{key}: {value}")
        for line in report.repaired:
            typer.echo(f"repaired: {line}")
    if not report.clean:
        err("kb: the KB needs repair; run `kb doctor --repair`")
        raise typer.Exit(1)


def device_report(settings: Any) -> dict[str, str]:
    """Which device each backend will use, without loading any model."""
    out: dict[str, str] = {}
    try:
        from kb.backends.embedder import resolve_device

        out["embeddings"] = resolve_device(settings.embedding.device)
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


def reindex(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Rebuild every vector from the chunks in SQLite with the configured embedding model.

    Use it after changing the embedding model. Chunks are not re-parsed.
    """
    import time

    from ingest.embedding import embed_pending
    from kb.backends.embedder import make_embedder
    from kb.store import Store
    from kb.store.sqlite import EmbeddingModelInfo

    settings = settings_for(kb)
    started = time.perf_counter()
    with Store.open(settings.home, create=False) as store:
        embedder = make_embedder(settings.embedding, home=store.home, purpose="ingest")
        with store.tx() as c:
            c.execute("UPDATE chunks SET embedding_status = 'pending'")
            c.execute("DELETE FROM vector_tombstones")
            store.set_embedding_model(EmbeddingModelInfo(embedder.model_id, embedder.dim))
        store.vectors.drop()
        n = embed_pending(store, embedder, settings.ingest.embed_batch_size)
    result = {
        "chunks_embedded": n,
        "model": embedder.model_id,
        "seconds": time.perf_counter() - started,
    }
    if json_out:
        print_json(result)
    else:
        typer.echo(f"reindexed {n} chunks with {embedder.model_id} in {result['seconds']:.1f}s")


@config_app.command("show")
def config_show(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Print the effective configuration (all layers applied) as TOML or JSON."""
    settings = settings_for(kb)
    data = settings.to_dict()
    if json_out:
        print_json(data)
        return
    typer.echo(f"# sources: {', '.join(settings.sources)}")
    typer.echo(_to_toml(data))


@config_app.command("path")
def config_path() -> None:
    """Print the user configuration file's path (it may not exist yet)."""
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
