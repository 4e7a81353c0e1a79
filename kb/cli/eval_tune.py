"""``kb eval tune``: fit [search] settings to a golden set; write them only with --apply."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for
from kb.cli.eval_common import GoldenArg, PathOption, TagOption, TypeOption, open_kb, search_opts

if TYPE_CHECKING:
    from eval.stats import PairedResult
    from eval.tune import RefusalOutcome, TuneReport


def tune(
    golden: GoldenArg,
    test_fraction: Annotated[
        float,
        typer.Option(
            "--test-fraction",
            metavar="SHARE",
            help="Share of queries held out for the report (at least 0.1).",
            min=0.1,
        ),
    ] = 0.5,
    max_over_refusal: Annotated[
        float,
        typer.Option(
            "--max-over-refusal",
            metavar="SHARE",
            help="min_score may refuse at most this share of answerable train queries.",
            min=0.0,
            max=1.0,
        ),
    ] = 0.05,
    answer_over_refusal: Annotated[
        float,
        typer.Option(
            "--answer-over-refusal",
            metavar="SHARE",
            help="[answer] min_answerable may refuse at most this share of answerable "
            "train queries.",
            min=0.0,
            max=1.0,
        ),
    ] = 0.15,
    apply: Annotated[
        bool,
        typer.Option(
            "--apply",
            help="Write the changed settings to <KB>/config.toml [search]; only those "
            "that do not lose on the held-out queries.",
        ),
    ] = False,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Tune hybrid search on GOLDEN: fusion for mrr@10, min_score for refusals.

    The queries are split into train and test with a fixed seed (stratified by
    answerable). Each query is retrieved once, deep, and every grid point is ranked
    in memory exactly as kb search would rank it: fusion score/rrf, candidates
    20/50/100/200, rrf_k 10/30/60/100 (rrf only), keyword_weight 0.5-2
    (vector_weight 1). The best mrr@10 on train
    wins; then sentence_weight 0-0.5 (the sentence rerank) at that point.
    min_score is chosen on train for the refusal decision (kb ask refuses
    when no chunk's cosine reaches it): the most unanswerable queries refused while
    at most --max-over-refusal of the answerable ones are. [answer] min_answerable
    (kb ask's evidence check, computed over the passages the best fusion retrieves;
    no model runs) is chosen the same way within --answer-over-refusal. The report compares
    current and best on the test queries only, with the paired randomization test
    (p) and a bootstrap 95% CI.

    Nothing is written unless --apply is given; then the fusion keys are written if
    test mrr@10 did not drop, min_score and min_answerable if the test balanced
    accuracy of their refusals did not drop, into the KB's own config.toml (other
    keys and comments are kept).

    \b
    Examples:
      kb eval tune golden.yaml
      kb eval tune golden.yaml --apply

    Exit codes: 0 done; 2 bad golden set or option; 3 model missing; 4 empty KB.
    """
    from eval.golden import load_golden
    from eval.tune import Grid, gather
    from eval.tune import tune as run_tune
    from eval.tune_answerable import attach
    from kb.backends.embedder import make_embedder
    from kb.errors import UsageError
    from kb.rag.docfreq import doc_freq_of
    from kb.search import Retriever

    if not 0 < test_fraction < 1:
        raise UsageError(f"--test-fraction {test_fraction}: must be between 0 and 1")
    settings = settings_for(kb)
    gs = load_golden(golden)
    opts = search_opts(settings, None, path, doc_type, tag)
    grid = Grid()
    with open_kb(settings) as store:
        retriever = Retriever(store, lambda: make_embedder(settings.embedding, home=settings.home))
        retriever.embedder  # noqa: B018 - load and check the model before the loop
        total = len(gs.queries)
        done = [0]

        def progress(_qid: str) -> None:
            done[0] += 1
            if done[0] == total or done[0] % max(1, total // 10) == 0:
                err(f"tune: retrieved {done[0]}/{total} queries")

        depth = max(grid.depth, opts.candidates)
        gathered, warnings = gather(store, retriever, gs, opts, depth, progress)
        report = run_tune(
            store, gathered, opts, grid, test_fraction, max_over_refusal=max_over_refusal
        )
        err("tune: checking the evidence for answers (no model runs)")
        attach(
            report,
            store,
            gathered,
            retriever.embedder.embed_batch,
            doc_freq_of(store),
            settings.answer.min_answerable,
            settings.answer.require_key_terms,
            test_fraction,
            answer_over_refusal,
        )
    report.warnings[:0] = warnings
    written: Path | None = None
    answer = {} if report.answerable is None else report.answerable.to_apply()
    if apply and (report.to_apply() or answer):
        written = write_settings(
            settings.home / "config.toml", {"search": report.to_apply(), "answer": answer}
        )
    if json_out:
        print_json({**report.to_json(), "applied": str(written) if written else None})
    else:
        render(report, apply, written)


def write_settings(path: Path, values: dict[str, dict[str, Any]]) -> Path:
    """Set ``{section: {key: value}}`` in the TOML file at ``path`` (created if
    missing), keeping every other key and comment; written atomically."""
    import os

    import tomlkit

    from kb.errors import ConfigError

    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        doc = tomlkit.parse(text)
    except (OSError, tomlkit.exceptions.TOMLKitError) as e:
        raise ConfigError(f"{path}: cannot update: {e}") from None
    for name, keys in values.items():
        if not keys:
            continue
        section = doc.get(name)
        if section is None:
            section = tomlkit.table()
            doc[name] = section
        for key, value in keys.items():
            section[key] = value
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(tomlkit.dumps(doc), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"{path}: cannot write: {e.strerror}") from None
    return path


def _val(x: Any) -> str:
    return x if isinstance(x, str) else f"{x:g}"


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.4f}" if signed else f"{x:.4f}"


