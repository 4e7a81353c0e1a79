"""A question that names a section ("What are the Q3 risks?") is answered from it.

Unit tests of :func:`kb.rag.naming.names_section`, and an integration test on
the real parts (the ingest pipeline, SQLite, LanceDB, the bundled all-MiniLM-L6-v2):
the sentences under "## Risks" name no risk, so every cosine rule refused "What are the
risks?" before the section heading counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from ingest.pipeline import ingest_paths
from kb.cli.search_cmd import _ask_would_answer
from kb.config import load_settings
from kb.rag import AskPipeline
from kb.rag.answerability import check, section_named
from kb.rag.candidates import Candidate, rank_candidates
from kb.rag.naming import named_lists, named_records, names_section
from kb.rag.selectors import list_candidates, record_candidates, section_candidates
from kb.rag.terms import asked_terms, question_terms
from kb.rag.verify import PassageSentences
from kb.search import Retriever, SearchOptions
from kb.store import Store
from kb.types import Hit, Locator, Span
from tests.kb.test_rag_pipeline import ScriptedGenerator

PLANNING = (
    "# Q3 planning\n\nDate: 14 July 2026. Present: Priya, Marco, Sofia.\n\n"
    "## Decisions\n\n- The mobile app redesign ships in September.\n"
    "- We drop the legacy CSV export.\n\n"
    "## Risks\n\nThe payment provider migration could slip, because the vendor's "
    "sandbox is still down.\n"
)
PLANTS = "# Plants\n\nThe snake plant only needs water every three weeks.\n"
INCIDENT = (
    "# Incident: checkout outage, 30 October\n\n"
    "Summary: checkout returned HTTP 502 for 47 minutes.\n\n"
    "Impact: about 1,300 orders failed. No card was charged twice.\n\n"
    "Follow-ups:\n"
    "1. Add a check that rejects pool sizes below 20 in config review.\n"
    "2. Alert on 5xx rate above 2% for 3 minutes.\n"
)

STANDUP = (
    "# Standup 24 Nov\n\nAna: finished the export endpoint, starting on rate limiting.\n"
    "Ben: waiting for DBA approval on the staging migration.\n\n"
    "Blocker: the payments team has not signed off the webhook changes.\n"
)


RELEASES = (
    "# Release notes\n\n## v3.1 (2 October 2026)\n\n- Added CSV export for invoices.\n"
    "- Fixed the timezone bug in scheduled reports.\n\n## v3.0 (14 August 2026)\n\n"
    "- New billing page.\n- Dropped support for Internet Explorer 11.\n"
)


def _hit(text: str, *path: str, file: str = "work/q3-planning.md") -> Hit:
    return Hit(chunk_id=1, text=text, locator=Locator(file, "md", path, Span()), score=1.0)


RISKS = _hit("The payment provider migration could slip.", "Q3 planning", "Risks")


def test_the_last_heading_must_name_a_term_and_the_path_must_hold_them_all() -> None:
    def named(q: str, hit: Hit) -> bool:
        return names_section(question_terms(q, None), hit)

    assert named("What are the Q3 risks?", RISKS)  # q3 from the title, risks from the section
    assert named("What are the risks?", RISKS)
    assert not named("What are the Q4 risks?", RISKS)  # q4 is nowhere
    assert not named("What is Q3 planning about?", RISKS)  # the section names neither
    assert not named("What are the risks?", _hit("text", file="risks.md"))  # no heading
    # the file's name counts for the path, not for the section
    assert named("What are the planning risks?", _hit("t", "Risks", file="planning.md"))
    assert not named("What are the?", RISKS)  # no content term
    # a number alone names no section ("Part 3" for "What is 3?"), but a code the
    # question writes whole does: "When was v3.1 released?" over "## v3.1 (2 October 2026)"
    assert not named("What is 3?", _hit("t", "History", "Part 3"))
    release = _hit("- Added CSV export.", "Release notes", "v3.1 (2 October 2026)")
    assert named("When was v3.1 released?", release)
    assert not named("When was v3.0 released?", release)
    assert not named("What is 3?", _hit("t", "Warsaw", "Part 3", file="Warsaw.md"))
    # squad-dev's sections name nothing a question asks
    assert not named("Who ruled Warsaw?", _hit("t", "Warsaw", "Part 4", file="Warsaw.md"))


def test_a_journal_date_heading_names_its_day() -> None:
    day = _hit("Dentist at 14:30: one small filling.", "Journal", "2026-11-09")
    # a run a person does is what the question asks about, not a light verb: no run is
    # written on this day ("How far did I run on Saturday?" was answered from a day of
    # a market and a call); a thing that runs still runs lightly
    assert not names_section(question_terms("How far did I run on 9 November?", None), day)
    ran = PassageSentences.of(1, _hit("Ran 10 km along the river.", "Journal", "2026-11-09"))
    got = check("How far did I run on 9 November?", [ran], None, 0.4)  # the sentence says it
    assert got.every_term and got.answerable
    assert names_section(question_terms("What did I get on 9 November?", None), day)
    assert "run" in asked_terms(question_terms("How far did I run?", None))
    assert "run" not in asked_terms(question_terms("When does the backup run?", None))
    assert names_section(question_terms("What did I do on 9 November?", None), day)
    assert not names_section(question_terms("What did I do on 20 November?", None), day)
    assert not names_section(question_terms("What did I do on the 9th?", None), day)  # no word


def test_a_note_without_a_heading_is_titled_by_its_file_name() -> None:
    """A daily note ``2026-11-09.md`` without a heading names 9 November; a recording's
    or a PDF's file name is no title."""
    q = question_terms("What did I do on 9 November?", None)
    note = _hit("Dentist at 14:30: one small filling.", file="daily/2026-11-09.md")
    assert names_section(q, note)
    assert not names_section(question_terms("What did I do on 10 November?", None), note)
    for kind, name in (("audio", "memos/2026-11-09.wav"), ("pdf", "scans/2026-11-09.pdf")):
        other = Hit(1, note.text, Locator(name, kind, (), Span()), 1.0)
        assert not names_section(q, other), kind


