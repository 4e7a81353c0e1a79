"""``kb mcp``'s stdio transport: the MCP SDK's ``stdio_server`` with JSON-RPC's own errors.

The SDK's transport hands a line it cannot parse to the session as an exception, and
the client gets a log notification instead of an answer. Here each incoming line is
checked first, and answered by the transport itself when it cannot go on:

- not JSON: ``{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, ...}}``
  (Parse error, as JSON-RPC 2.0 section 5.1 says);
- JSON, but not a JSON-RPC message: ``-32600`` (Invalid Request), with the ``id`` when
  the object has one;
- a ``tools/call`` whose ``question`` or ``query`` argument is over
  :data:`kb.limits.MAX_QUESTION_CHARS`: ``-32602`` (Invalid params) with the same words
  as the CLI's exit 5, before the request reaches a tool (so it never holds the
  answer lock).

A blank line is skipped. Everything else goes to the session as the SDK would send it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import Any

from kb.limits import JSONRPC_INVALID_PARAMS, MAX_QUESTION_CHARS, too_long_message

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
#: the tool arguments that carry a question or a query
TEXT_ARGUMENTS = {"question": "question", "query": "query"}


def error_line(code: int, message: str, id_: Any = None) -> str:
    """One JSON-RPC error response, as the line written to stdout."""
    return json.dumps({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})


def refusal(line: str) -> str | None:
    """The error line to answer ``line`` with, or ``None`` when it goes to the session."""
    try:
        obj = json.loads(line)
    except ValueError as e:
        return error_line(PARSE_ERROR, f"Parse error: {e}")
    if not isinstance(obj, dict) or obj.get("jsonrpc") != "2.0":
        id_ = obj.get("id") if isinstance(obj, dict) else None
        return error_line(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object", _id(id_))
    if obj.get("method") == "tools/call" and "id" in obj:
        params = obj.get("params")
        args = params.get("arguments") if isinstance(params, dict) else None
        if isinstance(args, dict):
            for key, what in TEXT_ARGUMENTS.items():
                value = args.get(key)
                if isinstance(value, str) and len(value) > MAX_QUESTION_CHARS:
                    return error_line(
                        JSONRPC_INVALID_PARAMS, too_long_message(len(value), what), _id(obj["id"])
                    )
    return None


def _id(value: Any) -> Any:
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


@asynccontextmanager
async def guarded_stdio_server(
    stdin: Any = None, stdout: Any = None
) -> AsyncIterator[tuple[Any, Any]]:
    """Like :func:`mcp.server.stdio.stdio_server`, with :func:`refusal` applied to every
    line; yields ``(read_stream, write_stream)`` for ``Server.run``."""
    import anyio
    import mcp.types as types
    from mcp.shared.message import SessionMessage

    # UTF-8 wrappers over the process's own streams, detached at the end: a wrapper that
    # is collected closes the stream under it, and kb still flushes stdout after this
    owned: list[TextIOWrapper] = []
    if stdin is None:
        owned.append(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        stdin = anyio.wrap_file(owned[-1])
    if stdout is None:
        owned.append(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
        stdout = anyio.wrap_file(owned[-1])
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    lock = anyio.Lock()

    async def emit(text: str) -> None:
        async with lock:
            await stdout.write(text + "\n")
            await stdout.flush()

    async def reader() -> None:
        async with read_writer:
            async for line in stdin:
                if not line.strip():
                    continue
                answer = refusal(line)
                if answer is not None:
                    await emit(answer)
                    continue
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except Exception:  # noqa: BLE001 - valid JSON, not a message the SDK knows
                    obj = json.loads(line)
                    await emit(error_line(INVALID_REQUEST, "Invalid Request", _id(obj.get("id"))))
                    continue
                await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                await emit(
                    session_message.message.model_dump_json(by_alias=True, exclude_none=True)
                )

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            yield read_stream, write_stream
    finally:
        for wrapper in owned:
            if wrapper.writable():
                wrapper.flush()
            wrapper.detach()


async def serve(server: Any) -> None:
    """Run a FastMCP ``server`` on the guarded stdio transport until stdin closes."""
    async with guarded_stdio_server() as (read_stream, write_stream):
        low = server._mcp_server
        await low.run(read_stream, write_stream, low.create_initialization_options())
