"""``kb eval sweep GOLDEN --chunker SPEC --chunker SPEC ...``: evaluate several
chunkings side by side and print a leaderboard (:mod:`eval.sweep`).

Per chunking: build it (:func:`ingest.chunkings.build_chunking`: only texts no
chunking embedded before reach the model), then run the golden set's retrieval on it
(stored as the eval run ``sweep:SPEC``, replacing an older one). Query vectors are
computed once and reused for every chunking. The live chunking is never changed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from kb.cli.common import JsonOption, KbOption, QuietOption, err, k_option, print_json, settings_for
from kb.cli.eval_common import GoldenArg, HtmlOption, MdOption, ModeOption, open_kb, search_opts
from kb.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

    from kb.backends.embedder import Embedder


class MemoQueries:
    """An embedder whose query vectors are computed once per text (one sweep embeds
    each golden question once, whatever the number of chunkings); loaded on first use."""

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        self._inner: Embedder | None = None
        self._memo: dict[str, np.ndarray] = {}

    @property
    def inner(self) -> Embedder:
        if self._inner is None:
            self._inner = self._factory()
        return self._inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._memo:
            self._memo[text] = self.inner.embed_query(text)
        return self._memo[text]

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_batch(texts)


def sweep(
    golden: GoldenArg,
    chunker: Annotated[
        list[str],
        typer.Option(
            "--chunker",
            metavar="SPEC",
            help="A chunking to evaluate; repeat it. The first is the baseline.",
            show_default=False,
        ),
    ],
    k: Annotated[int | None, k_option("Retrieval depth scored.", key="eval.k")] = None,
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            metavar="NAME",
            help="The metric tested against the baseline (wins, ties, losses).",
        ),
    ] = "mrr@10",
    mode: ModeOption = None,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Evaluate each chunking (retrieval only) on GOLDEN and print a leaderboard: the
    retrieval metrics (doc_span matching), chunk count, mean/p95 tokens, texts embedded
    versus taken from the cache and the seconds spent, and against the baseline (the
    first --chunker) the paired randomization test on --metric, Holm-corrected, with
    its 95% interval and the smallest difference the set can detect. A chunking wins
    or loses only when significant; otherwise it ties. Chunkings missing from the KB
    are built (and kept: see `kb chunkers list`); the live chunking is not changed.

    \b
    Examples:
      kb eval sweep golden.yaml --chunker structure --chunker window --chunker window:size=64
      kb eval sweep golden.yaml --chunker structure --chunker ./para.py#chunk --html sweep.html
    """
    from eval.golden import load_golden
    from eval.names import parse_metric
    from eval.render_sweep import sweep_html, sweep_markdown, sweep_text
    from eval.run import RunOptions, run_eval
    from eval.store import EvalStore
    from eval.sweep import SweepEntry, leaderboard
    from ingest.chunkers.lint import read_limit
    from ingest.chunkings import build_chunking
    from ingest.tokens import counter_for
    from kb import __version__
    from kb.backends.embedder import embedding_model_id, make_embedder
    from kb.cli.chunkings_cmd import warn_build_problems
    from kb.cli.eval_common import write_reports
    from kb.cli.eval_runtime import RunProgress
    from kb.search import Retriever
    from kb.store.lock import write_lock

    if len(chunker) < 2:
        raise UsageError("--chunker: give at least two chunkings (the first is the baseline)")
    spec = parse_metric(metric)
    if spec.k is None:
        raise UsageError(f"--metric {metric}: choose a ranked retrieval metric such as mrr@10")
    settings = settings_for(kb)
    tokenizer = counter_for(settings.embedding.model)  # chunk-level metrics in its tokens
    _check_specs(settings, chunker)
    depth = k if k is not None else settings.eval.k
    if spec.k is not None and spec.k > depth:
        raise UsageError(f"--metric {metric}: needs -k {spec.k} or more")
    gs = load_golden(golden)
    opts = search_opts(settings, mode, None, None, None)
    entries: list[SweepEntry] = []
    with open_kb(settings) as store:
        store.require_writable("kb eval sweep")
        holder: dict[str, Embedder] = {}

        def ingest_embedder() -> Embedder:
            if "e" not in holder:
                holder["e"] = make_embedder(settings.embedding, home=store.home, purpose="ingest")
            return holder["e"]

        queries = MemoQueries(lambda: make_embedder(settings.embedding, home=store.home))
        es = EvalStore(store)
        for s in chunker:
            with write_lock(store.home, "kb eval sweep"):
                rep = build_chunking(store, settings, s, ingest_embedder)
            warn_build_problems(rep)
            retriever = Retriever(store, cast("Embedder", queries), chunking_id=rep.chunking_id)
            extra = {
                "kb_version": __version__,
                "embedding_configured": embedding_model_id(settings.embedding),
                "chunking": {"spec": s, "id": rep.chunking_id},
            }
            ropts = RunOptions(k=depth, name=f"sweep:{s}", search=opts, answers=False, replace=True)
            started = time.perf_counter()
            out = run_eval(
                store,
                retriever,
                None,
                gs,
                ropts,
                extra,
                RunProgress(quiet=quiet),
                tokenizer=tokenizer,
            )
            build = {
                **rep.to_dict(),
                "seconds_eval": time.perf_counter() - started,
                "lint": stored_lint(store, rep.chunking_id, read_limit(settings.embedding.model)),
            }
            row = es.get_run(out.run_id)
            assert row is not None
            count, mean, p95 = _token_stats(store, rep.chunking_id)
            entries.append(SweepEntry(s, row, es.results(out.run_id), build, count, mean, p95))
            if not quiet:
                err(
                    f"kb: {s}: {rep.chunks} chunks, {rep.embedded} texts embedded, "
                    f"{rep.cached} from the cache, {build['seconds_eval']:.1f}s eval"
                )
    board = leaderboard(entries, metric).to_json()
    write_reports(board, md, html, sweep_markdown, sweep_html)
    if json_out:
        print_json(board)
    else:
        typer.echo(sweep_text(board))