def test_a_named_section_lifts_p_answerable_to_the_floor() -> None:
    p = PassageSentences.of(1, RISKS)
    got = check("What are the risks?", [p], None, 0.4)
    assert got.section and got.answerable and got.score >= 0.5
    assert got.to_dict()["section"] is True
    other = check("What are the costs?", [p], None, 0.4)
    assert not other.section and not other.answerable
    assert section_named("What are the risks?", [RISKS])
    assert not section_named("What are the costs?", [RISKS])
    assert not section_named("What are the risks?", [])


def test_section_candidates_are_the_named_sections_sentences_in_passage_order() -> None:
    risks = PassageSentences.of(1, RISKS)
    other = PassageSentences.of(2, _hit("Budget is fine.", "Q3 planning", "Costs"))
    cands = [
        Candidate(2, 0, "Budget is fine.", 0.9),
        Candidate(1, 1, "b", 0.8),
        Candidate(1, 0, "a", 0.7),
    ]
    got = section_candidates("What are the risks?", [risks, other], cands)
    assert [(c.n, c.j) for c in got] == [(1, 0), (1, 1)]
    assert section_candidates("What are the costs?", [risks], cands) == []


def test_a_lead_in_names_its_list() -> None:
    """ "Follow-ups:" after a blank line was glued to the sentence before it ("No card
    was charged twice. Follow-ups:"), its items did not hold its word, and quote mode
    offered the label alone as an answer. Now the label is a sentence of its own that
    leads the items, and a question that names it is answered by the items."""
    ps = PassageSentences.of(1, _hit(INCIDENT, "Incident: checkout outage, 30 October"))
    said = [ps.sentence(j) for j in range(len(ps.spans))]
    assert "No card was charged twice." in said and "Follow-ups:" in said
    lead = said.index("Follow-ups:")
    assert ps.lists == [(lead, (lead + 1, lead + 2))]
    assert all({"follow", "followup"} <= ps.stems[j] for j in (lead + 1, lead + 2))
    assert named_lists(question_terms("What are the follow-ups?", None), ps) == [lead + 1, lead + 2]
    assert named_lists(question_terms("What are the risks?", None), ps) == []
    assert named_lists(question_terms("What were the follow-ups not done?", None), ps) == []
    cands = rank_candidates("What are the follow-ups?", [ps], None, 8)
    assert "Follow-ups:" not in [c.text for c in cands]  # the label alone says nothing
    got = list_candidates("What are the follow-ups?", [ps], cands)
    assert [c.j for c in got] == [lead + 1, lead + 2]
    # a colon that leads no list ("Impact:" has its value on its line) leads nothing
    plain = PassageSentences.of(1, _hit("Next steps:\n\nWe wait for the vendor.", "Notes"))
    assert plain.lists == []


