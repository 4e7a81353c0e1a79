"""Citation rate of ``kb ask`` on squad-dev answerable factual questions (Markdown corpus).

Builds a KB from ``corpus/wiki/*.md`` with the real embedder (or reuses ``--workdir``),
takes every ``len/limit``-th answerable ``factual`` query whose supports are all under
``wiki/`` (an even spread, not a hand-picked subset), asks each through the same
:class:`kb.rag.AskPipeline` as ``kb ask``, and prints, per grammar setting:

- ``cited rate`` = non-refused answers with at least one valid citation / non-refused answers
  (the acceptance target is >= 90 % with the grammar on);
- refusals, answers with invalid citations, answers containing one of ``answer.any_of``;
- median time to first token and total time per answer.

Usage::

    python bench/citations.py [--limit 50] [--grammar both|on|off] [--max-tokens N]
                              [--workdir DIR] [--model PATH.gguf] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kb.backends.embedder import make_embedder  # noqa: E402
from kb.backends.generator import make_generator  # noqa: E402
from kb.config import Settings, load_settings  # noqa: E402
from kb.rag import AskPipeline  # noqa: E402
from kb.search import Retriever, SearchOptions  # noqa: E402
from kb.store import Store  # noqa: E402

SQUAD = ROOT.parent / "shared" / "datasets" / "squad-dev"


def pick_questions(limit: int) -> list[dict[str, Any]]:
    data = yaml.safe_load((SQUAD / "golden.yaml").read_text(encoding="utf-8"))
    pool = [
        q
        for q in data["queries"]
        if q.get("category") == "factual"
        and q.get("answerable", True)
        and q.get("supports")
        and all(s["path"].startswith("wiki/") for s in q["supports"])
    ]
    step = max(1, len(pool) // limit)
    return pool[::step][:limit]


def build_kb(home: Path, settings: Settings) -> Store:
    from ingest.pipeline import ingest_paths

    store = Store.open(home)
    if store.count_chunks("embedded") == 0:
        t = time.perf_counter()
        files = sorted((SQUAD / "corpus" / "wiki").glob("*.md"))
        ingest_paths(store, settings, files, embedder=make_embedder(settings.embedding))
        print(
            f"ingested {len(files)} files, {store.count_chunks()} chunks "
            f"in {time.perf_counter() - t:.1f}s"
        )
    else:
        print(f"reusing {home} ({store.count_chunks()} chunks)")
    return store


def run(
    pipe: AskPipeline,
    questions: list[dict[str, Any]],
    opts: SearchOptions,
    grammar: bool,
    verbose: bool = False,
) -> dict[str, Any]:
    rows = []
    for i, q in enumerate(questions, 1):
        rec = pipe.ask(q["question"], opts, grammar=grammar).result()
        any_of = [a.lower() for a in (q.get("answer") or {}).get("any_of", [])]
        rows.append(
            {
                "id": q["id"],
                "text": rec.text,
                "refused": rec.refused,
                "grounded": rec.grounded,
                "valid": [c.n for c in rec.citations],
                "invalid": rec.invalid_citations,
                "answer_hit": any(a in rec.text.lower() for a in any_of),
                "ttft": rec.timings.get("first_token_s"),
                "total": rec.timings.get("total_s"),
                "error": rec.error,
            }
        )
        mark = "R" if rec.refused else ("C" if rec.grounded else "-")
        if verbose:
            print(f"{mark} {rec.timings.get('total_s') or 0:5.1f}s {rec.text[:160]!r}", flush=True)
        else:
            print(mark, end="" if i % 50 else "\n", flush=True)
    print()
    answered = [r for r in rows if not r["refused"]]
    cited = [r for r in answered if r["valid"]]
    ttfts = [r["ttft"] for r in rows if r["ttft"] is not None]
    return {
        "grammar": grammar,
        "questions": len(rows),
        "refused": len(rows) - len(answered),
        "answered": len(answered),
        "cited": len(cited),
        "cited_rate": len(cited) / len(answered) if answered else 0.0,
        "with_invalid": sum(1 for r in rows if r["invalid"]),
        "answer_hit": sum(1 for r in rows if r["answer_hit"]),
        "errors": sum(1 for r in rows if r["error"]),
        "ttft_median_s": statistics.median(ttfts) if ttfts else None,
        "total_median_s": statistics.median(r["total"] for r in rows),
        "rows": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--grammar", choices=("both", "on", "off"), default="both")
    ap.add_argument("--max-tokens", type=int, default=None)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--repeat-penalty", type=float, default=None)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    ap.add_argument("--json", type=Path, default=None, help="write all rows here")
    args = ap.parse_args()
    if not SQUAD.is_dir():
        raise SystemExit(f"{SQUAD}: dataset folder missing")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="kb-bench-cite-"))
    home = workdir / "kb"
    settings = load_settings(home, user_file=workdir / "no-user-config.toml")
    llm = settings.llm
    if args.max_tokens:
        llm = replace(llm, max_tokens=args.max_tokens)
    if args.model:
        llm = replace(llm, model=args.model)
    if args.repeat_penalty is not None:
        llm = replace(llm, repeat_penalty=args.repeat_penalty)
    settings = replace(settings, llm=llm)
    store = build_kb(home, settings)
    embedder = make_embedder(settings.embedding)
    pipe = AskPipeline(Retriever(store, embedder), make_generator(settings.llm), settings)
    opts = SearchOptions.from_settings(settings.search)
    questions = pick_questions(args.limit)
    print(
        f"{len(questions)} questions, k={opts.k}, max_tokens={settings.llm.max_tokens}, "
        f"repeat_penalty={settings.llm.repeat_penalty}"
    )
    modes = {"both": (True, False), "on": (True,), "off": (False,)}[args.grammar]
    results = []
    for grammar in modes:
        print(f"\n-- grammar {'on' if grammar else 'off'} --")
        res = run(pipe, questions, opts, grammar, args.verbose)
        results.append(res)
        print(
            f"cited rate {res['cited_rate']:.1%} ({res['cited']}/{res['answered']} non-refused "
            f"answers carry a valid citation); refused {res['refused']}; "
            f"with invalid citations {res['with_invalid']}; answer string found "
            f"{res['answer_hit']}/{res['questions']}; errors {res['errors']}; median TTFT "
            f"{res['ttft_median_s'] or 0:.2f}s, total {res['total_median_s']:.2f}s"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    store.close()


if __name__ == "__main__":
    main()
