"""Contradiction cues (kb.rag.polarity) and how the evidence check uses them."""

from __future__ import annotations

from kb.rag import AskPipeline
from kb.rag.answerability import check
from kb.rag.candidates import rank_candidates
from kb.rag.polarity import (
    Contradiction,
    affirmed,
    asks_negated,
    contradictions,
    denied,
    negates,
    open_task,
    rank_sentences,
    yes_no,
)
from kb.rag.reasons import _contradiction as _contradiction_reason
from kb.rag.verify import PassageSentences
from kb.search.options import SearchOptions
from tests.kb.test_rag_pipeline import FakeRetriever
from tests.kb.test_rag_verified import bow_embed, cfg, hit

COMMITTEE = (
    "The committee approved the harbour budget in March. "
    "It also reviewed the plans for the northern pier."
)
REFUSED = "The committee did not approve the ferry subsidy. The vote was close."


def passages(*texts: str) -> list[PassageSentences]:
    return [PassageSentences.of(i, hit(i, t)) for i, t in enumerate(texts, 1)]


def test_question_negations_include_contractions() -> None:
    assert asks_negated("What did the committee not approve?") == "not"
    assert asks_negated("Which plan didn't pass?") == "didn't"
    assert asks_negated("Who was unable to attend?") == "unable"
    assert asks_negated("What did the committee approve?") is None
    # "no" only as a word: "November", "Norway" are not negations
    assert asks_negated("What happened in November in Norway?") is None
    assert asks_negated("Which song was the No. 1 single in 1999?") is None
    assert asks_negated("Who played Dr. No in the first film?") is None
    assert asks_negated("No one came?") == "No"


def test_passage_negations_are_broader_and_skip_words_that_only_look_negative() -> None:
    assert negates("The UK was relatively unaffected by the embargo.")
    assert negates("Directives do not generally give citizens the right to sue.")
    assert negates("The plan lacked funding.") and negates("The court refused it.")
    assert negates("Only two members voted.")
    for plain in ("The United Nations met.", "The university is unique.", "A union formed."):
        assert not negates(plain), plain


def test_a_negated_question_over_sentences_that_say_it_plainly_is_contradicted() -> None:
    ps = passages(COMMITTEE)
    q = "What did the committee not approve in March?"
    loose = check(q, ps, None, 0.0)
    assert loose.answerable  # recorded, not enforced, without require_keys
    assert loose.contradictions == [Contradiction("not")]
    strict = check(q, ps, None, 0.0, require_keys=True)
    assert not strict.answerable
    assert strict.to_dict()["contradictions"] == [
        {"question": "not", "passage": None, "rule": "negation"}
    ]
    # the same question where a matching sentence carries the negation passes
    ok = check(
        "What did the committee not approve?", passages(REFUSED), None, 0.0, require_keys=True
    )
    assert ok.contradictions == [] and ok.answerable


def test_an_antonym_in_the_best_sentence_contradicts_the_question_word() -> None:
    ps = passages(COMMITTEE)
    c = check("What did the committee review for the southern pier?", ps, None, 0.0)
    assert c.contradictions == [Contradiction("southern", "northern")]
    # the question's own word in the best sentence: no contradiction
    assert (
        check("What did the committee review for the northern pier?", ps, None, 0.0).contradictions
        == []
    )
    # a sentence with both words says the asked one too
    both = passages("The northern pier is older than the southern pier.")
    assert check("How old is the southern pier?", both, None, 0.0).contradictions == []


def test_how_long_before_asks_for_an_interval_not_the_antonym() -> None:
    """ "How long *before* the secondary is paged?" over "paged *after* fifteen minutes"
    asks for the wait; "before" there is no antonym of the sentence's "after"."""
    ps = passages(
        "The primary gets paged through PagerDuty; the secondary is paged after fifteen "
        "minutes without an acknowledgement."
    )
    for q in (
        "How long before the secondary is paged?",
        "How many minutes before the secondary gets paged?",
        "How soon after that is the secondary paged?",
    ):
        assert check(q, ps, None, 0.0).contradictions == [], q
    # the plain antonym still is one, and so after "how many" of a thing not time
    got = check("Who is paged before the secondary?", ps, None, 0.0).contradictions
    assert got == [Contradiction("before", "after")]
    many = check("How many people are paged before the secondary?", ps, None, 0.0)
    assert many.contradictions == [Contradiction("before", "after")]