def test_a_key_names_its_line() -> None:
    """A ``key: value`` line's key is the name of what it says, as a heading is: "What
    is the blocker?" over "Blocker: the payments team ..." (cosine 0.2: the key is the
    only word in common) is answered by that line, not refused as no hit."""
    ps = PassageSentences.of(1, _hit(STANDUP, "Standup 24 Nov", file="work/standup.md"))
    said = [ps.sentence(j) for j in range(len(ps.spans))]
    line = next(j for j, t in enumerate(said) if t.startswith("Blocker:"))
    assert named_records(question_terms("What is the blocker?", None), ps) == [line]
    assert named_records(question_terms("What was the standup blocker?", None), ps) == [line]
    # the key must hold a word of the question; the heading alone names no line
    assert named_records(question_terms("What was the standup?", None), ps) == []
    assert named_records(question_terms("What is the blocker for Ana?", None), ps) == []
    assert named_records(question_terms("What is not a blocker?", None), ps) == []
    # a key is a label: one that says more than the question asks names nothing, and a
    # place, a reason or a way is not what a key names (review findings)
    for q, record in [
        ("What is the password?", "Password reset needed: the bank locked the account."),
        ("What was decided?", "Still to be decided: the hosting provider."),
        ("What was decided?", "No decision: we wait for legal."),
        ("Where is the hotel?", "Hotel: Casa do Príncipe"),
        ("Why is there a blocker?", "Blocker: legal has not signed off."),
    ]:
        other = PassageSentences.of(1, _hit(record, "Notes"))
        assert named_records(question_terms(q, None), other) == [], (q, record)
    # every line of a sentence is read: a short key line joins the sentence before it
    owner = PassageSentences.of(1, _hit("Reason: the migration is good.\nOwner: Sofia", "Notes"))
    assert named_records(question_terms("Who is the owner?", None), owner) == [0]
    assert named_records(question_terms("How many guests?", None), owner) == []
    assert section_named("What is the blocker?", [ps.hit])
    assert not section_named("What is the holiday plan?", [ps.hit])
    cands = rank_candidates("What is the blocker?", [ps], None, 8)
    got = record_candidates("What is the blocker?", [ps], cands)
    assert [c.j for c in got] == [line]
    assert record_candidates("What did Ben wait for?", [ps], cands) == []


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("sections")
    notes = root / "notes"
    (notes / "work").mkdir(parents=True)
    (notes / "work" / "q3-planning.md").write_text(PLANNING, encoding="utf-8")
    (notes / "plants.md").write_text(PLANTS, encoding="utf-8")
    (notes / "work" / "incident.md").write_text(INCIDENT, encoding="utf-8")
    (notes / "work" / "standup.md").write_text(STANDUP, encoding="utf-8")
    (notes / "work" / "releases.md").write_text(RELEASES, encoding="utf-8")
    settings = load_settings(root / "kb", user_file=root / "none.toml")
    store = Store.open(settings.home)
    ingest_paths(store, settings, [notes], embedder=real_embedder)
    try:
        yield store, Retriever(store, lambda: real_embedder), settings
    finally:
        store.close()


@pytest.mark.slow
def test_kb_ask_answers_from_the_section_a_question_names(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    res = r.search("What are the risks?", opts)
    assert not res.has_evidence(opts.min_score), (res.best_cosine, res.best_sentence)
    assert _ask_would_answer(res, opts, store)
    rec = AskPipeline(r, ScriptedGenerator(["1"]), settings).ask("What are the risks?", opts)
    out = rec.result()
    assert not out.refused, out.refusal_reason
    assert "payment provider migration" in out.text
    assert out.citations[0].locator["heading"].endswith("Risks")


@pytest.mark.slow
def test_a_named_section_is_quoted_item_by_item(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    assert settings.answer.quote_max_sentences == 1  # a plain question quotes one sentence
    gen = ScriptedGenerator(["1 2"])
    out = AskPipeline(r, gen, settings).ask("What were the decisions?", opts).result()
    assert not out.refused, out.refusal_reason
    assert out.text.startswith("The mobile app redesign ships in September.")
    assert "We drop the legacy CSV export." in out.text  # the second item, in note order
    # both items, in note order: the model answers or refuses, it cannot drop one
    assert 'answer ::= "1 2"' in str(gen.calls[-1]["grammar"])


@pytest.mark.slow
def test_a_list_a_lead_in_names_is_quoted_item_by_item(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    gen = ScriptedGenerator(["1 2"])
    out = AskPipeline(r, gen, settings).ask("What are the follow-ups?", opts).result()
    assert not out.refused, out.refusal_reason
    assert out.text.startswith("1. Add a check that rejects pool sizes below 20")
    assert "2. Alert on 5xx rate above 2% for 3 minutes." in out.text
    assert "Follow-ups:" not in out.text


@pytest.mark.slow
def test_a_question_no_section_names_is_still_refused(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    res = r.search("What are the holiday plans?", opts)
    assert not section_named(res.query, res.hits)
    rec = AskPipeline(r, ScriptedGenerator(["1"]), settings).ask(
        "What are the holiday plans?", opts
    )
    assert rec.result().refused


@pytest.mark.slow
def test_kb_ask_answers_from_the_line_a_key_names(kb: Any) -> None:
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    res = r.search("What is the blocker?", opts)
    assert not res.has_evidence(opts.min_score), (res.best_cosine, res.best_sentence)
    assert _ask_would_answer(res, opts, store)
    gen = ScriptedGenerator(["1"])
    out = AskPipeline(r, gen, settings).ask("What is the blocker?", opts).result()
    assert not out.refused, out.refusal_reason
    assert out.text.startswith("Blocker: the payments team has not signed off")
    assert out.citations[0].locator["path"].endswith("standup.md")


@pytest.mark.slow
def test_a_release_is_dated_by_the_heading_its_code_names(kb: Any) -> None:
    """ "When was v3.1 released?" was refused (p 0.37): "3.1" alone names no section
    ("Part 3"), and its sentences say no date. The code names the section, and the
    heading's day is quoted before the section's sentence."""
    store, r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    out = AskPipeline(r, ScriptedGenerator(["1"]), settings).ask("When was v3.1 released?", opts)
    rec = out.result()
    assert not rec.refused, (rec.refusal_reason, rec.answerability)
    assert re.match(r"v3\.1 \(2 October 2026\) \[#\d\] Added CSV export", rec.text), rec.text
    assert rec.grounded