def _check_specs(settings: Any, specs: list[str]) -> None:
    """Every spec loads (a plug-in that cannot be imported stops the sweep before any
    work), and no two name the same chunking (same chunker identity)."""
    import json

    from ingest.chunkers import make_chunker

    seen: dict[tuple[str, str, str], str] = {}
    for s in specs:
        c = make_chunker(s, settings)
        info = c.info
        close = getattr(c, "close", None)
        if close is not None:
            close()
        key = (info.name, info.version, json.dumps(info.params, sort_keys=True))
        if key in seen:
            raise UsageError(f"--chunker {s} names the same chunking as {seen[key]}")
        seen[key] = s


def stored_lint(store: Any, chunking_id: int, limit: int) -> dict[str, int]:
    """The lint a chunking's stored chunks show on their own (``kb chunkers check``
    adds what needs the documents: heading crossings and uncovered text): chunks longer
    than the embedder reads (``limit`` tokens), shorter than 32 tokens, and with an odd
    number of ```` ``` ```` fences (a code block cut in two)."""
    from ingest.chunkers.check import SHORT_TOKENS

    out = {"too_long": 0, "short": 0, "broken_fence": 0}
    for tokens, text in store.conn.execute(
        "SELECT token_count, text FROM chunks WHERE chunking_id = ?", (chunking_id,)
    ):
        out["too_long"] += tokens > limit
        out["short"] += tokens < SHORT_TOKENS
        out["broken_fence"] += text.count("```") % 2
    return out


def _token_stats(store: Any, chunking_id: int) -> tuple[int, float | None, float | None]:
    """Chunk count and mean / p95 tokens of one chunking."""
    import numpy as np

    rows = store.conn.execute(
        "SELECT token_count FROM chunks WHERE chunking_id = ?", (chunking_id,)
    ).fetchall()
    if not rows:
        return 0, None, None
    t = np.array([r[0] for r in rows], dtype=np.float64)
    return len(rows), round(float(t.mean()), 1), round(float(np.percentile(t, 95)), 1)
