"""Consistency checks between SQLite (truth) and LanceDB (derived), and their repairs.

Checks:

- ``pending``: chunks not yet embedded (an interrupted ingest);
- ``missing_vectors``: chunks marked ``embedded`` whose text's vector is not in the
  embedding cache (:mod:`kb.store.embeddings`);
- ``tombstones``: deleted chunk ids not yet cleared;
- ``fts``: the FTS5 index disagrees with the live chunking's chunks.

Also reported, not a fault: ``keyword_index_stale``, a derived LanceDB keyword index
(:mod:`kb.store.keyword_index`) that no longer covers exactly the live chunks (search
falls back to FTS5 until it is brought up to date); ``--repair`` rebuilds it.

Reported, not a fault: ``unused_vectors``, cached vectors whose text no chunk of any
chunking embeds (a dropped chunking, an edited document). Keeping them makes
switching back free; ``--repair`` drops them. Likewise ``unused_sentence_vectors``:
stored sentence vectors (:mod:`kb.store.sentences`) of texts no chunk has, or of
another model. And ``outdated_sentence_vectors``: rows cut into sentences differently
by an older kb (:func:`kb.store.sentences.outdated`); search and ``kb ask`` embed those
sentences at every query until ``kb doctor --repair`` (or ``kb reindex --sentences``)
stores them afresh.

Repairs (:func:`repair`) never touch chunk rows' text: missing vectors are
marked pending again (re-embedded by the caller), unused vectors are deleted from
LanceDB, tombstones cleared, and the FTS index (and a stale keyword index) rebuilt
from the live chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.store import keyword_index, sentences
from kb.store.embeddings import drop_unused, missing_chunks, unused_keys
from kb.store.sqlite import Store


@dataclass
class DoctorReport:
    pending: int = 0
    missing_vectors: list[int] = field(default_factory=list)
    unused_vectors: list[tuple[str, str]] = field(default_factory=list)
    unused_sentence_vectors: list[tuple[str, str]] = field(default_factory=list)
    outdated_sentence_vectors: int = 0
    tombstones: int = 0
    fts_ok: bool = True
    keyword_index_stale: bool = False
    repaired: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.pending or self.missing_vectors or self.tombstones) and self.fts_ok

    def to_dict(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "pending_chunks": self.pending,
            "missing_vectors": len(self.missing_vectors),
            "unused_vectors": len(self.unused_vectors),
            "unused_sentence_vectors": len(self.unused_sentence_vectors),
            "outdated_sentence_vectors": self.outdated_sentence_vectors,
            "tombstones": self.tombstones,
            "fts_in_sync": self.fts_ok,
            "keyword_index_stale": self.keyword_index_stale,
            "repaired": self.repaired,
        }


def check(store: Store) -> DoctorReport:
    model = store.embedding_model()
    return DoctorReport(
        outdated_sentence_vectors=0
        if model is None
        else len(sentences.outdated(store, model.model_id)),
        pending=store.count_chunks("pending", chunking="all"),
        missing_vectors=missing_chunks(store),
        unused_vectors=unused_keys(store),
        unused_sentence_vectors=sentences.unused_keys(store),
        tombstones=len(store.tombstones()),
        fts_ok=store.fts_integrity_ok(),
        keyword_index_stale=keyword_index.recorded(store) is not None
        and not keyword_index.is_current(store),
    )


def repair(store: Store, report: DoctorReport) -> DoctorReport:
    """Fix what :func:`check` found, except embedding pending chunks (needs a model)."""
    if report.unused_vectors:
        n = drop_unused(store, report.unused_vectors)
        report.repaired.append(f"dropped {n} cached vectors no chunking uses")
    if report.unused_sentence_vectors:
        n = sentences.delete(store, report.unused_sentence_vectors)
        report.repaired.append(f"dropped the sentence vectors of {n} texts no chunking uses")
    ts = store.tombstones()
    if ts:
        store.clear_tombstones(ts)
        report.repaired.append(f"cleared {len(ts)} deleted chunk ids")
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
    if report.keyword_index_stale:
        keyword_index.build(store)
        report.repaired.append("rebuilt the keyword index")
    return report
