"""How well does kb's citation verifier tell supported sentences from unsupported ones?

On a KB built from squad-dev (``--kb``; build one with ``kb ingest .../squad-dev/corpus``),
for every answerable golden query with a snippet:

- **positive** pairs: the golden snippet sentence against the chunk that holds it, and
  the same sentence shortened to its first clause (a claim need not copy a whole
  sentence);
- **hard negatives**: the same sentence against each top-ranked chunk (hybrid search
  of the question, top 5) of the same document that does not hold it, and the sentence
  with one number or one name swapped for another number or name of the same chunk
  (RAGTruth/MiniCheck-style perturbations), against the chunk that holds the original.

Documents are split in two halves by a hash of their path: the logistic regression of
the verifier's four features (:mod:`kb.rag.verify`) is fitted on the calibration half
and scored on the held-back half. The script prints ROC AUC on both halves, the
precision and recall of the fitted model at the chosen threshold (the one that
maximises F1 on the calibration half, reported with its value), and the fitted weights
to paste into :data:`kb.rag.verify.DEFAULT_MODEL` (a logistic regression with
non-negative feature weights: more overlap or similarity never lowers support).
``--features F.npz`` saves the pair features (or reuses them) for quick refits.

Not built yet: the second set the issue asks for (real model answers labelled by the
golden answer check); ``kb eval run`` reports ``citation_support_rate`` on real
answers in the meantime.

It also prints, for ``kb ask``'s refusal check (:mod:`kb.rag.answerability`), the
coverage of answerable vs unanswerable questions and the abstention / over-refusal
trade-off at several ``min_coverage`` values.

Usage::

    python bench/verify.py --kb DIR [--golden GOLDEN.yaml] [--json OUT] [--features F.npz]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kb.backends.embedder import make_embedder  # noqa: E402
from kb.config import load_settings  # noqa: E402
from kb.rag.answerability import check as coverage_check  # noqa: E402
from kb.rag.docfreq import term_doc_freq  # noqa: E402
from kb.rag.verify import (  # noqa: E402
    DEFAULT_MODEL,
    PassageSentences,
    SupportModel,
    Verifier,
)
from kb.search import Retriever, SearchOptions  # noqa: E402
from kb.store import Store  # noqa: E402

SQUAD = ROOT.parent / "shared" / "datasets" / "squad-dev"
FEATURES = ("lex", "lexw", "key", "cos")


def fold(text: str) -> str:
    return " ".join(text.lower().split())


def half(path: str) -> int:
    """0 = calibration, 1 = held back; stable across runs and machines."""
    return hashlib.sha256(path.encode()).digest()[0] % 2


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC by the rank-sum (Mann-Whitney) formula, ties counted half."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    allv = np.concatenate([pos, neg])[order]
    ranks = np.empty(len(allv))
    i = 0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1] == allv[i]:
            j += 1
        ranks[i : j + 1] = (i + j) / 2 + 1
        i = j + 1
    r = np.empty(len(allv))
    r[order] = ranks
    rank_pos = r[: len(pos)].sum()
    return float((rank_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50) -> np.ndarray:
    """Newton's method for L2-regularised logistic regression; returns [bias, w...]."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(xb @ w)))
        g = xb.T @ (p - y) + l2 * np.r_[0, w[1:]]
        h = (xb * (p * (1 - p))[:, None]).T @ xb + l2 * np.diag(np.r_[0, np.ones(len(w) - 1)])
        w -= np.linalg.solve(h, g)
    return w


