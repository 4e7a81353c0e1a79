"""Consistency checks between SQLite (truth) and LanceDB (derived), and their repairs.

Checks:

- ``pending``: chunks not yet embedded (an interrupted ingest);
- ``missing_vectors``: chunks marked ``embedded`` whose vector is not in LanceDB;
- ``orphan_vectors``: vectors whose chunk no longer exists;
- ``tombstones``: deleted chunks whose vectors were not yet removed;
- ``fts``: the FTS5 index disagrees with the chunks table.

Repairs (:func:`repair`) never touch chunk rows' text: missing vectors are
marked pending again (re-embedded by the caller), orphans and tombstones are
deleted from LanceDB, and the FTS index is rebuilt from the chunks table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.store.sqlite import Store


@dataclass
class DoctorReport:
    pending: int = 0
    missing_vectors: list[int] = field(default_factory=list)
    orphan_vectors: list[int] = field(default_factory=list)
    tombstones: int = 0
    fts_ok: bool = True
    repaired: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return (
            not (self.pending or self.missing_vectors or self.orphan_vectors or self.tombstones)
            and self.fts_ok
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "pending_chunks": self.pending,
            "missing_vectors": len(self.missing_vectors),
            "orphan_vectors": len(self.orphan_vectors),
            "tombstones": self.tombstones,
            "fts_in_sync": self.fts_ok,
            "repaired": self.repaired,
        }


def check(store: Store) -> DoctorReport:
    embedded = store.chunk_ids("embedded")
    all_ids = store.chunk_ids()
    in_lance = store.vectors.ids()
    return DoctorReport(
        pending=store.count_chunks("pending"),
        missing_vectors=sorted(embedded - in_lance),
        orphan_vectors=sorted(in_lance - all_ids),
        tombstones=len(store.tombstones()),
        fts_ok=store.fts_integrity_ok(),
    )


def repair(store: Store, report: DoctorReport) -> DoctorReport:
    """Fix what :func:`check` found, except embedding pending chunks (needs a model)."""
    if report.orphan_vectors:
        store.vectors.delete(report.orphan_vectors)
        report.repaired.append(f"deleted {len(report.orphan_vectors)} orphan vectors")
    ts = store.tombstones()
    if ts:
        store.vectors.delete(ts)
        store.clear_tombstones(ts)
        report.repaired.append(f"applied {len(ts)} vector deletions")
    if report.missing_vectors:
        with store.tx() as c:
            c.executemany(
                "UPDATE chunks SET embedding_status = 'pending' WHERE id = ?",
                ((i,) for i in report.missing_vectors),
            )
        report.repaired.append(f"marked {len(report.missing_vectors)} chunks for re-embedding")
    if not report.fts_ok:
        store.rebuild_fts()
        report.repaired.append("rebuilt the full-text index")
    return report