def test_a_bound_in_time_is_the_end_or_start_it_says() -> None:
    # "until June 2026" says when the cover ends, not when it starts
    rac = ["Breakdown cover is with the RAC until June 2026."]
    assert contradictions("When does the RAC cover start?", rac) == [
        Contradiction("start", "until June 2026")
    ]
    assert contradictions("When does the RAC cover end?", rac) == []
    assert contradictions("When did the plan end?", ["The plan runs since 2019."]) == [
        Contradiction("end", "since 2019")
    ]
    # a range says both; so does a sentence that names each
    for said in (
        "The pass is valid from 3 April until 16 April.",
        "It ran from 1939 to 1945.",
        "It ran between 1990 and 1995.",
    ):
        for q in ("When does it start?", "When does it end?"):
            assert contradictions(q, [said]) == [], (q, said)
    # the asked start or end in other words is no contradiction: "began" is a start
    began = ["The war began in 1939 and ended in 1945."]
    assert contradictions("When did the war start?", began) == []
    assert contradictions("When did the war start?", ["It began in 1939, till 1945."]) == []
    assert contradictions("When does the warranty expire?", ["warranty until March 2026"]) == []


def test_only_the_best_matching_sentences_count() -> None:
    # the negation sits in the second passage's sentence, which matches the question best
    ranked = rank_sentences(
        ["The vote was close.", "The committee did not approve the subsidy."],
        [0.2, 0.9],
        [0.1, 0.1],
    )
    assert ranked[0].startswith("The committee")
    assert contradictions("What did the committee not approve?", ranked) == []
    # ties on coverage are broken by cosine
    assert rank_sentences(["a", "b"], [0.5, 0.5], [0.1, 0.3]) == ["b", "a"]
    assert contradictions("What did they not do?", []) == []


def test_the_pipeline_refuses_before_loading_the_model_and_says_why() -> None:
    loads: list[int] = []

    def factory():  # type: ignore[no-untyped-def]
        loads.append(1)
        raise AssertionError("the model must not be loaded")

    hits = [hit(1, COMMITTEE, line_start=3, line_end=4)]
    pipe = AskPipeline(
        FakeRetriever(hits), factory, cfg(min_answerable=0.01), embed=bow_embed, doc_freq=None
    )
    rec = pipe.ask("What did the committee not approve in March?", SearchOptions(k=1)).result()
    assert rec.refused and rec.refusal_reason == "no_support" and loads == []
    assert rec.answerability is not None
    assert rec.answerability["contradictions"] == [
        {"question": "not", "passage": None, "rule": "negation"}
    ]
    assert "'not'" in _contradiction_reason(rec.answerability["contradictions"][0])
    said = _contradiction_reason({"question": "southern", "passage": "northern"})
    assert "'southern'" in said and "'northern'" in said


def test_an_unticked_task_box_answers_a_not_done_question() -> None:
    todo = passages("- [x] renew the passport\n- [ ] call the bank about the mortgage")
    assert negates("- [ ] call the bank about the mortgage")
    assert not negates("- [x] renew the passport")
    assert check("Which task is not done yet?", todo, None, 0.0).contradictions == []


def test_an_alternative_question_is_not_contradicted_by_its_antonym() -> None:
    ps = passages("The northern pier is younger than the harbour wall.")
    # "older" is missing and "younger" is said, but "A or B?" is answered by it
    q = "Which is older, the northern pier or the harbour wall?"
    assert check(q, ps, None, 0.0).contradictions == []
    assert check("Which part is older than the pier?", ps, None, 0.0).contradictions == [
        Contradiction("older", "younger")
    ]


def test_a_yes_no_question_negates_rhetorically() -> None:
    ps = passages(COMMITTEE)
    assert (
        check("Didn't the committee approve the harbour budget?", ps, None, 0.0).contradictions
        == []
    )
    assert (
        check("Did the committee not approve the harbour budget?", ps, None, 0.0).contradictions
        == []
    )
    # a wh-question with the same negation still meets sentences that lack it
    assert check("What did the committee not approve?", ps, None, 0.0).contradictions == [
        Contradiction("not")
    ]


