"""Options left out cost nothing: typer coerces every parameter's value through a
pydantic ``TypeAdapter`` that it builds on first use, also for a value of ``None`` (an
option not given, the ``--help`` flag not asked for), which it then returns untouched.
Importing pydantic and building the adapters cost about 0.3 s of every command, more
than ``kb status`` spends on its own work.

:func:`defer_adapters` lets a parameter whose adapter is not yet built answer ``None``
(``()`` when it takes several values) exactly as typer's ``RuntimeParam.coerce`` does,
and builds typer's own coercion for the first real value, so every value that is given
is checked by typer as before. It changes nothing when typer has no such parameter
class (another typer version).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _NoneFirst:
    """Stands in for a parameter's runtime coercion until a value other than ``None``."""

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:  # typer's RuntimeParam.coerce, without building the adapter
            return () if param.multiple or param.nargs == -1 else None
        return self._build().coerce(value, param=param, ctx=ctx)


def defer_adapters() -> bool:
    """Install the deferral on typer's parameter class; ``False`` when this typer has no
    lazily built runtime coercion to defer."""
    try:
        from typer.core import _TyperParameter
    except ImportError:  # pragma: no cover - another typer
        return False
    original = getattr(_TyperParameter, "get_runtime_param", None)
    if original is None or not hasattr(_TyperParameter, "process_value"):
        return False  # pragma: no cover - another typer
    if getattr(original, "_kb_deferred", False):
        return True

    def get_runtime_param(self: Any) -> Any:
        if getattr(self, "_runtime_param", None) is None:
            return _NoneFirst(lambda: original(self))
        return original(self)

    get_runtime_param._kb_deferred = True  # type: ignore[attr-defined]
    _TyperParameter.get_runtime_param = get_runtime_param  # type: ignore[method-assign]
    return True
