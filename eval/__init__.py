"""Evaluation: golden sets, matching, metrics, runs, comparisons and reports.

Reads through :mod:`kb.store`, retrieves through :mod:`kb.search`, answers through
:mod:`kb.rag`; never imports :mod:`ingest` (and chunk ids never decide a match, so
runs made with different chunkers stay comparable). The command line is
``kb eval`` (:mod:`kb.cli.eval_cmd`).

Modules: :mod:`.golden` (format v1; types in :mod:`.golden_types`, rules in
:mod:`.golden_validate`), :mod:`.matching` (chunk vs support),
:mod:`.resolve` (supports vs one KB), :mod:`.judgements` (credit assignment),
:mod:`.names` (metric names), :mod:`.metrics` (one function per metric),
:mod:`.run` (the run loop), :mod:`.store` (eval tables), :mod:`.compare` and
:mod:`.stats` (deltas, tests, wins/losses), :mod:`.report` and ``render_*``
(terminal, JSON, Markdown, HTML), :mod:`.export` (TREC, JSONL), :mod:`.gates`,
:mod:`.coverage`, :mod:`.drift`, :mod:`.record`, :mod:`.judge`.
"""
