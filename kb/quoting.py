"""Show untrusted names (file paths, queries) on a terminal without letting them break it.

:func:`quote_name` leaves an ordinary name alone. A name holding a control character
(C0, DEL, C1), a Unicode format character (bidirectional overrides, zero-width marks:
category ``Cf``), a lone surrogate, a line or paragraph separator, a backslash or a
double quote *together with* one of those is shown the way ``git`` quotes paths: inside
double quotes, with ``\\n \\t \\r \\" \\\\`` and ``\\xHH`` / ``\\uHHHH`` escapes, so
``a<newline>b.md`` prints as ``"a\\nb.md"``. JSON output keeps the exact name; only the
terminal rendering uses this. Stdlib only.
"""

from __future__ import annotations

import unicodedata

_SIMPLE = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def needs_quoting(name: str) -> bool:
    """True when ``name`` holds a character that would be unsafe on a terminal."""
    return any(_unsafe(ch) for ch in name)


def _escape(ch: str) -> str:
    if ch in _SIMPLE:
        return _SIMPLE[ch]
    if not _unsafe(ch):
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def quote_name(name: str) -> str:
    """``name`` unchanged when safe, else git-style quoted and escaped (see module doc)."""
    if not needs_quoting(name):
        return name
    return '"' + "".join(_escape(ch) for ch in name) + '"'
