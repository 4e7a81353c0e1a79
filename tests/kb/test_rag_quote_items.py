"""Quote candidates from a person's notes: a list item's later sentences, a labelled
line that names what is asked, and question words a note need not write."""

from __future__ import annotations

from kb.rag.answerability import check, question_terms
from kb.rag.quote import item_head, rank_candidates
from kb.rag.verify import PassageSentences
from kb.types import Hit, Locator, Span

BOOKS = (
    "- Piranesi by Susanna Clarke: 5/5. Strange and beautiful.\n"
    "- Tomorrow, and Tomorrow, and Tomorrow by Gabrielle Zevin: 4/5. Lent to Sam in "
    "September.\n"
    "- Project Hail Mary by Andy Weir: 4/5. Read it on the flight to Lisbon.\n"
)


def note(text: str, *headings: str) -> PassageSentences:
    loc = Locator("notes/n.md", "md", headings or ("Note",), Span(line_start=1))
    return PassageSentences.of(1, Hit(chunk_id=1, text=text, locator=loc, score=1.0))


def test_a_list_items_later_sentence_is_quoted_after_its_head() -> None:
    """ "Which book did I read on the flight to Lisbon?" quoted "Read it on the flight to
    Lisbon." alone, which names no book: the item's first sentence now leads it, and
    the words the head says count for the sentence."""
    p = note(BOOKS, "Books read in 2026")
    heads = [item_head(p, j) for j in range(len(p.spans))]
    assert heads == [None, 0, None, 2, None, 4]
    top = rank_candidates("Which book did I read on the flight to Lisbon?", [p], None, 5)[0]
    assert (top.lead, top.text) == (
        "Project Hail Mary by Andy Weir: 4/5.",
        "Read it on the flight to Lisbon.",
    )
    # not across lines, nor for a sentence outside a list
    p = note("Piranesi: 5/5.\nStrange and beautiful.\n- Dune: 4/5.\n\nRead in May.")
    assert all(item_head(p, j) is None for j in range(len(p.spans)))


def test_a_line_whose_label_is_what_is_asked_comes_first() -> None:
    """ "Who is Maya's teacher?" quoted "Teaching assistant: Mrs Bell." (tied with
    "Teacher: Mr Okafor."): a line labelled with what the question asks is its answer,
    as a heading would be."""
    p = note("Teacher: Mr Okafor. Teaching assistant: Mrs Bell.", "Maya's school")
    assert rank_candidates("Who is Maya's teacher?", [p], None, 5)[0].text == "Teacher: Mr Okafor."
    q = "Who is Maya's teaching assistant?"
    assert rank_candidates(q, [p], None, 5)[0].text == "Teaching assistant: Mrs Bell."


def test_an_opinion_of_something_needs_no_word_of_its_own() -> None:
    """ "What did I think of The Ministry for the Future?" was refused for *think*: a
    note says the judgement ("3/5. Important but a slog in the middle."). *think*
    before a clause still counts ("Why did they think the Earth was older?")."""
    assert "think" not in question_terms("What did I think of Piranesi?", None)
    assert "think" not in question_terms("What do you think about the plan?", None)
    assert "think" in question_terms("Why did they think the Earth was older?", None)
    p = note(BOOKS, "Books read in 2026")
    assert check("What did I think of Piranesi?", [p], None, 0.0).missing == []