def test_a_question_word_its_best_sentence_negates_is_denied() -> None:
    q = "The laws of physics change from being at rest when travelling in a what?"
    s = "At a constant velocity, the laws of physics do not change from being at rest."
    assert denied(q, s) == [Contradiction("change", "not change")]
    assert denied("What no longer applies?", "Old rules no longer apply.") == []  # negated
    assert denied("Does the law change?", s) == []  # yes/no: answered "no"
    assert denied("In 1972, did Norway join the EU?", "Norway did not join.") == []
    # a sentence that also says the word plainly, or negates a stop word, denies nothing
    both = "The committee did not approve the server but approved the budget."
    assert denied("What did the committee approve?", both) == []
    assert denied("What is costly?", "It is not only costly.") == []
    assert denied("What did the committee approve?", "The budget was approved.") == []
    # an imperative is a rule, not a denial
    rule = "Never water it in winter more than once a month."
    assert denied("When should I water the snake plant in winter?", rule) == []
    assert denied("When can I feed the dog?", "- Please do not feed the dog after 8pm.") == []


def test_a_word_the_question_negates_and_its_best_sentence_states_is_affirmed() -> None:
    q = "Which two importers did not claim that the law prevented them selling beer?"
    s = "Two importers claimed that the law, which prevented them selling beer, was unlawful."
    assert affirmed(q, [s]) == [Contradiction("not claim", "claimed")]
    income = "The majority of the population is dependent on a wage or salary."
    assert affirmed("What income is the population not dependent on?", [income]) == [
        Contradiction("not dependent", "dependent")
    ]
    assert affirmed("What system has no impact on inequality?", ["Tax has an impact."]) == [
        Contradiction("no impact", "impact")
    ]
    # the best sentence negates too, or says another word: nothing affirmed
    no_forces = "In a closed system there are no internal forces that are unbalanced."
    assert affirmed("In what system are there no unbalanced forces?", [no_forces]) == []
    assert affirmed("What did the court not allow?", ["The court was not entitled to."]) == []
    # a verb's negation denies the words right after it, not the whole sentence: the
    # sentence states what the question denies, and denies another thing
    court = "The Court acknowledged that the duty of interpretation cannot contradict the law."
    assert affirmed("What did the Court not acknowledge?", [court]) == [
        Contradiction("not acknowledge", "acknowledged")
    ]
    assert (
        affirmed("What did the Court not acknowledge?", ["It did not formally acknowledge it."])
        == []
    )
    assert affirmed("What did the team not agree on?", ["We never really agreed on it."]) == []
    assert affirmed("What was not approved?", ["The budget was rejected."]) == []
    # the next best sentence negates: it may hold the answer
    warranty = ["The warranty covers the engine and gearbox.", "It excludes tyres."]
    assert affirmed("What is not covered by the warranty?", warranty) == []
    # ... or says the denied word too, with a weak cue: "only" there answers it
    plants = [
        "The fiddle-leaf fig needs water once a week.",
        "The snake plant only needs water every three weeks.",
    ]
    assert affirmed("Which plant does not need water every week?", plants) == []
    # right after a cue the word is no plain statement; farther away it is
    assert affirmed("Which plant does not need water?", plants[::-1]) == []
    known = ["Only four main interactions are known."]
    assert affirmed("How many interactions are not known?", known) == [
        Contradiction("not known", "known")
    ]
    assert affirmed("Which plant does not need water?", [plants[0], "Only ferns grow."]) == [
        Contradiction("not need", "needs")
    ]
    tasks = ["- [x] finished the tax report", "- [ ] call the bank"]
    assert affirmed("Which tasks did I not finish?", tasks) == []
    assert affirmed("Which tasks did I not finish?", tasks[:1]) == [
        Contradiction("not finish", "finished")
    ]
    # an open box answers only when the best sentence is a task item
    retro = ["Maria claimed the test was flaky.", "- [ ] call the bank"]
    assert affirmed("What did Maria not claim?", retro) == [Contradiction("not claim", "claimed")]
    # the next sentence answers only when it holds the question's names
    team = ["Maria claimed the test was flaky.", "We did not agree on the stand-up."]
    assert affirmed("What did Maria not claim?", team) == [Contradiction("not claim", "claimed")]
    # yes/no, alternatives, negated stop words
    assert affirmed("Didn't the importers claim it?", [s]) == []
    assert affirmed("Did the importers claim or not claim it?", [s]) == []
    assert affirmed("Who was not as correct as Einstein?", ["Newton was as correct."]) == []
    assert affirmed("What is not known?", []) == []
    # through the evidence check: refused with the phrase and the word in the reason
    ps = passages("Two importers claimed that the French law was unlawful. Beer was sold.")
    got = check(
        "Which importers did not claim the French law was unlawful?",
        ps,
        None,
        0.0,
        require_keys=True,
    )
    assert not got.answerable and got.contradictions == [Contradiction("not claim", "claimed")]


