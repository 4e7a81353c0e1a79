"""Reading notes, a running log, a car note, a pet's note, a travel plan and language
lessons on the real parts (the ingest pipeline, SQLite, LanceDB, the bundled
all-MiniLM-L6-v2): a reference line under a book's title says who wrote it, a one-word
question is answered by the sentence that writes its verb (also inside a section the
question names), an insurer is found in the insurance line, a cause in a sentence that
says *because*, the last service in the table row with the latest date, a plural in
*-ses* meets its singular, a word its plain synonym, *how much is* asks for a price,
"What did X suggest?" is answered by the sentence where X suggests, a fee answers what
someone charges, a name in mixed case and a number is a model, and a chain of pronouns
is quoted after the sentence that names who they are.

The generator is scripted to pick the first quote candidate, so each test reads what the
pipeline offers and refuses, not what a model makes of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kb.rag import AskPipeline
from kb.search import SearchOptions
from tests.kb.test_rag_daily_real import ScriptedGenerator, ask, notes_kb

NOTES = {
    "books.md": (
        "# Book notes\n\n## The Dispossessed\n\nUrsula K. Le Guin, 1974. Shevek, a physicist "
        "from the anarchist moon Anarres, travels to the propertarian planet Urras.\n\n"
        "## Thinking, Fast and Slow\n\nDaniel Kahneman, 2011. System 1 is fast and "
        "intuitive; System 2 is slow and deliberate.\n"
    ),
    "health/running.md": (
        "# Running log\n\n## November 2026\n\n- 2 Nov: 10 km, 58:30.\n"
        "- 9 Nov: intervals, 6 x 400 m at 1:45 each.\n"
        "- 21 Nov: physio said the knee pain is patellar tendinopathy; reduce hills for "
        "four weeks.\n"
    ),
    "work/retro.md": (
        "# Sprint 42 retro\n\n## What did not go well\n\n- The staging environment was down "
        "for most of Tuesday because the TLS certificate expired.\n"
        "- Code review took too long; median time to first review was 26 hours.\n\n"
        "## Actions\n\n- Lena to write the postmortem for the staging outage.\n"
    ),
    "car.md": (
        "# Car\n\nThe MOT is due on 18 March 2027. The tyre pressure is 36 psi front.\n"
        "Insurance renews in July with Admiral; the policy number is ADM-5531-9920.\n\n"
        "## Service history\n\n| Date | Mileage | Work | Garage | Cost |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| 2025-03-14 | 61,200 | Annual service, brake fluid | Hillside Motors | £289 |\n"
        "| 2026-03-20 | 72,450 | Annual service, cambelt | Hillside Motors | £745 |\n"
        "| 2025-09-02 | 66,870 | Two front tyres | Tyre Town | £212 |\n"
    ),
    "pets/miso.md": (
        "# Miso (cat)\n\nBorn around April 2021; adopted from the Cats Protection centre in "
        "Bolton in August 2021. Insured with PetPlan, £18.40 a month.\n\n## Vet\n\n"
        "Greenway Vets, Dr Hannah Cole. Annual booster due every September.\n"
        "Last visit: 12 September 2026, booster and a dental check. She weighed 4.3 kg.\n"
        "The vet said her teeth are fine but she should lose a little weight.\n"
    ),
    "learning/spanish.md": (
        "# Spanish\n\nLessons with Lucía Ortega on italki, Tuesdays and Fridays at 19:00.\n"
        "Each lesson costs $22.\n\n## Goals\n\n- Pass the DELE B1 exam in May 2027. The exam "
        "fee is €165; registration closes on 3 March.\n"
    ),
    "travel/lisbon.md": (
        "# Lisbon trip\n\n## Flights\n\nOutbound: TP1351 from Manchester, 14 March, departs "
        "06:40.\nReturn: TP1350 on 19 March, departs Lisbon 10:45.\n\n## Notes\n\n"
        "- Joana suggested Taberna da Rua das Flores for dinner.\n"
        "- Monday: Tram 28 early, then the Gulbenkian Museum.\n"
    ),
    "work/supervision.md": (
        "# Supervisor meeting, 12 November\n\nWith Prof. Okafor and Dr Lindqvist.\n"
        "Dr Lindqvist suggested reading Gelman and Hill (2007) on multilevel models.\n"
        "Next meeting in two weeks.\n"
    ),
    "work/onboarding.md": (
        "# Onboarding\n\nManager: Sofia Brandt. Buddy: Tomasz Wiśniewski.\n\n## People\n\n"
        "- Tomasz owns the demand forecast pipeline; he moved from the Berlin office.\n"
    ),
    "recipes/dal.md": (
        "# Tarka dal\n\nServes 4. Takes about 45 minutes.\n\n## Method\n\nRinse the lentils "
        "until the water runs clear. Simmer with the turmeric for 25 minutes, until soft.\n"
    ),
    "work/accountant.md": (
        "# Call with the accountant, 3 November\n\nSpoke to Priya Nair at Ledgerwise.\n"
        "She said the self-assessment deadline is 31 January.\n"
        "Her fee for the tax return is £350 plus VAT.\n"
    ),
    "home/move.md": (
        "# Moving house\n\nCompletion date: 16 January 2027. The removal firm is Pickfords; "
        "they quoted £1,340 for a full packing service.\n\n## Heating\n\n"
        "Boiler: Vaillant ecoTEC plus 832, installed in 2019 by Brightwell Heating.\n"
    ),
    "trips/rome.md": (
        "# Rome, April 2027\n\nWe fly from Bristol on 9 April at 07:15.\nThe apartment is in "
        "Trastevere, on Via della Lungaretta; check-in is from 15:00 and the host is Giulia.\n\n"
        "## Plans\n\n- 10 April: Vatican Museums, tickets booked for 09:30 (€20 each).\n"
        "- 11 April: Colosseum and the Forum; the guide is called Marco.\n"
    ),
    "car/breakdown.md": (
        "# Breakdown cover\n\nMembership number: GB-2291-7734, with roadside and home start.\n"
        "Period of cover: 1 February 2026 to 31 January 2027.\n"
    ),
    "work/one-to-one.md": (
        "# 1:1 with Marcus, 18 November\n\nMarcus confirmed my promotion takes effect on "
        "1 January.\nThe salary review will be done in March.\n"
    ),
    "family/gifts.md": (
        "# Christmas gifts\n\n| Person | Gift | Price | Bought |\n| --- | --- | --- | --- |\n"
        "| Mum | Cashmere scarf | £85 | yes |\n| Tom | LEGO Technic set | £120 | no |\n"
    ),
    "home/kitchen.md": (
        "# Kitchen renovation\n\nWe chose Hartley Kitchens because their fitter, Dave Morris, "
        "did the Patels' kitchen next door.\n"
    ),
    "family/dad.md": (
        "# Dad's medication\n\nHe takes amlodipine 5 mg every morning. The GP, Dr Farah, said "
        "to stop ibuprofen because it raises blood pressure; paracetamol is fine.\n"
    ),
    "work/applications.md": (
        "# Job applications\n\n| Company | Role | Applied | Status |\n| --- | --- | --- | --- |\n"
        "| Monzo | Platform engineer | 2026-09-20 | rejected |\n"
        "| Ocado | ML engineer | 2026-10-02 | take-home test |\n"
    ),
    "home/shed.md": (
        "# Shed\n\nThe shed roof was not replaced until April 2025, when Dan fitted new felt. "
        "We bought the shed in 2019.\n"
    ),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    yield from notes_kb(tmp_path_factory.mktemp("references"), NOTES, real_embedder)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "quote"),
    [
        ("Who wrote The Dispossessed?", "Ursula K. Le Guin, 1974."),
        ("Who wrote Thinking, Fast and Slow?", "Daniel Kahneman, 2011."),
        ("What did the physio say?", "physio said the knee pain"),
        ("Who is the insurer?", "with Admiral"),
        ("What caused the staging outage?", "because the TLS certificate expired"),
        ("How much was the last service?", "| 2026-03-20 |"),
        ("When was the earliest service?", "| 2025-03-14 |"),
        ("What did the vet say?", "The vet said her teeth are fine"),
        ("When does DELE registration close?", "registration closes on 3 March"),
        ("Who is Miso's vet?", "Greenway Vets, Dr Hannah Cole."),
        ("What time does the return flight leave?", "departs Lisbon 10:45"),  # synonyms
        ("Who recommended Taberna da Rua das Flores?", "Joana suggested"),
        ("How much is the DELE exam?", "The exam fee is €165"),  # a price
        # the sentence where the doer does what is asked, not the one that names the doer
        ("What did Dr Lindqvist suggest?", "Dr Lindqvist suggested reading"),
        ("What does Tomasz own?", "Tomasz owns the demand forecast pipeline"),
        # who *she* is: the sentence the chain of pronouns starts from
        ("Who is the accountant?", "Spoke to Priya Nair at Ledgerwise. [#1] Her fee"),
        ("How much does the accountant charge?", "£350 plus VAT"),  # a fee is a charge
        ("How much did Pickfords quote?", "they quoted £1,340"),  # quoted/quote
        ("What model is the boiler?", "Vaillant ecoTEC plus 832"),
        ("Have I bought Tom's present?", "| Tom | LEGO Technic set | £120 | no |"),
        ("Who is the host?", "the host is Giulia"),  # a clause says who the host is
        ("What is the guide called?", "the guide is called Marco"),
        ("When does the breakdown cover end?", "1 February 2026 to 31 January 2027"),
        ("Who is the fitter?", "their fitter, Dave Morris,"),  # an appositive says who
        ("Who is the GP?", "The GP, Dr Farah,"),
        ("Which company did we pick for the kitchen?", "We chose Hartley Kitchens"),  # pick
        # "not ... until" dates the act: it does not deny it
        ("When was the shed roof replaced?", "not replaced until April 2025"),
        # *apply* meets the column *Applied* (it stemmed to "app", p 0.30)
        ("When did I apply to Monzo?", "| Monzo | Platform engineer | 2026-09-20 |"),
    ],
)
def test_a_question_is_answered_from_the_line_that_says_it(
    kb: Any, question: str, quote: str
) -> None:
    out = ask(kb, question)
    assert not out.refused, (question, out.answerability)
    assert quote in out.text and out.grounded, (question, out.text)


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "Who wrote Dune?",
        "Who translated The Dispossessed?",
        "Who published The Dispossessed?",
        "What did the dentist say?",
        "Who is the insurer of the house?",
        "What caused the power cut?",
        "What caused the certificate to expire?",  # the cause of the cause
        "When was my last physio appointment?",
        "What did the groomer say?",
        "When does DELE registration open?",
        "Who is Miso's groomer?",
        "When does French registration close?",
        "When does the return flight arrive?",  # an antonym, no synonym
        "What did Dr Lindqvist publish?",
        "How much does the dentist charge?",
        "How much did the plumber quote?",
        "What model is the thermostat?",
        "Have I bought Dad's present?",
        "Who is the solicitor?",
        "Who is the cleaner?",
        "When does the phone contract end?",
        "Who is the plumber?",
        "Who is the electrician?",
        "When was the shed painted?",
    ],
)
def test_a_question_the_notes_do_not_answer_is_refused(kb: Any, question: str) -> None:
    out = ask(kb, question)
    assert out.refused, (question, out.text)


@pytest.mark.slow
def test_an_identity_question_quotes_one_line_of_the_section_it_names(kb: Any) -> None:
    """ "Who is Miso's vet?" names the section "Vet", but one name answers it: one line,
    not the section's sentences one after another."""
    r, settings = kb
    gen = ScriptedGenerator(["1"])
    opts = SearchOptions.from_settings(settings.search)
    out = AskPipeline(r, gen, settings).ask("Who is Miso's vet?", opts).result()
    assert out.text.startswith("Greenway Vets, Dr Hannah Cole."), out.text
    assert '(" " label){0,0}' in str(gen.calls[-1]["grammar"])  # one quote at most


@pytest.mark.slow
def test_a_when_question_answered_in_march_quotes_no_heading(kb: Any) -> None:
    """ "The salary review will be done in March." says when: *March* after *in* is the
    month, not the verb, so the meeting's dated heading is not quoted before it."""
    out = ask(kb, "When is the salary review?")
    assert out.text == "The salary review will be done in March. [#1]", out.text
