"""The retrieval refusal rule on a small personal KB, with the real parts (the real
ingest pipeline, SQLite, LanceDB, the bundled all-MiniLM-L6-v2).

A meeting note covers five topics in one chunk, so its whole-chunk cosine to "What
did the committee reject?" stays below ``min_score`` although one of its sentences
answers the question word for word. A KB of three notes has no other chunk to lift
the best cosine, so the chunk rule alone refused it; the sentence rule
(:data:`kb.search.evidence.SENTENCE_MARGIN`) lets it through and still refuses
questions the notes know nothing about.

A washing machine's manual (a real PDF) says "remove the three transport bolts":
"How many transport bolts are there?" scores below both cosine rules, yet one
sentence holds every word it asks about, so ``kb ask`` answers it
(:func:`kb.rag.answerability.says_every_term`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from ingest.pipeline import ingest_paths
from kb.cli.search_cmd import _ask_would_answer
from kb.config import load_settings
from kb.rag import AskPipeline
from kb.rag.answerability import says_every_term
from kb.rag.docfreq import term_doc_freq
from kb.search import Retriever, SearchOptions
from kb.search.evidence import SENTENCE_MARGIN
from kb.store import Store
from tests.kb.test_rag_pipeline import ScriptedGenerator

pytestmark = pytest.mark.slow

NOTES = {
    "todo.md": "# To do this week\n\n- [x] renew the passport at the post office\n"
    "- [ ] call the bank about the mortgage offer\n- [ ] book the MOT for the Golf\n",
    "garden.md": "# Garden journal\n\nThe comfrey bed by the north fence came back strongly "
    "in April. The tomatoes went into the greenhouse on 12 May.\n",
    "meeting.md": "# Team meeting 2026-11-18\n\nAttendees: Dana, Omar, Lukas. Absent: Priya.\n\n"
    "Dana presented the Q4 budget. The committee approved the travel budget but rejected\n"
    "the request for a second build server. Omar will draft the on-call rota before Friday.\n"
    "The oldest laptop in the team is Lukas's 2017 ThinkPad; the newest is Dana's.\n",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("evidence")
    notes = root / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    _manual(notes / "washer-manual.pdf")
    settings = load_settings(root / "kb", user_file=root / "none.toml")
    store = Store.open(settings.home)
    ingest_paths(store, settings, [notes], embedder=real_embedder)
    yield store, Retriever(store, real_embedder), settings
    store.close()


def _manual(path: Any) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    c.setFont("Helvetica-Bold", 20)
    c.drawString(60, 760, "AquaWash 7000 User Manual")
    c.setFont("Helvetica", 11)
    lines = [
        "Thank you for buying the AquaWash 7000 washing machine.",
        "Before first use, remove the three transport bolts from the back panel.",
        "Keep the bolts: you need them whenever the machine is moved.",
        "The drum holds up to 8 kg of dry cotton laundry.",
        "Use the Eco 40-60 programme for normally soiled cotton; it takes 3 hours 28 minutes.",
    ]
    for i, line in enumerate(lines):
        c.drawString(60, 720 - 18 * i, line)
    c.showPage()
    c.save()


def test_a_sentence_that_answers_the_question_is_evidence(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    res = r.search("What did the committee reject?", opts)
    assert res.hits[0].path.endswith("notes/meeting.md")
    # the case: no chunk is close enough as a whole, one sentence is
    assert res.best_cosine is not None and res.best_cosine < opts.min_score
    assert res.best_sentence is not None
    assert res.best_sentence >= opts.min_score + SENTENCE_MARGIN
    assert res.has_evidence(opts.min_score)
    assert res.to_dict()["best_sentence"] == round(res.best_sentence, 6)
    # so kb ask runs the model instead of refusing "no_hits"
    gen = ScriptedGenerator(["1"])
    rec = AskPipeline(r, gen, settings).ask("What did the committee reject?", opts).result()
    assert rec.refusal_reason != "no_hits"
    assert not rec.refused and "rejected" in rec.text


@pytest.mark.parametrize(
    "question", ["How do I reset my router password?", "Flurbogast", "Who won the 1998 World Cup?"]
)
def test_questions_the_notes_know_nothing_about_are_still_refused(kb: Any, question: str) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    res = r.search(question, opts)
    assert res.hits  # ranking still shows the closest notes
    assert not res.has_evidence(opts.min_score), (res.best_cosine, res.best_sentence)
    assert not says_every_term(question, res.hits, lambda w: term_doc_freq(store.conn, w))
    assert not _ask_would_answer(res, opts, store)  # kb search says kb ask would refuse
    rec = AskPipeline(r, ScriptedGenerator(["1"]), settings).ask(question, opts).result()
    assert rec.refused and rec.refusal_reason == "no_hits"
    # the refusal names the closest passage and how close it came (kb ask prints it)
    assert rec.nearest is not None and rec.nearest["path"] == res.hits[0].path
    assert rec.nearest["cosine"] == round(res.best_cosine, 3)


def test_a_sentence_with_every_word_of_a_short_question_is_evidence(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    question = "How many transport bolts are there?"
    res = r.search(question, opts)
    assert res.hits[0].path.endswith("notes/washer-manual.pdf")
    # both cosine rules refuse it ...
    assert not res.has_evidence(opts.min_score), (res.best_cosine, res.best_sentence)
    assert says_every_term(question, res.hits, lambda w: term_doc_freq(store.conn, w))
    assert _ask_would_answer(res, opts, store)  # so kb search does not say it would refuse
    # ... but kb ask goes on to its evidence check, which finds every word in one
    # sentence (its p(answerable) sits near the 0.4 threshold: short questions have
    # low cosines) ...
    rec = AskPipeline(r, ScriptedGenerator(["1"]), settings).ask(question, opts).result()
    assert rec.refusal_reason != "no_hits"
    assert rec.answerability is not None and rec.answerability["coverage"] == 1.0
    assert rec.answerability["missing"] == [] and rec.answerability["absent_keys"] == []
    # ... and with that check off the answer is the sentence, verified
    off = replace(settings, answer=replace(settings.answer, min_answerable=0.0))
    rec = AskPipeline(r, ScriptedGenerator(["1"]), off).ask(question, opts).result()
    assert not rec.refused and "three transport bolts" in rec.text
    assert rec.sentences and rec.sentences[0].verdict == "supported"


def test_without_sentence_vectors_the_chunk_rule_decides(kb: Any) -> None:
    _, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    no_rerank = replace(opts, sentence_weight=0.0)
    res = r.search("What did the committee reject?", no_rerank)
    assert res.best_sentence is None and not res.has_evidence(opts.min_score)