def test_a_yes_no_question_may_start_with_a_phrase_and_a_comma() -> None:
    assert yes_no("In 1972, did Norway end up joining the European Union?")
    assert yes_no("Didn't the committee approve the budget?")
    assert not yes_no("What, aside from firebox, is another name for it?")
    assert not yes_no("Who, in 1972, did it?")
    assert not yes_no("After the long and very tiring meeting in March, did we agree?")


TODO = (
    "- [x] finished the quarterly tax report\n"
    "- [x] booked the train to Leeds\n"
    "- [ ] call the bank about the mortgage offer\n"
    "- [ ] renew the passport"
)


def test_a_task_list_says_which_tasks_are_done_and_which_are_open() -> None:
    ps = passages(TODO)
    assert {"task", "done", "finish"} <= ps[0].stems[0]
    assert "open" not in ps[0].stems[0] and {"open", "done"} <= ps[0].stems[2]
    assert "task" not in passages("The array a[x] is indexed by x.")[0].stems[0]
    # an open box anywhere among the matching sentences answers a negated question,
    # though "[x] finished ..." matches "finish" best
    for q in ("Which tasks did I not finish?", "Which tasks are not done yet?"):
        got = check(q, ps, None, 0.0, require_keys=True)
        assert got.contradictions == [] and got.coverage == 1.0, q
    assert check("Which tasks are done?", ps, None, 0.0).every_term
    # "to-do" is one term, and a one-term question of a task word is answered by an
    # item whose box says it ("What is on my to-do list?" was refused at cosine 0.18)
    for q in ("What's on my to-do list?", "What is on my todo list?", "What is left?"):
        assert check(q, ps, None, 0.0).every_term, q
    assert not check("What is on my shopping list?", ps, None, 0.0).every_term
    # "still" asks for what is not done: an open item is quoted first
    still = rank_candidates("What is still on my to-do list?", ps, None, 4)
    assert still[0].text.startswith("[ ]")


def test_quote_mode_drops_sentences_that_affirm_what_a_negated_question_denies() -> None:
    retro = passages(
        "The team agreed that the release checklist worked well. "
        "We did not agree on moving the stand-up to 10am; it stays at 9:30."
    )
    got = [c.text for c in rank_candidates("What did the team not agree on?", retro, None, 4)]
    assert got == ["We did not agree on moving the stand-up to 10am; it stays at 9:30."]
    todo = [
        c.text for c in rank_candidates("Which tasks did I not finish?", passages(TODO), None, 4)
    ]
    assert "[x] finished the quarterly tax report" not in todo
    assert "[ ] call the bank about the mortgage offer" in todo
    plants = passages(
        "The fiddle-leaf fig needs water once a week. "
        "The snake plant only needs water every three weeks."
    )
    got = [c.text for c in rank_candidates("Which plant does not need water?", plants, None, 4)]
    assert got == ["The snake plant only needs water every three weeks."]
    # when every sentence affirms, they stay: the evidence check decides
    only = passages("The team agreed on the checklist.")
    assert len(rank_candidates("What did the team not agree on?", only, None, 4)) == 1


