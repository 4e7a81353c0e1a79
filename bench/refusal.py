"""The retrieval refusal rule (``kb.search.evidence``) on questions a KB cannot answer.

For 30 everyday questions that no Wikipedia article of squad-dev is about (below) and,
with ``--golden``, the answerable questions of a golden set, search the KB as
``kb ask`` does (default settings, k 5) and print the share that *passes* the rule
(kb ask would run the model):

- chunk rule alone: ``best_cosine >= min_score``;
- the current rule: that, or ``best_sentence >= min_score + SENTENCE_MARGIN``;

at ``min_score`` 0.25 (the default) and a few margins. Unrelated questions should pass
as rarely as possible; answerable ones always.

Usage::

    python bench/refusal.py --kb DIR [--golden GOLDEN.yaml]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kb.backends.embedder import make_embedder  # noqa: E402
from kb.config import load_settings  # noqa: E402
from kb.search import Retriever, SearchOptions  # noqa: E402
from kb.search.evidence import SENTENCE_MARGIN  # noqa: E402
from kb.store import Store  # noqa: E402

UNRELATED = [
    "How do I reset my router password?",
    "What time does the pharmacy on Main Street close?",
    "How much flour goes into pancakes for four people?",
    "When is my dentist appointment?",
    "What is the wifi password for the guest network?",
    "How do I descale the coffee machine?",
    "Which bus goes to the airport?",
    "What should I pack for a weekend of camping?",
    "How long should I boil an egg for a soft yolk?",
    "What is the best way to remove a red wine stain?",
    "How many vacation days do I have left this year?",
    "What did the plumber charge for fixing the leak?",
    "Where did I put the spare car keys?",
    "How do I change a flat bicycle tyre?",
    "What is the recommended tyre pressure for my car?",
    "When does the library return the borrowed books?",
    "How do I set up two-factor authentication on my email?",
    "What size is the living room rug?",
    "Which plants are safe for cats?",
    "How do I cancel my gym membership?",
    "What is the phone number of the vet?",
    "How often should I water the succulents?",
    "What temperature should the oven be for roasting chicken?",
    "Who is hosting the book club next month?",
    "How do I export my contacts from my phone?",
    "What was the total of last month's electricity bill?",
    "How many steps did I walk yesterday?",
    "What is the name of the Italian restaurant we liked?",
    "How do I unclog a bathroom sink?",
    "When is the next team offsite?",
]


def scores(r: Retriever, questions: list[str], opts: SearchOptions) -> np.ndarray:
    """(best chunk cosine, best sentence cosine or -1) per question."""
    out = []
    for q in questions:
        res = r.search(q, opts)
        sentence = -1.0 if res.best_sentence is None else res.best_sentence
        out.append((res.best_cosine if res.best_cosine is not None else -1.0, sentence))
    return np.array(out)


def report(name: str, s: np.ndarray, min_score: float) -> None:
    chunk = s[:, 0] >= min_score
    line = f"{name:28s} n={len(s):4d}  chunk rule {chunk.mean():.2f}"
    for margin in sorted({0.1, 0.15, SENTENCE_MARGIN, 0.25, 0.3}):
        both = chunk | (s[:, 1] >= min_score + margin)
        mark = "*" if margin == SENTENCE_MARGIN else " "
        line += f"  +sentence@{margin:.2f}{mark} {both.mean():.2f}"
    print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--golden", type=Path)
    args = ap.parse_args()
    settings = load_settings(args.kb)
    store = Store.open(args.kb)
    r = Retriever(store, make_embedder(settings.embedding, home=args.kb))
    opts = SearchOptions.from_settings(settings.search)
    opts = SearchOptions(**{**vars(opts), "min_score": -1.0})
    min_score = settings.search.min_score
    print(f"share of questions that pass (kb ask runs the model); min_score {min_score:g}")
    report("unrelated everyday questions", scores(r, UNRELATED, opts), min_score)
    if args.golden is not None:
        queries = yaml.safe_load(args.golden.read_text(encoding="utf-8"))["queries"]
        asked = [q["question"] for q in queries if q.get("answerable", True)]
        report("answerable golden questions", scores(r, asked, opts), min_score)


if __name__ == "__main__":
    main()
