"""``kb cache list`` and ``kb cache remove``: the machine's model cache.

The cache (:mod:`kb.backends.model_cache`) holds the derived model files every KB on
this machine shares: ONNX exports of the embedder, int8 copies, the requantized answer
model, the joined whisper model. ``list`` reads manifests and stat data only (``--verify``
hashes every file); ``remove`` deletes entries by name or, with ``--unused``, those no
existing KB is known to use (the cache's registry, written when a KB records or uses an
entry). An entry removed while a KB still uses it is made again on that KB's next use.
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer

from kb.cli.common import JsonOption, err, print_json
from kb.cli.help import command_kwargs, show_help_without_command

cache_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)


@cache_app.callback()
def _cache(ctx: typer.Context) -> None:
    """The model files kb made once for this machine, shared by every KB.

    The folder is $KB_MODEL_CACHE, else the user's cache directory (kb/models).

    \b
    Examples:
      kb cache list
      kb cache remove --unused --dry-run
    """
    show_help_without_command(ctx)


def human_bytes(n: int) -> str:
    """``1.2 GB``, ``87 MB``, ``412 KB``, ``12 B`` (powers of 1000)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{n} B"


def ago(ts: float | None, now: float | None = None) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``2 days ago``; ``never`` for ``None``."""
    if ts is None:
        return "never"
    s = max(0.0, (now or time.time()) - ts)
    if s < 60:
        return "just now"
    if s < 3600:
        return f"{int(s // 60)} min ago"
    if s < 86400:
        return f"{int(s // 3600)} h ago"
    return f"{int(s // 86400)} days ago"


def _options(opts: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(opts.items()) if k != "model_id") or "-"


@cache_app.command("list", **command_kwargs("Entries with kind, model, size and who uses them."))
def list_cache(
    verify: Annotated[
        bool, typer.Option("--verify", help="Hash every file against its manifest.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Every entry of the model cache: kind, source model, options, size, last use and
    the KBs known to use it. With --verify, each file is hashed against the manifest
    written when it was made (an entry that does not match is made again on next use).

    \b
    Examples:
      kb cache list
      kb cache list --verify --json
    """
    from kb.backends import model_cache

    root = model_cache.root()
    rows = model_cache.list_entries(root, full=verify)
    if json_out:
        print_json(
            {
                "root": str(root),
                "bytes": sum(r.bytes for r in rows),
                "entries": [r.to_dict() for r in rows],
            }
        )
        return
    total = human_bytes(sum(r.bytes for r in rows))
    typer.echo(f"model cache {root}: {len(rows)} entries, {total}")
    for r in rows:
        users = ", ".join(r.used_by) if r.used_by else "no KB known"
        typer.echo(
            f"  {r.name}  {r.kind}  {r.source}  ({_options(r.options)})  {human_bytes(r.bytes)}"
            f"  used {ago(r.last_used)}  by {users}"
        )
        for p in r.problems:
            typer.echo(f"    damaged: {p} (made again on next use)")


@cache_app.command("remove", **command_kwargs("Remove entries by name, or the unused ones."))
def remove_cache(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Entries as KIND/KEY (see `kb cache list`).", metavar="ENTRY"),
    ] = None,
    unused: Annotated[
        bool, typer.Option("--unused", help="Every entry no existing KB is known to use.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be removed; remove nothing.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before removing.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Remove model cache entries: those named, or with --unused every entry no existing
    KB is known to use. A KB that still uses a removed entry makes it again on its next
    use (a minute for an ONNX export). Asks first on a terminal; elsewhere needs --yes.

    \b
    Examples:
      kb cache remove --unused --dry-run
      kb cache remove --unused --yes
      kb cache remove onnx/3bb97742b4e8a9ba
    """
    from kb.backends import model_cache

    if not names and not unused:
        err("kb cache remove: name entries (KIND/KEY, see `kb cache list`) or pass --unused")
        raise typer.Exit(2)
    rows = model_cache.list_entries()
    by_name = {r.name: r for r in rows}
    unknown = [n for n in names or [] if n not in by_name]
    if unknown:
        err(
            f"kb cache remove: no entry {unknown[0]!r} in {model_cache.root()}; see `kb cache list`"
        )
        raise typer.Exit(2)
    chosen = [by_name[n] for n in names or []]
    if unused:
        chosen += [r for r in rows if not r.used_by and r not in chosen]
    freed = sum(r.bytes for r in chosen)
    if not dry_run and chosen and not yes:
        if not sys.stdin.isatty():
            err("kb cache remove: pass --yes to remove without asking (or --dry-run)")
            raise typer.Exit(2)
        typer.confirm(f"remove {len(chosen)} entries ({human_bytes(freed)})?", abort=True)
    if not dry_run:
        for r in chosen:
            model_cache.discard(r.path)
    if json_out:
        print_json(
            {
                "dry_run": dry_run,
                "removed": [r.to_dict() for r in chosen],
                "bytes": freed,
            }
        )
        return
    verb = "would remove" if dry_run else "removed"
    for r in chosen:
        still = f" (still used by {', '.join(r.used_by)})" if r.used_by else ""
        typer.echo(f"{verb} {r.name}  {r.source}  {human_bytes(r.bytes)}{still}")
    typer.echo(f"{verb} {len(chosen)} entries, {human_bytes(freed)}")


def model_files_check(home: Any, recorded: str | None, *, repair: bool = False) -> dict[str, Any]:
    """``kb doctor``'s model files: every cache entry the KB recorded (``meta``
    ``model_files``) or is registered to use, hashed against its manifest. With
    ``repair``, a damaged entry is removed (it is made again on next use). ``ok`` is
    false while a damaged entry remains."""
    import json
    from pathlib import Path

    from kb.backends import model_cache

    root = model_cache.root()
    try:
        meta = json.loads(recorded) if recorded else {}
    except ValueError:
        meta = {}
    names = {v for k, v in meta.items() if k != "cache" and isinstance(v, str)}
    names |= set(model_cache.registry(root).get(str(Path(home).resolve()), []))
    rows: list[dict[str, Any]] = []
    repaired: list[str] = []
    for name in sorted(names):
        path = root / name
        if not path.is_dir():
            rows.append({"entry": name, "path": str(path), "ok": True, "state": "not made yet"})
            continue
        problems = model_cache.verify(path)
        if problems and repair:
            model_cache.discard(path)
            repaired.append(f"removed the damaged model file entry {name} (made again on next use)")
            rows.append({"entry": name, "path": str(path), "ok": True, "state": "removed"})
            continue
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        rows.append(
            {
                "entry": name,
                "path": str(path),
                "ok": not problems,
                "state": "damaged" if problems else "verified",
                "bytes": size,
                "problems": problems,
            }
        )
    return {
        "cache": str(root),
        "ok": all(r["ok"] for r in rows),
        "entries": rows,
        "repaired": repaired,
    }


def model_files_lines(report: dict[str, Any] | None) -> list[str]:
    """``kb doctor`` lines for :func:`model_files_check`."""
    if not report:
        return []
    lines: list[str] = []
    for r in report["entries"]:
        if r["state"] == "verified":
            lines.append(
                f"  ok    model files {r['entry']} ({human_bytes(r['bytes'])}, sha256 checked)"
            )
        elif r["state"] == "damaged":
            lines.append(
                f"  FAIL  model files {r['entry']}: {r['problems'][0]} (`kb doctor --repair` "
                "removes it; it is made again on next use)"
            )
        else:
            lines.append(f"  note  model files {r['entry']}: {r['state']}")
    return lines