def test_common_opposites_beyond_size_and_direction_are_antonyms() -> None:
    lisbon = ["Today, the Treaty of Lisbon prohibits anti-competitive agreements."]
    assert contradictions("What does the Treaty of Lisbon allow today?", lisbon) == [
        Contradiction("allow", "prohibits")  # the word as the sentence writes it
    ]
    pads = ["3 June 2026: front brake pads replaced, £210.", "The rear pads were fine."]
    assert contradictions("How much did the rear brake pads cost?", pads) == [
        Contradiction("rear", "front")
    ]
    assert contradictions("Were the rear pads fine?", pads[::-1]) == []
    scales = ["Forces are measured with simple devices such as weighing scales."]
    assert contradictions("Which complex devices measure forces?", scales) == [
        Contradiction("complex", "simple")
    ]


def test_a_hyphenated_un_or_non_word_negates() -> None:
    keys = "The back door key is un-labelled; the shed key has a red tag."
    assert negates(keys) and negates("The deposit is non-refundable.")
    assert not negates("A well-known shop.")
    for q in ("Which key is not labelled?", "Which key has no label?"):
        assert contradictions(q, [keys]) == [] and affirmed(q, [keys]) == [], q


def test_review_cases_of_the_affirmed_rule() -> None:
    """A plain statement is one no cue stands next to, on either side; an exception in
    the best sentence may answer; "why" and "Dr. No" ask no denial."""
    for q, s in (
        ("Which invoice did the client not pay?", "The client refused to pay the March invoice."),
        ("What should I not eat before the scan?", "Avoid eating anything after midnight."),
        ("What is not covered by the warranty?", "The warranty covers parts but excludes labour."),
        (
            "Which plant does not need water every week?",
            "The snake plant needs water only monthly.",
        ),
        ("Why is there no hot water in the mornings?", "Hot water runs from 6 to 8am."),
        ("Why does the car not start?", "The car starts after a jump."),
        ("Who starred in Dr. No alongside Ursula Andress?", "Connery starred alongside Andress."),
    ):
        assert affirmed(q, [s]) == [], q
    # "prevented" tells of another act: the claim is still affirmed
    s = "Two importers claimed that the law, which prevented them selling beer, was unlawful."
    assert affirmed("Which importers did not claim it?", [s]) == [
        Contradiction("not claim", "claimed")
    ]


def test_a_contracted_negation_in_a_sentence_denies_the_word_after_it() -> None:
    lease = "We didn't sign the lease in March."
    assert denied("When did we sign the lease?", lease) == [Contradiction("sign", "n't sign")]


def test_a_task_box_is_one_at_the_start_of_an_item_or_a_line() -> None:
    assert open_task("- [ ] call the bank") and open_task("[ ] renew the passport")
    assert not open_task("- [x] booked the train") and not open_task("see [ ] in the form")
    assert not negates("The UN-backed force arrived.")
    ps = passages("Shopping list\n* [x] milk\n* [ ] eggs")
    held = [j for j in range(len(ps[0].spans)) if "done" in ps[0].stems[j]]
    assert held, [ps[0].sentence(j) for j in range(len(ps[0].spans))]


def test_a_section_heading_that_negates_holds_a_negated_questions_cue() -> None:
    """ "Why was the config change not caught?" over the sentences under "## Why it was
    not caught" was refused: they do not repeat the heading's *not*. A heading without
    a negation does not hold it."""
    ranked = [
        "The change skipped the canary stage because the deploy tool treated config "
        "files as low risk.",
        "Alerts fired at 10:14 but paged the wrong rota.",
    ]
    q = "What was the config change not caught by?"
    assert [c.question for c in contradictions(q, ranked)] == ["not"]
    assert contradictions(q, ranked, ["Why it was not caught", ""]) == []
    assert contradictions(q, ranked, ["", "Why it wasn't caught"]) == []
    assert [c.question for c in contradictions(q, ranked, ["What happened", ""])] == ["not"]
    # only not/never/n't: "Nothing forgotten", "Failed attempts" hold no negation
    for heading in ("Nothing forgotten", "Failed attempts", "No-frills camping"):
        assert [c.question for c in contradictions(q, ranked, [heading, ""])] == ["not"]


