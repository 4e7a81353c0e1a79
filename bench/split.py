"""Split a SQuAD-built golden set by article: develop on half A, report half B apart.

Usage::

    .venv/bin/python bench/split.py GOLDEN [GOLDEN ...] --out DIR [--dev-articles 10]

Each golden file is written as ``DIR/<stem>-A.yaml`` and ``DIR/<stem>-B.yaml`` with the
same header (``corpus:`` rewritten to an absolute path, so the halves run from anywhere).

How a question gets its article:

- an answerable question: the file of its first support (``wiki/Warsaw.md`` ->
  ``Warsaw``; a HotpotQA question: its first support's page, so each hop pair stays in one
  half);
- an unanswerable SQuAD question has no support. It takes the article whose text shares
  the most of its rare words (sum of ``ln(N / df)`` over its distinct words of 3+ letters
  found in the article; the text is the corpus file, a PDF's pypdf text, and the
  article's answerable snippets), then the majority article of its *sitting*: SQuAD 2.0's
  ids are MongoDB object ids whose first 4 bytes are the second it was written, and the
  unanswerable questions on one article were written in one sitting (runs of ids less
  than 30 minutes apart). A question no article shares a word with goes to half B.

Which article is in which half: SQuAD articles sorted by name, the first ``--dev-articles``
(10 of squad-dev's 19) are half A; every other article, and every HotpotQA page whose
name hashes odd (SHA-1 of the name, last byte), is half B. The rule uses names only, so
it is the same for every golden set built on the same articles (squad-dev and its fresh
set split alike).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import re
import sys
from pathlib import Path
from typing import Any

import yaml


def article(query: dict[str, Any]) -> str | None:
    """The article of an answerable query (its first support's file stem), else None."""
    supports = query.get("supports") or []
    if not supports:
        return None
    return Path(str(supports[0]["path"])).stem


def _seconds(qid: str) -> int | None:
    """The object id's timestamp (seconds) of ``squad-<24 hex digits>``, else None."""
    tail = qid.split("-", 1)[-1]
    try:
        return int(tail[:8], 16) if len(tail) == 24 else None
    except ValueError:
        return None


_WORD = re.compile(r"[a-z]{3,}")
SITTING_S = 1800


def article_texts(queries: list[dict[str, Any]], corpus: Path | None) -> dict[str, set[str]]:
    """Article -> its words (module docstring)."""
    words: dict[str, set[str]] = {}
    read: set[Path] = set()
    for q in queries:
        for s in q.get("supports") or []:
            name = Path(str(s["path"])).stem
            bag = words.setdefault(name, set())
            bag |= set(_WORD.findall(str(s.get("snippet", "")).lower()))
            bag |= set(_WORD.findall(str(q.get("question", "")).lower()))
            f = corpus / str(s["path"]) if corpus is not None else None
            if f is None or f in read or not f.is_file():
                continue
            read.add(f)
            text = ""
            if f.suffix == ".md":
                text = f.read_text(encoding="utf-8")
            elif f.suffix == ".pdf":
                try:
                    from pypdf import PdfReader

                    text = " ".join(p.extract_text() or "" for p in PdfReader(f).pages)
                except ImportError:
                    text = ""
            bag |= set(_WORD.findall(text.lower()))
    return words


def assign(queries: list[dict[str, Any]], corpus: Path | None = None) -> dict[str, str | None]:
    """Query id -> article (module docstring)."""
    out: dict[str, str | None] = {str(q["id"]): article(q) for q in queries}
    texts = article_texts(queries, corpus)
    squad = {a for q in queries if str(q["id"]).startswith("squad-") and (a := out[str(q["id"])])}
    texts = {a: w for a, w in texts.items() if a in squad}
    n = len(texts)
    df: dict[str, int] = {}
    for w in texts.values():
        for t in w:
            df[t] = df.get(t, 0) + 1
    guess: dict[str, str | None] = {}
    for q in queries:
        qid = str(q["id"])
        if out[qid] is not None or not qid.startswith("squad-"):
            continue
        words = set(_WORD.findall(str(q["question"]).lower()))
        scores = {
            a: sum(math.log(n / df[t]) for t in words if t in w) for a, w in sorted(texts.items())
        }
        best = max(scores.items(), key=lambda kv: kv[1], default=(None, 0.0))
        guess[qid] = best[0] if best[1] > 0 else None
    # the majority article of each sitting (ties: the first in name order)
    timed = sorted((t, qid) for qid in guess if (t := _seconds(qid)) is not None)
    runs: list[list[str]] = []
    last: int | None = None
    for t, qid in timed:
        if last is None or t - last >= SITTING_S:
            runs.append([])
        runs[-1].append(qid)
        last = t
    for run in runs:
        votes: dict[str, int] = {}
        for qid in run:
            if (g := guess[qid]) is not None:
                votes[g] = votes.get(g, 0) + 1
        major = max(sorted(votes), key=lambda a: votes[a]) if votes else None
        for qid in run:
            out[qid] = major
    for qid, g in guess.items():
        if _seconds(qid) is None:
            out[qid] = g
    return out


def half_of(name: str | None, squad_articles: list[str], dev_articles: int) -> str:
    """``"A"`` or ``"B"`` for an article name (module docstring)."""
    if name is None:
        return "B"
    if name in squad_articles:
        return "A" if squad_articles.index(name) < dev_articles else "B"
    return "A" if hashlib.sha1(name.encode()).digest()[-1] % 2 == 0 else "B"


def squad_articles_of(queries: list[dict[str, Any]], names: dict[str, str | None]) -> list[str]:
    return sorted(
        {n for q in queries if str(q["id"]).startswith("squad-") and (n := names[str(q["id"])])}
    )


def _corpus(path: Path, doc: dict[str, Any]) -> Path | None:
    c = doc.get("corpus")
    return (path.parent / str(c)).resolve() if c else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("golden", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--dev-articles", type=int, default=10)
    ap.add_argument(
        "--articles",
        type=Path,
        help="a golden file whose SQuAD articles define the order (default: the first file)",
    )
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    ref = yaml.safe_load((args.articles or args.golden[0]).read_text(encoding="utf-8"))
    ref_corpus = _corpus(args.articles or args.golden[0], ref)
    ref_names = assign(ref["queries"], ref_corpus)
    order = squad_articles_of(ref["queries"], ref_names)
    print(f"half A articles: {', '.join(order[: args.dev_articles])}")
    print(f"half B articles: {', '.join(order[args.dev_articles :])}")
    for path in args.golden:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        names = assign(doc["queries"], _corpus(path, doc))
        halves: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
        for q in doc["queries"]:
            halves[half_of(names[str(q["id"])], order, args.dev_articles)].append(q)
        corpus = doc.get("corpus")
        if corpus:
            doc["corpus"] = str((path.parent / corpus).resolve()) + "/"
        for h, qs in halves.items():
            out = args.out / f"{path.stem}-{h}.yaml"
            out.write_text(
                yaml.safe_dump({**doc, "queries": qs}, sort_keys=False, allow_unicode=True),
                encoding="utf-8",
            )
            n_ans = sum(1 for q in qs if q.get("answerable", True))
            print(f"{out}: {len(qs)} queries ({n_ans} answerable, {len(qs) - n_ans} unanswerable)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
