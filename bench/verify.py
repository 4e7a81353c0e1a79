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

A second set (``--answers RUN ...``): real model answers stored by ``kb eval run`` in
the same KB. Every cited answer sentence is scored by the current verifier against
its cited contexts (as stored with the run) and labelled by the golden answer check:
1 when its question is answerable and the sentence passes the check (holds one of the
golden answers) and a cited context holds its golden snippet, 0 when it fails the
check or its question is unanswerable (a correct sentence citing a context without
the snippet is left out: neither label is sure). The
script prints ROC AUC and precision / recall at the threshold, per answer mode.
Support is not correctness (a supported sentence can answer another question), so
this AUC is a lower bound on how well the verifier separates supported claims.

It also fits, for ``kb ask``'s refusal check (:mod:`kb.rag.answerability`), the
logistic model ``p(answerable) = sigmoid(b + w_cov·coverage + w_cos·cosine)`` of
answerable vs SQuAD 2.0's unanswerable questions over their top-5 hits (calibration
half by question id), prints its ROC AUC on both halves, and the abstention /
over-refusal trade-off on the held-back half at several ``min_answerable`` values,
with and without ``require_key_terms``.

Usage::

    python bench/verify.py --kb DIR [--golden GOLDEN.yaml] [--json OUT] [--features F.npz]
    python bench/verify.py --kb DIR --answerability-only
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

from eval.matching import heading_parts  # noqa: E402
from eval.metrics.answers import check_answer  # noqa: E402
from eval.store import EvalStore  # noqa: E402
from kb.backends.embedder import make_embedder  # noqa: E402
from kb.config import load_settings  # noqa: E402
from kb.rag.answerability import DEFAULT_MODEL as ANSWERABILITY_MODEL  # noqa: E402
from kb.rag.answerability import AnswerabilityModel, assess  # noqa: E402
from kb.rag.docfreq import term_doc_freq  # noqa: E402
from kb.rag.verify import (  # noqa: E402
    DEFAULT_MODEL,
    DEFAULT_THRESHOLD,  # noqa: E402
    SupportModel,
    Verifier,
)
from kb.search import Retriever, SearchOptions  # noqa: E402
from kb.store import Store  # noqa: E402
from kb.types import Hit, Locator, Span  # noqa: E402

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


