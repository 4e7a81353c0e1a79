"""Reading and writing the eval tables of a KB (``eval_runs``, ``eval_query_results``).

Every query result is written in its own transaction as soon as it is known, so an
interrupted run keeps what finished. A run is ``running`` while it goes,
``complete`` when every selected query ran, ``incomplete`` when it stopped early
(Ctrl-C, a fatal error). A run stored as ``running`` whose process (host, pid, start
time; :mod:`eval.process`) is gone, after a ``kill -9`` or a crash, reads as
``interrupted``. Both ``incomplete`` and ``interrupted`` runs can be resumed
(``kb eval run GOLDEN --resume NAME``).

Run names are unique within a KB: :meth:`EvalStore.create_run` refuses a name in use
unless ``replace`` is given, which deletes the old run first.

JSON columns: ``config`` (what was measured: chunkers, embedding model, GGUF hash,
prompt version, retrieval parameters, corpus fingerprint, index coverage),
``options`` (k, filters, answers on/off, selection), ``metrics`` (a cache of
:meth:`eval.metrics.MetricTable.to_json`, always recomputable from the rows).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from eval.process import alive, this_process
from eval.result import QueryResult
from kb.errors import UsageError
from kb.store import Store


@dataclass(frozen=True)
class RunRow:
    id: int
    name: str
    created_at: float
    finished_at: float | None
    status: str
    golden_path: str
    golden_hash: str
    config: dict[str, Any]
    options: dict[str, Any]
    metrics: dict[str, Any] | None
    n_results: int = 0
    host: str | None = None
    pid: int | None = None
    stored_status: str = ""

    @property
    def k(self) -> int:
        return int(self.options.get("k", 10))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            "status": self.status,
            "process": {"host": self.host, "pid": self.pid},
            "golden_path": self.golden_path,
            "golden_hash": self.golden_hash,
            "queries": self.n_results,
            "options": self.options,
            "config": self.config,
        }


def _loads(raw: Any, default: Any) -> Any:
    if raw is None or raw == "":
        return default
    try:
        return json.loads(raw)
    except ValueError:
        return default


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


class EvalStore:
    """The eval tables of one open :class:`kb.store.Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.conn = store.conn

    def create_run(
        self,
        name: str,
        golden_path: str,
        golden_hash: str,
        config: dict[str, Any],
        options: dict[str, Any],
        replace: bool = False,
    ) -> int:
        """A new ``running`` run owned by this process. A name in use is a
        :class:`UsageError` (suggesting a free name or ``--replace``) unless ``replace``,
        which deletes the old run(s) of that name in the same transaction."""
        host, pid = this_process()
        with self.store.tx() as c:
            old = [r[0] for r in c.execute("SELECT id FROM eval_runs WHERE name = ?", (name,))]
            if old and not replace:
                raise UsageError(
                    f"an eval run named {name!r} already exists in {self.store.home}; "
                    f"choose another --name (e.g. {self.free_name(name)!r}) or pass --replace"
                )
            for run_id in old:
                c.execute("DELETE FROM eval_query_results WHERE run_id = ?", (run_id,))
                c.execute("DELETE FROM eval_runs WHERE id = ?", (run_id,))
            cur = c.execute(
                "INSERT INTO eval_runs (name, created_at, status, golden_path, golden_hash, "
                "config, options, host, pid) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    time.time(),
                    golden_path,
                    golden_hash,
                    _dumps(config),
                    _dumps(options),
                    host,
                    pid,
                ),
            )
            return int(cur.lastrowid or 0)

    def free_name(self, base: str) -> str:
        """``base`` if no run has it, else the first free ``base-2``, ``base-3``, ..."""
        taken = {str(r[0]) for r in self.conn.execute("SELECT name FROM eval_runs")}
        if base not in taken:
            return base
        n = 2
        while f"{base}-{n}" in taken:
            n += 1
        return f"{base}-{n}"

    def claim_run(self, run_id: int) -> None:
        """Mark a stopped run ``running`` again, owned by this process (a resume)."""
        host, pid = this_process()
        with self.store.tx() as c:
            c.execute(
                "UPDATE eval_runs SET status = 'running', finished_at = NULL, host = ?, pid = ?, "
                "created_at = ? WHERE id = ?",
                (host, pid, time.time(), run_id),
            )

    def save_result(self, run_id: int, r: QueryResult) -> None:
        timings = dict(r.timings)
        if r.error_stage:
            timings["error_stage"] = r.error_stage
        with self.store.tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO eval_query_results (run_id, query_id, position, query, "
                "hits, answer, timings, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    r.query_id,
                    r.position,
                    _dumps(r.query_json()),
                    _dumps([h.to_dict() for h in r.hits]),
                    None if r.answer is None else _dumps(r.answer.to_dict()),
                    _dumps(timings),
                    r.error,
                ),
            )

    def update_answer(self, run_id: int, r: QueryResult) -> None:
        """Rewrite a stored answer (the judge adds its scores afterwards)."""
        with self.store.tx() as c:
            c.execute(
                "UPDATE eval_query_results SET answer = ? WHERE run_id = ? AND query_id = ?",
                (None if r.answer is None else _dumps(r.answer.to_dict()), run_id, r.query_id),
            )

    def finish_run(
        self,
        run_id: int,
        status: str,
        metrics: dict[str, Any] | None,
        config: dict[str, Any] | None = None,
    ) -> None:
        with self.store.tx() as c:
            c.execute(
                "UPDATE eval_runs SET status = ?, finished_at = ?, metrics = ? WHERE id = ?",
                (status, time.time(), None if metrics is None else _dumps(metrics), run_id),
            )
            if config is not None:
                c.execute("UPDATE eval_runs SET config = ? WHERE id = ?", (_dumps(config), run_id))

    def set_metrics(self, run_id: int, metrics: dict[str, Any]) -> None:
        with self.store.tx() as c:
            c.execute("UPDATE eval_runs SET metrics = ? WHERE id = ?", (_dumps(metrics), run_id))

    def list_runs(self) -> list[RunRow]:
        rows = self.conn.execute(
            "SELECT r.*, (SELECT count(*) FROM eval_query_results q WHERE q.run_id = r.id) AS n "
            "FROM eval_runs r ORDER BY r.id"
        ).fetchall()
        return [_run(r) for r in rows]

    def get_run(self, run_id: int) -> RunRow | None:
        r = self.conn.execute(
            "SELECT r.*, (SELECT count(*) FROM eval_query_results q WHERE q.run_id = r.id) AS n "
            "FROM eval_runs r WHERE r.id = ?",
            (run_id,),
        ).fetchone()
        return None if r is None else _run(r)

    def find_run(self, ref: str) -> RunRow:
        """``ref`` is a run id or a name (the latest run with that name)."""
        ref = ref.strip()
        if ref.isdigit():
            row = self.get_run(int(ref))
            if row is not None:
                return row
        r = self.conn.execute(
            "SELECT id FROM eval_runs WHERE name = ? ORDER BY id DESC LIMIT 1", (ref,)
        ).fetchone()
        if r is None:
            raise UsageError(f"no eval run {ref!r} in {self.store.home}; see `kb eval list`")
        row = self.get_run(int(r[0]))
        assert row is not None
        return row

    def results(self, run_id: int) -> list[QueryResult]:
        rows = self.conn.execute(
            "SELECT position, query, hits, answer, timings, error FROM eval_query_results "
            "WHERE run_id = ? ORDER BY position",
            (run_id,),
        ).fetchall()
        return [
            QueryResult.from_row(
                int(r[0]),
                _loads(r[1], {}),
                _loads(r[2], []),
                _loads(r[3], None),
                _loads(r[4], {}),
                r[5],
            )
            for r in rows
        ]

    def delete_run(self, run_id: int) -> None:
        with self.store.tx() as c:
            c.execute("DELETE FROM eval_query_results WHERE run_id = ?", (run_id,))
            c.execute("DELETE FROM eval_runs WHERE id = ?", (run_id,))


def _run(r: Any) -> RunRow:
    keys = r.keys()
    host = r["host"] if "host" in keys else None
    pid = r["pid"] if "pid" in keys else None
    stored = str(r["status"])
    status = stored
    if stored == "running" and alive(host, pid, float(r["created_at"])) is False:
        status = "interrupted"
    return RunRow(
        id=int(r["id"]),
        name=str(r["name"]),
        created_at=float(r["created_at"]),
        finished_at=r["finished_at"],
        status=status,
        golden_path=str(r["golden_path"]),
        golden_hash=str(r["golden_hash"]),
        config=_loads(r["config"], {}),
        options=_loads(r["options"], {}),
        metrics=_loads(r["metrics"], None),
        n_results=int(r["n"]),
        host=host,
        pid=None if pid is None else int(pid),
        stored_status=stored,
    )
