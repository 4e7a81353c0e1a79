"""Does kb's citation verifier catch a claim that negates or reverses its evidence?

For every answerable golden query with a snippet (a sentence copied from its source), the
passage is the source file's paragraph that holds the snippet. Claims scored against it
with :class:`kb.rag.verify.Verifier` (the KB's default embedder):

- **supported** claims: the snippet itself and its first clause (a claim need not copy a
  whole sentence);
- **negated** claims, one edit each (a generator written apart from kb's detector, with its
  own word lists): ``not`` after the first auxiliary or copula (*was* -> *was not*, a third
  of them contracted: *wasn't*, *didn't*, *cannot*), or ``never`` before the first past
  tense verb when there is no auxiliary, or the snippet's own negation removed (*did not
  sign* -> *did sign*, *never reached* -> *reached*);
- **reversed** claims: one word swapped for its opposite (*increased* -> *decreased*,
  *before* -> *after*, *north* -> *south*, *largest* -> *smallest* ...).

An edit the verifier does not call *supported* is **caught**. A supported claim that the
verifier supports with its polarity rules off but not with them on is a **false flag**.
The script prints, per half of the articles (``bench/split.py``'s rule: half A is where kb
was developed, half B is reported apart) and in all: caught rates for negated and
reversed claims with the rules on and off, and false flags among the supported claims.

Usage::

    .venv/bin/python bench/polarity.py --golden GOLDEN.yaml [--json OUT] [--limit N]

``GOLDEN``'s ``corpus:`` (relative to the file) must hold the Markdown files its supports
name; PDF and audio supports are skipped (the same sentences are in the Markdown).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from split import assign, half_of, squad_articles_of  # noqa: E402

from kb.backends.embedder import make_embedder  # noqa: E402
from kb.config import load_settings  # noqa: E402
from kb.rag.verify import Verifier  # noqa: E402
from kb.types import Hit, Locator  # noqa: E402

#: the verifier's polarity rules (turned off for the "off" columns)
POLARITY_RULES = frozenset(["claim-negated", "claim-reversed"])

_AUX = frozenset(
    ["is", "are", "was", "were", "has", "have", "had", "can", "could", "will", "would"]
    + ["should", "may", "might", "must", "does", "do", "did"]
)
_CONTRACTED = {
    "is": "isn't",
    "are": "aren't",
    "was": "wasn't",
    "were": "weren't",
    "has": "hasn't",
    "have": "haven't",
    "had": "hadn't",
    "can": "cannot",
    "could": "couldn't",
    "will": "won't",
    "would": "wouldn't",
    "should": "shouldn't",
    "does": "doesn't",
    "do": "don't",
    "did": "didn't",
}
#: the generator's own opposites (both directions are used)
_OPPOSITES = """
increase decrease | increased decreased | increases decreases | increasing decreasing
rise fall | rose fell | risen fallen | grew shrank | growth decline | gained lost
before after | earlier later | earliest latest | first last | begin end | began ended
start finish | started finished | opened closed | open closed
north south | east west | northern southern | eastern western | northeast southwest
largest smallest | larger smaller | large small | biggest smallest | bigger smaller
highest lowest | higher lower | high low | most least | more less | many few
longest shortest | longer shorter | long short | oldest youngest | older younger
best worst | better worse | major minor | maximum minimum | above below | upper lower
won lost | win lose | victory defeat | success failure | successful unsuccessful
accepted rejected | allowed banned | approved rejected | supported opposed | strong weak
stronger weaker | fast slow | faster slower | heavy light | rich poor | wealthy poor
public private | modern ancient | internal external | inside outside | import export
imported exported | exports imports | born died | birth death | built destroyed
entered left | arrived departed | added removed | included excluded | legal illegal
positive negative | male female | men women | cheaper dearer | cheap expensive
"""


def _opposites() -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in re.split(r"[|\n]", _OPPOSITES):
        words = pair.split()
        if len(words) == 2:
            a, b = words
            out.setdefault(a, b)
            out.setdefault(b, a)
    return out


OPPOSITES = _opposites()
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_NEGATION = re.compile(r"\s+not\b|n't\b|\bnever\s+", re.IGNORECASE)
_UNCONTRACTED = {"won't": "will", "can't": "can", "shan't": "shall"}


def negate(sentence: str, rng: random.Random) -> str | None:
    """One negation edit of ``sentence`` (module docstring), or ``None``."""
    if (m := _NEGATION.search(sentence)) is not None:
        if m.group().lower() != "n't":
            return " ".join((sentence[: m.start()] + " " + sentence[m.end() :]).split())
        word = next(w for w in _WORD.finditer(sentence) if w.start() <= m.start() < w.end())
        plain = _UNCONTRACTED.get(word.group().lower(), word.group()[:-3])
        return sentence[: word.start()] + plain + sentence[word.end() :]
    words = list(_WORD.finditer(sentence))
    for i, w in enumerate(words):
        t = w.group()
        if i > 0 and t in _AUX:
            nxt = words[i + 1].group().lower() if i + 1 < len(words) else ""
            if nxt in ("not", "never"):
                return None
            new = _CONTRACTED[t] if t in _CONTRACTED and rng.random() < 1 / 3 else t + " not"
            return sentence[: w.start()] + new + sentence[w.end() :]
    for i, w in enumerate(words):
        t = w.group()
        if i > 0 and t.islower() and len(t) >= 5 and t.endswith("ed"):
            return sentence[: w.start()] + "never " + sentence[w.start() :]
    return None


def reverse(sentence: str) -> str | None:
    """One word of ``sentence`` swapped for its opposite (kept lowercase or
    capitalised as written), or ``None`` when it has none. Capitalised words inside the
    sentence are names ("North Carolina") and are left alone."""
    for i, w in enumerate(_WORD.finditer(sentence)):
        t = w.group()
        if i > 0 and not t.islower():
            continue
        new = OPPOSITES.get(t.lower())
        if new is None:
            continue
        if t[0].isupper():
            new = new[0].upper() + new[1:]
        return sentence[: w.start()] + new + sentence[w.end() :]
    return None


def first_clause(sentence: str) -> str | None:
    parts = re.split(r",\s|;\s|\s(?:and|but|which|who)\s", sentence)
    head = parts[0].strip()
    return head if len(head.split()) >= 5 and head != sentence.strip() else None


def paragraph_of(text: str, snippet: str) -> str | None:
    """The blank-line paragraph of ``text`` that holds ``snippet`` (white space folded)."""
    want = " ".join(snippet.split())
    for para in re.split(r"\n\s*\n", text):
        if want in " ".join(para.split()):
            return para.strip()
    return None


def cases(golden: Path, limit: int | None) -> list[dict[str, Any]]:
    """Every (claim, passage, kind, half) the module docstring lists."""
    doc = yaml.safe_load(golden.read_text(encoding="utf-8"))
    corpus = (golden.parent / str(doc.get("corpus") or ".")).resolve()
    queries = doc["queries"]
    names = assign(queries, corpus)
    squad = squad_articles_of(queries, names)
    rng = random.Random(11)
    out: list[dict[str, Any]] = []
    texts: dict[str, str] = {}
    for q in queries:
        if not q.get("answerable", True):
            continue
        sup = next((s for s in q.get("supports") or [] if s.get("snippet")), None)
        if sup is None or not str(sup["path"]).endswith(".md"):
            continue
        path = str(sup["path"])
        if path not in texts:
            f = corpus / path
            texts[path] = f.read_text(encoding="utf-8") if f.is_file() else ""
        snippet = " ".join(str(sup["snippet"]).split())
        para = paragraph_of(texts[path], snippet)
        if para is None:
            continue
        half = half_of(names[str(q["id"])], squad, 10)
        base = {"id": q["id"], "path": path, "passage": para, "half": half, "original": snippet}
        out.append({**base, "claim": snippet, "kind": "supported"})
        if (clause := first_clause(snippet)) is not None:
            out.append({**base, "claim": clause, "kind": "supported"})
        if (neg := negate(snippet, rng)) is not None and neg != snippet:
            out.append({**base, "claim": neg, "kind": "negated"})
        if (rev := reverse(snippet)) is not None:
            out.append({**base, "claim": rev, "kind": "reversed"})
        if limit is not None and len({c["id"] for c in out}) >= limit:
            break
    return out


def judge(items: list[dict[str, Any]], embed: Any) -> None:
    """Set ``on`` and ``off`` (the verdicts with the polarity rules on and off)."""
    for c in items:
        hit = Hit(1, c["passage"], Locator(c["path"], "markdown"), 1.0)
        for key, off in (("on", frozenset()), ("off", POLARITY_RULES)):
            v = Verifier([hit], embed, off=off)
            verdict = v.verify(1, c["claim"] + " [#1]")
            c[key] = verdict.verdict
            if key == "on":
                c["why"] = verdict.contradiction


def table(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Caught rates and false flags (module docstring) of ``items``."""
    out: dict[str, Any] = {}
    for kind in ("negated", "reversed"):
        xs = [c for c in items if c["kind"] == kind]
        out[kind] = {
            "n": len(xs),
            "caught_on": round(sum(c["on"] != "supported" for c in xs) / max(1, len(xs)), 4),
            "caught_off": round(sum(c["off"] != "supported" for c in xs) / max(1, len(xs)), 4),
        }
    sup = [c for c in items if c["kind"] == "supported"]
    base = [c for c in sup if c["off"] == "supported"]
    flagged = [c for c in base if c["on"] != "supported"]
    out["supported"] = {
        "n": len(sup),
        "supported_off": len(base),
        "false_flags": len(flagged),
        "false_flag_rate": round(len(flagged) / max(1, len(base)), 4),
    }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--golden", type=Path, required=True)
    ap.add_argument("--json", type=Path, help="write every case with its verdicts here")
    ap.add_argument("--limit", type=int, help="at most this many queries (a quick try)")
    args = ap.parse_args(argv)
    items = cases(args.golden, args.limit)
    if not items:
        print(f"{args.golden}: no answerable query with a Markdown snippet", file=sys.stderr)
        return 2
    embedder = make_embedder(load_settings(None).embedding)
    judge(items, embedder.embed_batch)
    result = {
        "A": table([c for c in items if c["half"] == "A"]),
        "B": table([c for c in items if c["half"] == "B"]),
        "all": table(items),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(items, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