def test_a_compass_direction_is_read_in_any_of_its_forms() -> None:
    """ "the *westward* flow" asked where the sentence says "the *easterly* flow";
    "Easter" is no direction, and the same direction in another form is none."""
    flow = ["This water broke through the arch, joining the easterly flow toward the sea."]
    assert contradictions("What joined the westward flow to the sea?", flow) == [
        Contradiction("westward", "easterly")
    ]
    assert contradictions("What joined the eastward flow?", flow) == []
    easter = ["At Easter the road to the coast was closed."]  # "Easter" is no *east*
    assert contradictions("Where did the westward road go?", easter) == []
    # the word as written, in small letters first (not the name "South Africa")
    office = ["The South Africa office has its entrance on the south side."]
    assert contradictions("Where is the north entrance?", office) == [
        Contradiction("north", "south")
    ]
    gas = ["During 2005 instead 5 gigatons were released."]
    assert contradictions("How much was absorbed in 2005?", gas) == [
        Contradiction("absorbed", "released")
    ]


def test_comparatives_are_antonyms() -> None:
    """ "*richer* members" asked where the sentence says "*poorer* sections" (the
    comparative forms have stems of their own); the same comparative is none."""
    growth = ["Special efforts must be made so that poorer sections of society can take part."]
    assert contradictions("What must be made so that richer members can take part?", growth) == [
        Contradiction("richer", "poorer")
    ]
    assert contradictions("What must be made so that poorer members can take part?", growth) == []
    flat = ["The new flat is larger, with a garden."]
    assert contradictions("Which flat is smaller?", flat) == [Contradiction("smaller", "larger")]


def test_a_comparison_answers_the_opposite_question_turned_round() -> None:
    """ "A is younger than B" says who is older; not when the question compares too."""
    sons = ["Ben is younger than Tom, who starts school in May."]
    assert contradictions("Which son is older?", sons) == []
    assert contradictions("Which laptop is faster?", ["The XPS is slower than the X1."]) == []
    assert contradictions("Who is older than Tom?", sons) == [Contradiction("older", "younger")]
    river = ["The river carries more water than any other."]
    assert contradictions("Which river carries less water than any other?", river) == [
        Contradiction("less", "more")
    ]
    # without *than* the antonym still contradicts
    assert contradictions("Which son is older?", ["Ben is the younger son."]) == [
        Contradiction("older", "younger")
    ]


def test_a_yes_no_question_is_answered_by_the_opposite() -> None:
    """ "Is the shop open on Sundays?" over "closed on Sundays" answers *no*: no
    contradiction, and the opposite holds the question's word for the evidence check."""
    shop = ["The corner shop is closed on Sundays and opens at 7:00 on weekdays."]
    assert contradictions("Is the corner shop open on Sundays?", shop) == []
    assert contradictions("Is the recycling centre closed on Tuesday?", ["It is open daily."]) == []
    assert contradictions("When is the recycling centre closed?", ["It is open daily."]) == [
        Contradiction("closed", "open")
    ]
    maya = hit(1, "Maya is older than most of her class by almost a year.")
    ps = [PassageSentences.of(1, maya)]
    assert check("Is Maya younger than most of her class?", ps, None, 0.0).missing == []
    assert "younger" in check("Who is younger than most of her class?", ps, None, 0.0).missing
    # a comparison turned round answers a wh-question that compares nothing
    pharmacy = hit(2, "The pharmacy in the high street is cheaper than the one in the park.")
    ps = [PassageSentences.of(1, pharmacy)]
    assert check("Which pharmacy is more expensive?", ps, None, 0.0).missing == []
    bare = hit(3, "The pharmacy in the high street is cheaper.")
    got = check("Which pharmacy is more expensive?", [PassageSentences.of(1, bare)], None, 0.0)
    assert got.missing == ["expensive"]


def test_an_antonym_said_under_a_negation_states_the_asked_sense() -> None:
    pauli = "The Pauli exclusion principle does not permit atoms to pass through each other."
    assert contradictions("What prohibits atoms from passing through each other?", [pauli]) == []
    # said plainly, the antonym still contradicts
    plain = "The Pauli exclusion principle permits atoms to pass through each other."
    assert contradictions("What prohibits atoms from passing through each other?", [plain]) == [
        Contradiction("prohibits", "permits")
    ]
    # said both ways, the plain one counts
    both = "It does not permit pets, but permits guide dogs on the lead."
    assert contradictions("What prohibits dogs on the lead?", [both]) == [
        Contradiction("prohibits", "permit")
    ]