def _paired_row(table: Any, name: str, p: PairedResult) -> None:
    ci = "—" if p.ci_low is None else f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]"
    table.add_row(name, str(p.n), _fmt(p.a), _fmt(p.b), _fmt(p.delta, True), _fmt(p.p_value), ci)


def _refusal_rows(
    table: Any,
    key: str,
    test: tuple[RefusalOutcome, RefusalOutcome],
    rp: PairedResult | None,
) -> None:
    """Abstention and over-refusal of the current and best ``key``, and the paired test
    of the refusal decision's balanced accuracy."""
    cur, best = test
    table.add_row(f"abstention ({key})", "", _fmt(cur.abstention), _fmt(best.abstention))
    table.add_row(f"over_refusal ({key})", "", _fmt(cur.over_refusal), _fmt(best.over_refusal))
    if rp is not None:
        _paired_row(table, f"balanced acc. ({key})", rp)


def render(report: TuneReport, apply: bool, written: Path | None) -> None:
    from rich.table import Table

    from kb.cli.eval_common import console

    out = console()
    out.print(
        f"split: {report.n_train} train / {report.n_test} test queries (seeded); "
        f"{report.grid_size} fusion settings tried"
    )
    t = Table(title="settings")
    t.add_column("[search]")
    t.add_column("current", justify="right")
    t.add_column("best (train)", justify="right")
    from eval.tune import FUSION_KEYS

    for key in (*FUSION_KEYS, "min_score"):
        a, b = getattr(report.current, key), getattr(report.best, key)
        t.add_row(key, _val(a), _val(b) + (" *" if a != b else ""))
    t.add_row("train mrr@10", _fmt(report.train_mrr[0]), _fmt(report.train_mrr[1]))
    an = report.answerable
    if an is not None:
        star = " *" if an.best != an.current else ""
        t.add_row("answer.min_answerable", _val(an.current), _val(an.best) + star)
    out.print(t)
    m = Table(title="held-out test queries (paired randomization test, bootstrap 95% CI)")
    for col in ("metric", "n", "current", "best", "delta", "p", "95% CI"):
        m.add_column(col, justify="left" if col == "metric" else "right")
    for name, p in report.test.items():
        _paired_row(m, name, p)
    if report.refusal_test is not None:
        _refusal_rows(m, "min_score", report.refusal_test, report.refusal_paired)
    if an is not None:
        _refusal_rows(m, "min_answerable", an.test, an.paired)
    out.print(m)
    for w in report.warnings[:10]:
        err(f"kb: warning: {w}")
    changes, keep = dict(report.changes()), dict(report.to_apply())
    if an is not None and an.best != an.current:
        changes["min_answerable"] = an.best
        keep.update(an.to_apply())
    held = [k for k in changes if k not in keep]
    if not changes:
        out.print("the current settings are already the best on train; nothing to change")
    elif written is not None:
        out.print(f"wrote {', '.join(f'{k} = {_val(v)}' for k, v in keep.items())} to {written}")
    elif not apply and keep:
        out.print("dry run: pass --apply to write the changed settings to the KB's config.toml")
    if held:
        out.print(f"not applied (lost on the test queries): {', '.join(held)}")