def fit_monotone(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression whose feature weights are all >= 0 (more overlap or more
    similarity never lowers support): fit, drop the features that came out negative,
    refit on the rest (their weight is 0)."""
    keep = list(range(x.shape[1]))
    while True:
        w = fit_logistic(x[:, keep], y)
        neg = [keep[i] for i, v in enumerate(w[1:]) if v < 0]
        if not neg:
            full = np.zeros(x.shape[1] + 1)
            full[0] = w[0]
            for i, f in enumerate(keep):
                full[f + 1] = w[i + 1]
            return full
        keep = [f for f in keep if f not in neg]


def model_of(w: np.ndarray) -> SupportModel:
    return SupportModel(*[round(float(v), 3) for v in w])


def perturb(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Swap one number or one capitalised name for another from the passage."""
    nums = re.findall(r"\b\d[\d,.]*\d\b|\b\d\b", sentence)
    other_nums = sorted(set(re.findall(r"\b\d[\d,.]*\d\b|\b\d\b", passage)) - set(nums))
    names = re.findall(r"(?<=\s)[A-Z][a-z]{2,}", sentence)
    other_names = sorted(set(re.findall(r"(?<=\s)[A-Z][a-z]{2,}", passage)) - set(names))
    if nums and other_nums:
        a = rng.choice(nums)
        return sentence.replace(a, rng.choice(other_nums), 1)
    if names and other_names:
        a = rng.choice(names)
        return re.sub(rf"\b{re.escape(a)}\b", rng.choice(other_names), sentence, count=1)
    return None


def first_clause(sentence: str) -> str | None:
    parts = re.split(r",\s|;\s|\s(?:and|but|which|who)\s", sentence)
    head = parts[0].strip()
    return head if len(head.split()) >= 5 and head != sentence.strip() else None


def build_pairs(
    store: Store, retriever: Retriever, queries: list[dict[str, Any]], embed: Any
) -> list[tuple[np.ndarray, int, int]]:
    """(best-sentence features, label, half) for every pair; see the module docstring."""
    rng = random.Random(7)
    rows = store.conn.execute(
        "SELECT c.id, d.path, c.text FROM chunks c JOIN documents d ON d.id = c.document_id"
    ).fetchall()
    by_path: dict[str, list[tuple[int, str]]] = {}
    for cid, path, text in rows:
        # KB paths are "source-name/relative/path"; golden paths are relative to the
        # corpus folder (the source), so index both forms
        for key in {path, path.split("/", 1)[-1]}:
            by_path.setdefault(key, []).append((int(cid), text))
    out: list[tuple[np.ndarray, int, int]] = []
    opts = SearchOptions(k=5, min_score=-1.0)
    for q in queries:
        for sup in q.get("supports") or []:
            snip = sup.get("snippet")
            path = sup["path"]
            if not snip or path not in by_path:
                continue
            holders = [(cid, t) for cid, t in by_path[path] if fold(snip) in fold(t)]
            if not holders:
                continue
            hits = retriever.search(q["question"], opts).hits
            hold_ids = {cid for cid, _ in holders}
            negs = [
                h
                for h in hits
                if (h.path == path or h.path.endswith("/" + path)) and h.chunk_id not in hold_ids
            ]
            hold_hit = store.hits_for([holders[0][0]])[holders[0][0]]
            pairs: list[tuple[str, Any, int]] = [(snip, hold_hit, 1)]
            clause = first_clause(snip)
            if clause:
                pairs.append((clause, hold_hit, 1))
            for h in negs[:2]:
                pairs.append((snip, h, 0))
            swapped = perturb(snip, hold_hit.text, rng)
            if swapped and swapped != snip:
                pairs.append((swapped, hold_hit, 0))
            for claim, hit, label in pairs:
                v = Verifier([hit], embed)
                p = v.passages[0]
                f = v.features(claim, p, np.asarray(embed([claim]), dtype=np.float32)[0])
                s = np.array([DEFAULT_MODEL.score(*r) for r in f])
                out.append((f[int(np.argmax(s))], label, half(path)))
    return out


def coverage_table(
    store: Store, retriever: Retriever, queries: list[dict[str, Any]]
) -> dict[str, Any]:
    """Coverage of answerable vs unanswerable SQuAD questions over their top-5 hits."""
    opts = SearchOptions(k=5)

    def df(word: str) -> tuple[int, int]:
        return term_doc_freq(store.conn, word)

    cov: dict[str, list[tuple[float, int, bool]]] = {"answerable": [], "unanswerable": []}
    for q in queries:
        if q.get("category") not in ("factual", "unanswerable", "pdf"):
            continue
        hits = retriever.search(q["question"], opts).hits
        ps = [PassageSentences.of(i, h) for i, h in enumerate(hits, 1)]
        res = coverage_check(q["question"], ps, df, 0.0)
        key = "answerable" if q.get("answerable", True) else "unanswerable"
        cov[key].append((res.coverage, half(q["id"]), bool(res.absent_keys)))
    table = []
    for t in np.arange(0.5, 1.001, 0.05):
        row = {"min_coverage": round(float(t), 2)}
        for h in (0, 1):
            a = [(c, k) for c, hh, k in cov["answerable"] if hh == h]
            u = [(c, k) for c, hh, k in cov["unanswerable"] if hh == h]
            row[f"over_refusal_h{h}"] = round(float(np.mean([c < t for c, _ in a])), 3)
            row[f"abstention_h{h}"] = round(float(np.mean([c < t for c, _ in u])), 3)
            # with require_key_terms: also refuse when a number or name is in no passage
            row[f"keys_over_refusal_h{h}"] = round(float(np.mean([c < t or k for c, k in a])), 3)
            row[f"keys_abstention_h{h}"] = round(float(np.mean([c < t or k for c, k in u])), 3)
        table.append(row)
    a_all = np.array([c for c, _, _ in cov["answerable"]])
    u_all = np.array([c for c, _, _ in cov["unanswerable"]])
    labels = np.r_[np.ones(len(u_all)), np.zeros(len(a_all))]
    return {
        "auc_unanswerable_vs_answerable": round(auc(-np.r_[u_all, a_all], labels), 4),
        "n_answerable": len(a_all),
        "n_unanswerable": len(u_all),
        "table": table,
    }


def coverage_only(kb: Path, golden: Path) -> None:
    """Only the refusal table (``--coverage-only``): no pairs, no fitting."""
    settings = load_settings(kb)
    store = Store.open(kb)
    retriever = Retriever(store, make_embedder(settings.embedding, home=kb))
    queries = yaml.safe_load(golden.read_text(encoding="utf-8"))["queries"]
    print(json.dumps(coverage_table(store, retriever, queries), indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--golden", type=Path, default=SQUAD / "golden.yaml")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--features", type=Path, help="save the pair features here, or reuse them if present"
    )
    ap.add_argument("--coverage-only", action="store_true", help="only the refusal table")
    args = ap.parse_args()
    if args.coverage_only:
        coverage_only(args.kb, args.golden)
        return
    settings = load_settings(args.kb)
    store = Store.open(args.kb)
    embedder = make_embedder(settings.embedding)
    retriever = Retriever(store, embedder)
    queries = yaml.safe_load(args.golden.read_text(encoding="utf-8"))["queries"]
    if args.features is not None and args.features.is_file():
        saved = np.load(args.features)
        x, y, h = saved["x"], saved["y"], saved["h"]
    else:
        data = build_pairs(store, retriever, queries, embedder.embed_batch)
        if not data:
            raise SystemExit("no pairs: do the golden paths match the KB's documents?")
        x = np.array([d[0] for d in data])
        y = np.array([d[1] for d in data], dtype=float)
        h = np.array([d[2] for d in data])
        if args.features is not None:
            np.savez(args.features, x=x, y=y, h=h)
    w = fit_monotone(x[h == 0], y[h == 0])
    fitted = model_of(w)
    result: dict[str, Any] = {"pairs": len(data), "positives": int(y.sum())}
    for name, model in (("current", DEFAULT_MODEL), ("fitted", fitted)):
        s = np.array([model.score(*r) for r in x])
        result[name] = {
            "weights": dict(
                zip(("bias", *FEATURES), map(float, model.__dict__.values()), strict=True)
            ),
            "auc_calibration": round(auc(s[h == 0], y[h == 0]), 4),
            "auc_heldback": round(auc(s[h == 1], y[h == 1]), 4),
        }
        # threshold: best F1 on the calibration half
        best_t, best_f1 = 0.5, -1.0
        for t in np.arange(0.05, 0.96, 0.05):
            pred = s[h == 0] >= t
            tp = float((pred & (y[h == 0] == 1)).sum())
            prec = tp / max(1, pred.sum())
            rec = tp / max(1, (y[h == 0] == 1).sum())
            f1 = 2 * prec * rec / max(1e-9, prec + rec)
            if f1 > best_f1:
                best_t, best_f1 = float(t), f1
        for t in sorted({0.5, round(best_t, 2)}):
            pred = s[h == 1] >= t
            tp = float((pred & (y[h == 1] == 1)).sum())
            result[name][f"heldback@{t:g}"] = {
                "precision": round(tp / max(1, pred.sum()), 4),
                "recall": round(tp / max(1, (y[h == 1] == 1).sum()), 4),
            }
    result["coverage"] = coverage_table(store, retriever, queries)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
