"""The evidence check's signals for every question of a golden set, as ``kb ask`` sees them.

For each query of ``GOLDEN`` over the KB at ``--kb``, the question runs through the real
answer pipeline (:class:`kb.rag.pipeline.AskPipeline`, the KB's own settings) up to the
point where the model would write, and nothing further: a stand-in generator counts prompt
tokens, and quote mode stops once its prompt is built, so no model loads and nothing is
written. The script records, per question, one JSON line:

- ``id``, ``answerable`` (the golden label), ``category``, ``tags``;
- ``stage``: ``gate`` when retrieval's own refusal rule refused (no evidence at all),
  ``check`` when the evidence check refused, ``model`` when the question would reach the
  model (answered or refused later, by the model or the quote checks);
- ``signals``: everything the evidence check computed (:meth:`Answerability.to_dict`:
  coverage, cosine, chunk cosine, the fitted ``p`` before floors, the floors that fired,
  absent keys, each contradiction with the rule that found it, the answer type it lacks),
  plus ``n_terms`` and ``n_missing`` (the question's content terms, and those its best
  sentence lacks), ``top_score`` and ``top_vector`` (retrieval's best fused and vector
  scores);
- for a question that would reach the model in quote mode: ``selector`` (the rule whose
  candidates the model chooses from) and ``candidates`` (context number, sentence index
  and the start of each candidate sentence, in the order offered). The prompt's size is
  estimated (about 3 characters a token), so the candidates kept may differ a little from
  a real run's; two runs of this script compare exactly.

Two runs (two versions of the code, ``PYTHONPATH``) that give the same stage, selector
and candidates for a question give the same answer: the model's choice is deterministic
for one prompt. So only the questions whose lines differ need a real ``kb eval run``.

``bench/refusal_fit.py`` reads these lines to fit and compare refusal models. With
``--rules-on`` the KB's ``[answer] rules_off`` is ignored (every rule runs), so the
signals of every detector are recorded whatever the KB's config says.

Usage::

    python bench/refusal_features.py --kb DIR GOLDEN.yaml --out FEATURES.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kb.rag.pipeline as pipeline_mod  # noqa: E402
from eval.golden import load_golden  # noqa: E402
from kb.cli.common import search_opts  # noqa: E402
from kb.config import load_settings  # noqa: E402
from kb.rag.compose import make_pipeline, make_retriever  # noqa: E402
from kb.store import Store  # noqa: E402


class _ModelWouldLoad(Exception):
    """Raised where the model would run: the question passed every check before it."""


class _CountingGenerator:
    """Stands in for the model where only its prompt size is read (quote mode trims its
    candidates to the window): about 3 characters a token, the configured window."""

    def __init__(self, n_ctx: int) -> None:
        self.n_ctx = n_ctx

    def count_prompt_tokens(self, prompt: Any) -> int:
        return sum(len(str(m.get("content", ""))) for m in prompt) // 3 + 8


def features(kb: Path, golden: Path, rules_on: bool) -> list[dict[str, Any]]:
    """One record per golden query (module docs)."""
    settings = load_settings(kb)
    if rules_on:
        settings = replace(settings, answer=replace(settings.answer, rules_off=()))
    store = Store.open(kb)
    retriever = make_retriever(settings, store)

    counting = _CountingGenerator(settings.llm.n_ctx)
    pipe = make_pipeline(settings, retriever, load=lambda: counting)
    opts = search_opts(settings, None, None, None, None)
    seen: list[Any] = []
    real_assess = pipeline_mod.assess

    def recording_assess(*args: Any, **kwargs: Any) -> Any:
        out = real_assess(*args, **kwargs)
        seen.append(out.answerability)
        return out

    quoted: list[Any] = []
    real_quote_prompt = getattr(pipeline_mod, "quote_prompt", None)

    def recording_quote_prompt(*args: Any, **kwargs: Any) -> Any:
        assert real_quote_prompt is not None
        out = real_quote_prompt(*args, **kwargs)
        quoted.append(out)
        raise _ModelWouldLoad

    pipeline_mod.assess = recording_assess  # type: ignore[assignment]
    if real_quote_prompt is not None:
        pipeline_mod.quote_prompt = recording_quote_prompt  # type: ignore[attr-defined]
    rows: list[dict[str, Any]] = []
    try:
        for q in load_golden(golden).queries:
            seen.clear()
            quoted.clear()
            result = retriever.search(q.question, opts)
            top = result.hits[0] if result.hits else None
            try:
                pipe.ask(q.question, opts)  # a refusal: returned before the model
                stage = "check" if seen else "gate"
            except _ModelWouldLoad:
                stage = "model"
            row: dict[str, Any] = {
                "id": q.id,
                "answerable": q.answerable,
                "category": q.category,
                "tags": list(q.tags),
                "stage": stage,
                "top_score": None if top is None else round(float(top.score), 5),
                "top_vector": None
                if top is None or top.scores.get("vector") is None
                else round(float(top.scores["vector"]), 5),
            }
            if quoted:
                built, selector = quoted[0][0], quoted[0][3]
                cands = built.quote_candidates or []
                row["selector"] = selector
                row["candidates"] = [[c.n, c.j, c.text[:80]] for c in cands]
                if len(quoted[0]) > 4:
                    row["unanswered"] = quoted[0][4]
            if seen:
                a = seen[0]
                sig = a.to_dict()
                terms = a.terms
                sig["n_terms"] = 0 if terms is None else len(terms)
                sig["n_missing"] = len(a.missing)
                row["signals"] = sig
            rows.append(row)
    finally:
        pipeline_mod.assess = real_assess  # type: ignore[assignment]
        if real_quote_prompt is not None:
            pipeline_mod.quote_prompt = real_quote_prompt  # type: ignore[attr-defined]
        store.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("golden", type=Path)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rules-on", action="store_true", help="ignore [answer] rules_off")
    args = ap.parse_args(argv)
    rows = features(args.kb, args.golden, args.rules_on)
    with args.out.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    stages: dict[str, int] = {}
    for r in rows:
        stages[r["stage"]] = stages.get(r["stage"], 0) + 1
    print(f"{len(rows)} queries -> {args.out}: {stages}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
