"""Consistency checks between SQLite (truth) and LanceDB (derived), and their repairs.

Checks:

- ``database``: SQLite's own ``PRAGMA quick_check`` (``integrity_check`` with
  ``deep``), and on damage the tables whose rows cannot be read
  (:mod:`kb.store.integrity`). A damaged database is repaired only by ``kb doctor
  --salvage``; the other checks are skipped (their queries would read damaged pages);
- ``pending``: chunks not yet embedded (an interrupted ingest);
- ``missing_vectors``: chunks marked ``embedded`` whose text's vector is not in the
  embedding cache (:mod:`kb.store.embeddings`);
- ``tombstones``: deleted chunk ids not yet cleared;
- ``fts``: the FTS5 index disagrees with the live chunking's chunks;
- ``bad_sources``: a recorded source that is not a folder or a regular file (a FIFO, a
  device, a link to one: recorded by an older kb, e.g. ``kb ingest zero.md`` with
  ``zero.md -> /dev/zero``); ``--repair`` removes the source and its documents. A
  source whose path is merely missing is not a fault here (``kb ingest`` reports it).

Also reported, not a fault: ``keyword_index_stale``, a derived LanceDB keyword index
(:mod:`kb.store.keyword_index`) that no longer covers exactly the live chunks (search
falls back to FTS5 until it is brought up to date); ``--repair`` rebuilds it.

Also reported, not a fault: ``ann_index_stale``, kb's faiss ANN index file
(:mod:`kb.store.ann_faiss`, when it is the recorded index) missing, unreadable, or no
longer covering exactly the embedded live chunks (search patches a small difference
over exactly, and searches exactly past that); ``--repair`` rebuilds it.

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
LanceDB, tombstones cleared, and the FTS index (and a stale keyword index or faiss
ANN index) rebuilt from the live chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.store import keyword_index, sentences
from kb.store.embeddings import drop_unused, missing_chunks, unused_keys
from kb.store.integrity import DatabaseCheck, check_database
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
    ann_index_stale: bool = False
    #: (name, path, what it is) of each source that is no folder or regular file
    bad_sources: list[tuple[str, str, str]] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    database: DatabaseCheck = field(default_factory=lambda: DatabaseCheck("quick_check"))

    @property
    def clean(self) -> bool:
        faults = self.pending or self.missing_vectors or self.tombstones or self.bad_sources
        return not faults and self.fts_ok and self.database.ok

    @property
    def damaged(self) -> bool:
        """SQLite found damage: only ``kb doctor --salvage`` repairs it."""
        return not self.database.ok

    def to_dict(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "database": self.database.to_dict(),
            "pending_chunks": self.pending,
            "missing_vectors": len(self.missing_vectors),
            "unused_vectors": len(self.unused_vectors),
            "unused_sentence_vectors": len(self.unused_sentence_vectors),
            "outdated_sentence_vectors": self.outdated_sentence_vectors,
            "tombstones": self.tombstones,
            "fts_in_sync": self.fts_ok,
            "keyword_index_stale": self.keyword_index_stale,
            "ann_index_stale": self.ann_index_stale,
            "bad_sources": [{"name": n, "path": p, "what": w} for n, p, w in self.bad_sources],
            "repaired": self.repaired,
        }


def check(store: Store, deep: bool = False) -> DoctorReport:
    database = check_database(store.conn, deep)
    if not database.ok:
        return DoctorReport(database=database, fts_ok=True)
    model = store.embedding_model()
    keys = store.vectors.keys()  # one read of the cache's keys for both vector checks
    return DoctorReport(
        outdated_sentence_vectors=0
        if model is None
        else len(sentences.outdated(store, model.model_id)),
        pending=store.count_chunks("pending", chunking="all"),
        missing_vectors=missing_chunks(store, keys),
        unused_vectors=unused_keys(store, keys),
        unused_sentence_vectors=sentences.unused_keys(store),
        tombstones=len(store.tombstones()),
        fts_ok=store.fts_integrity_ok(),
        keyword_index_stale=keyword_index.recorded(store) is not None
        and not keyword_index.is_current(store),
        ann_index_stale=faiss_index_stale(store),
        bad_sources=bad_sources(store),
        database=database,
    )


def faiss_index_stale(store: Store) -> bool:
    """Whether the recorded ANN index is kb's faiss file and that file is not current."""
    from kb.store import ann, ann_faiss

    rec = ann.recorded(store)
    if rec is None or rec.get("type") != ann_faiss.TYPE:
        return False
    return not ann_faiss.check(store)


def bad_sources(store: Store) -> list[tuple[str, str, str]]:
    """``(name, path, what)`` of every source that is not (a link to) a folder or a
    regular file (:func:`kb.safe_open.source_problem`); a missing path is not listed."""
    from kb.safe_open import source_problem
    from kb.store.sources import list_sources

    out = []
    for src in list_sources(store):
        what = source_problem(src.path)
        if what is not None and what != "missing":
            out.append((src.name, src.path, what))
    return out


def repair(store: Store, report: DoctorReport) -> DoctorReport:
    """Fix what :func:`check` found, except embedding pending chunks (needs a model)
    and a damaged database (``kb doctor --salvage``: SQLite refuses to rewrite a damaged
    b-tree, so nothing is tried)."""
    if report.damaged:
        return report
    if report.bad_sources:
        from kb.store.sources import find_source, remove_source
        from kb.types import plural

        for name, path, what in report.bad_sources:
            docs = remove_source(store, find_source(store, name))
            report.repaired.append(
                f"removed the source {name} ({path}: {what}) with {plural(docs, 'document')}"
            )
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
    if report.ann_index_stale:
        from kb.store import ann, ann_faiss

        built = ann.build_and_record(store, ann_faiss.KIND)
        if built is not None:
            report.repaired.append(f"rebuilt the ANN index ({built.indexed_rows} vectors)")
    return report