def answerability_features(
    store: Store, retriever: Retriever, queries: list[dict[str, Any]], embed: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per SQuAD question (factual, pdf, unanswerable) over its top-5 hits, as
    ``kb ask`` sees them: ``x = (coverage, cosine, chunk cosine)``, ``y`` = 1 when answerable,
    the half, and whether the key-term check refuses it (a number or name of the
    question in no passage, or a negation or antonym its best sentences contradict)."""
    opts = SearchOptions(k=5)

    def df(word: str) -> tuple[int, int]:
        return term_doc_freq(store.conn, word)

    x, y, h, keys = [], [], [], []
    for q in queries:
        if q.get("category") not in ("factual", "unanswerable", "pdf"):
            continue
        hits = retriever.search(q["question"], opts).hits
        res = assess(q["question"], hits, embed, df, 0.0).answerability
        cos = res.cosine or 0.0
        x.append((res.coverage, cos, cos if res.chunk_cosine is None else res.chunk_cosine))
        y.append(1.0 if q.get("answerable", True) else 0.0)
        h.append(half(q["id"]))
        keys.append(bool(res.absent_keys or res.contradictions))
    return np.array(x), np.array(y), np.array(h), np.array(keys)


def answerability_table(
    x: np.ndarray, y: np.ndarray, h: np.ndarray, keys: np.ndarray
) -> dict[str, Any]:
    """Fit ``p(answerable)`` on the calibration half (with and without the cosine),
    score both halves, and print abstention / over-refusal on the held-back half."""
    out: dict[str, Any] = {"n_answerable": int(y.sum()), "n_unanswerable": int((1 - y).sum())}
    fits = {
        "with_cosine": fit_logistic(x[h == 0], y[h == 0]),
        "sentence_cosine": fit_logistic(x[h == 0][:, :2], y[h == 0]),
        "coverage_only": fit_logistic(x[h == 0][:, :1], y[h == 0]),
    }

    def rounded(w: np.ndarray) -> list[float]:
        return [round(float(v), 3) for v in w]

    models = {
        "current": ANSWERABILITY_MODEL,
        "fitted": AnswerabilityModel(*rounded(fits["with_cosine"])),
        "fitted_sentence_cosine_only": AnswerabilityModel(*rounded(fits["sentence_cosine"]), 0.0),
        "fitted_coverage_only": AnswerabilityModel(*rounded(fits["coverage_only"]), 0.0, 0.0),
    }
    for name, m in models.items():
        p = np.array([m.score(c, cos, ch) for c, cos, ch in x])
        row: dict[str, Any] = {"weights": m.__dict__.copy()}
        for half_ in (0, 1):
            sel = h == half_
            row[f"auc_h{half_}"] = round(auc(p[sel], y[sel]), 4)
        table = []
        sel = h == 1
        for t in np.arange(0.25, 0.651, 0.05):
            refused = p < t
            a, u = sel & (y == 1), sel & (y == 0)
            table.append(
                {
                    "min_answerable": round(float(t), 2),
                    "over_refusal": round(float(refused[a].mean()), 3),
                    "abstention": round(float(refused[u].mean()), 3),
                    "keys_over_refusal": round(float((refused | keys)[a].mean()), 3),
                    "keys_abstention": round(float((refused | keys)[u].mean()), 3),
                }
            )
        row["heldback_table"] = table
        out[name] = row
    return out


def answerability_only(kb: Path, golden: Path, features: Path | None) -> None:
    """Only the refusal table (``--answerability-only``): no pairs, no verifier fit."""
    settings = load_settings(kb)
    store = Store.open(kb)
    embedder = make_embedder(settings.embedding, home=kb)
    retriever = Retriever(store, embedder)
    queries = yaml.safe_load(golden.read_text(encoding="utf-8"))["queries"]
    feats = answerability_features(store, retriever, queries, embedder.embed_batch)
    if features is not None:
        np.savez(features, x=feats[0], y=feats[1], h=feats[2], keys=feats[3])
    print(json.dumps(answerability_table(*feats), indent=1))


def stored_hit_as_hit(h: Any) -> Hit:
    """An eval run's stored context as the :class:`Hit` the verifier reads."""
    span = Span(
        line_start=h.lines[0] if h.lines else None,
        line_end=h.lines[1] if h.lines else None,
        page_start=h.pages[0] if h.pages else None,
        page_end=h.pages[1] if h.pages else None,
        seconds_start=h.seconds[0] if h.seconds else None,
        seconds_end=h.seconds[1] if h.seconds else None,
    )
    loc = Locator(h.path, h.doc_type, heading_parts(h.heading), span)
    return Hit(h.chunk_id, h.text, loc, h.score)


def answer_pairs(store: Store, runs: list[str]) -> dict[str, Any]:
    """The second set (module docstring): verifier scores of real answer sentences
    against the golden answer check, per answer mode."""
    es = EvalStore(store)
    by_mode: dict[str, list[tuple[float, int]]] = {}
    for ref in runs:
        run = es.find_run(ref)
        for res in es.results(run.id):
            a, q = res.answer, res.query
            if a is None or a.refused or not a.sentences:
                continue
            verifier = Verifier([stored_hit_as_hit(h) for h in a.contexts], None)
            for i, sent in enumerate(a.sentence_views()):
                if not sent.citations:
                    continue
                if q.answerable:
                    ok = check_answer(sent.claim, q.answer)
                    if ok is None:
                        continue
                    cited = [a.contexts[n - 1].text for n in sent.citations]
                    holds = any(
                        fold(sup.snippet) in fold(t)
                        for sup in q.supports
                        if sup.snippet
                        for t in cited
                    )
                    if ok and not holds:
                        continue  # right words, wrong passage: neither label is sure
                    label = int(ok)
                else:
                    label = 0
                score = verifier.verify(i, sent.text).score or 0.0
                by_mode.setdefault(a.mode or "generate", []).append((score, label))
    out: dict[str, Any] = {}
    for mode, rows in sorted(by_mode.items()):
        sc = np.array([r[0] for r in rows])
        lab = np.array([r[1] for r in rows])
        pred = sc >= DEFAULT_THRESHOLD
        tp = float((pred & (lab == 1)).sum())
        out[mode] = {
            "sentences": len(rows),
            "correct": int(lab.sum()),
            "auc": round(auc(sc, lab), 4),
            f"precision@{DEFAULT_THRESHOLD:g}": round(tp / max(1, pred.sum()), 4),
            f"recall@{DEFAULT_THRESHOLD:g}": round(tp / max(1, (lab == 1).sum()), 4),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--golden", type=Path, default=SQUAD / "golden.yaml")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--features", type=Path, help="save the pair features here, or reuse them if present"
    )
    ap.add_argument(
        "--answerability-only", action="store_true", help="only the refusal check's fit"
    )
    ap.add_argument(
        "--answers",
        nargs="+",
        metavar="RUN",
        help="only the second set: score the answers of these stored eval runs",
    )
    args = ap.parse_args()
    if args.answers:
        print(json.dumps(answer_pairs(Store.open(args.kb), args.answers), indent=1))
        return
    if args.answerability_only:
        answerability_only(args.kb, args.golden, args.features)
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
    result["answerability"] = answerability_table(
        *answerability_features(store, retriever, queries, embedder.embed_batch)
    )
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
