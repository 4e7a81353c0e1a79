"""How often does quote mode offer the answer? Candidate ranking on squad-dev.

For every answerable squad-dev query with an answer check, retrieve the top ``k``
passages exactly as ``kb ask`` does, rank their sentences with
:func:`kb.rag.candidates.rank_candidates`, and report the share of queries whose golden
answer (``answer.any_of``) is inside the first 1, 2, 3 and ``candidates`` offered
sentences. Top-1/top-2 bound what quote mode's ``answer_correct`` can reach when the
model copies the first one or two candidates; top-``candidates`` bounds any choice.

Queries are split in two halves by a hash of their id (as in ``bench/verify.py``):
compare variants on half 0, confirm on half 1.

Usage::

    python bench/quote.py --kb DIR [--k 5] [--candidates 8]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kb.backends.embedder import make_embedder  # noqa: E402
from kb.config import load_settings  # noqa: E402
from kb.rag.candidates import rank_candidates  # noqa: E402
from kb.rag.docfreq import term_doc_freq  # noqa: E402
from kb.rag.verify import Verifier  # noqa: E402
from kb.search import Retriever, SearchOptions  # noqa: E402
from kb.store import Store  # noqa: E402

SQUAD = ROOT.parent / "shared" / "datasets" / "squad-dev"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--golden", type=Path, default=SQUAD / "golden.yaml")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--candidates", type=int, default=8)
    args = ap.parse_args()
    settings = load_settings(args.kb)
    store = Store.open(args.kb)
    embedder = make_embedder(settings.embedding)
    retriever = Retriever(store, embedder)
    queries = yaml.safe_load(args.golden.read_text(encoding="utf-8"))["queries"]
    tops = (1, 2, 3, args.candidates)
    counts = {h: {t: 0 for t in tops} for h in (0, 1)}
    n = {0: 0, 1: 0}
    for q in queries:
        any_of = [a.lower() for a in (q.get("answer") or {}).get("any_of") or []]
        if not q.get("answerable", True) or not any_of:
            continue
        half = hashlib.sha256(q["id"].encode()).digest()[0] % 2
        hits = retriever.search(q["question"], SearchOptions(k=args.k)).hits
        v = Verifier(hits, embedder.embed_batch, vectors=True)
        cands = rank_candidates(
            q["question"],
            v.passages,
            embedder.embed_batch,
            args.candidates,
            doc_freq=lambda w: term_doc_freq(store.conn, w),
        )
        n[half] += 1
        for t in tops:
            text = " ".join(c.text for c in cands[:t]).lower()
            counts[half][t] += any(a in text for a in any_of)
    out = {
        f"half{h}": {f"top{t}": round(counts[h][t] / max(1, n[h]), 4) for t in tops} | {"n": n[h]}
        for h in (0, 1)
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