def test_not_until_dates_an_act_and_no_longer_says_it_once_was() -> None:
    newton = "Gravity was not identified as a universal force until the work of Isaac Newton."
    assert denied("Who identified gravity as a force?", newton) == []
    # without "until" in its clause, the negation denies
    assert denied(
        "Who identified gravity as a force?", "Gravity was not identified as a force. Until then"
    ) == [Contradiction("identified", "not identified")]
    injectors = "Injectors became popular in the 1850s but are no longer widely used."
    assert denied("In what decade were injectors widely used?", injectors) == []
    # asked in the present, "no longer" denies it
    assert denied("Where are injectors widely used?", injectors) == [
        Contradiction("widely", "no longer widely")
    ]
    # "not" is no "no longer": a past question is still denied by it
    assert denied("What did the committee approve?", "The committee did not approve it.") == [
        Contradiction("approve", "not approve")
    ]


def test_a_negated_have_negates_what_is_had() -> None:
    eu = "Although the EU does not have a codified constitution, it has founding treaties."
    assert denied("Who has a codified constitution?", eu) == [
        Contradiction("codified", "not have a codified")
    ]
    assert denied("Who has founding treaties?", eu) == []  # had, said plainly
    thomson = "Rumours said that BSkyB was having supply issues with its boxes from Thomson."
    q = "Which manufacturer never had supply issues with BSkyB?"
    assert affirmed(q, [thomson]) == [Contradiction("never had supply", "supply")]


def test_a_prefix_that_negates_its_word_denies_it() -> None:
    newton = "By making rest indistinguishable from non-zero constant velocity, the law connects."
    q = "Whose law made rest indistinguishable from zero constant velocity?"
    assert denied(q, newton) == [Contradiction("zero", "non-zero")]
    # the question says it so too, or the sentence says both
    peer = "The IPCC uses non-peer-reviewed sources such as reports."
    assert denied("What kind of non-peer-reviewed sources does the IPCC use?", peer) == []
    assert denied("What is a zero velocity?", "Zero and non-zero velocity differ.") == []


def test_grow_and_decline_are_opposites_but_not_inside_a_name() -> None:
    # "replaced the old boiler" says when the new one came: new/old are no pair
    boiler = "We replaced the old boiler in May 2024."
    assert contradictions("When did we get the new boiler?", [boiler]) == []
    assert contradictions("When was Old Trafford built?", ["The young club built it."]) == []
    assert contradictions("Who was the old manager?", ["The young manager was Busby."]) == [
        Contradiction("old", "young")
    ]
    assert contradictions("Where is North Carolina?", ["South Carolina is a state."]) == [
        Contradiction("North", "South")
    ]
    grew = "Demand for a Scottish Parliament grew throughout the 1980s."
    assert contradictions("Demand for a Scottish Parliament declined in what year?", [grew]) == [
        Contradiction("declined", "grew")
    ]


def test_nor_denies_the_verb_after_its_inverted_auxiliary() -> None:
    """ "Who is responsible for monitoring climate data?" over "The IPCC does not carry
    out research nor does it monitor climate related data." was answered: *nor* with
    the auxiliary and subject turned round before its verb denies the verb too."""
    s = "The IPCC does not carry out research nor does it monitor climate related data."
    q = "Who is responsible for monitoring climate data?"
    assert denied(q, s) == [Contradiction("monitoring", "nor does it monitor")]
    assert denied("Who monitors the data?", "Neither Dana nor Omar monitor the data.") == []
    assert denied("What does the IPCC do?", s) == []


def test_more_plain_opposites_are_antonyms() -> None:
    """ "When did Washington learn about Trent's advance?" over "… learned of Trent's
    retreat." was answered; so "… suggested Jacksonville stop annexing …" over "begin
    annexing"."""
    retreat = ["While en route, Washington learned of Trent's retreat."]
    assert contradictions("When did Washington learn about Trent's advance?", retreat) == [
        Contradiction("advance", "retreat")
    ]
    begin = ["In 1958, a study recommended that the city begin annexing outlying towns."]
    assert contradictions("When was it suggested the city stop annexing towns?", begin) == [
        Contradiction("stop", "begin")
    ]
    assert contradictions("Is the tank full or empty?", ["The tank is empty."]) == []
