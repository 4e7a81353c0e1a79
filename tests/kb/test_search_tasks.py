"""The task leg (kb.search.tasks): questions about to-dos find the chunks with task
boxes, on a real SQLite store; and the answer side's pieces (task candidates, the
answer splitter on task items)."""

from __future__ import annotations

from pathlib import Path

from kb.rag.answerability import section_named
from kb.rag.selectors import task_candidates
from kb.rag.sentences import AnswerSplitter
from kb.search.evidence import weak_hit
from kb.search.tasks import asks_done, asks_open, asks_tasks, holds_task, task_chunks, with_tasks
from kb.store import Store
from tests.kb.test_rag_verified import PassageSentences, hit, rank_candidates
from tests.kb.test_search_keyword import add_doc


def test_which_questions_ask_about_tasks() -> None:
    for q in (
        "What is still on my to-do list?",
        "What's on my todo list?",
        "Which tasks have I done?",
        "What is left to do?",
        "What remains to do for the move?",
        "Which items are outstanding?",
        "What is not done yet?",
    ):
        assert asks_tasks(q), q
    for q in ("When is the boiler service due?", "What did the vet say?", "Who is left-handed?"):
        assert not asks_tasks(q), q
    assert asks_open("What is still on my to-do list?") and asks_open("What is not done yet?")
    assert asks_done("Which tasks have I done?") and asks_done("Which tasks did I finish?")
    assert not asks_done("What is not done yet?")  # not done is open
    assert not asks_done("What is on my to-do list?") and not asks_open("What is on my to-do list?")


def test_a_task_item_is_a_box_that_opens_a_line() -> None:
    assert holds_task("Plan\n- [ ] order compost\n- [x] fix the door")
    assert holds_task("- [x] fix the door") and not holds_task("- [x] done", open_only=True)
    assert holds_task("1. [ ] call the bank", open_only=True)
    assert not holds_task("The regex [ ] matches a space.")  # a box inside a sentence
    assert not holds_task("- [#1] is a citation")


def test_task_chunks_lists_boxed_chunks_in_scope_open_first(tmp_path: Path) -> None:
    with Store.open(tmp_path / "kb") as store:
        done = add_doc(store, "notes/done.md", ["- [x] fixed the shed door\n- [x] paid rent"])[0]
        garden = add_doc(store, "notes/garden.md", ["Beds.\n- [ ] order compost (8 bags)"])[0]
        prose = add_doc(store, "notes/prose.md", ["The pattern [ ] is no task."])[0]
        add_doc(store, "notes/plain.md", ["Nothing to do here."])
        conn = store.conn
        got = task_chunks(conn, "What is still on my to-do list?", None, None)
        assert got == [garden, done]  # the open box first; prose is no task list
        assert set(task_chunks(conn, "Which tasks have I done?", None, None)) == {garden, done}
        doc = int(
            conn.execute("SELECT document_id FROM chunks WHERE id = ?", (done,)).fetchone()[0]
        )
        assert task_chunks(conn, "What is on my to-do list?", None, {doc}) == [done]
        assert task_chunks(conn, "What is on my to-do list?", None, set()) == []
        assert task_chunks(conn, "What is on my to-do list?", None, None, limit=1) == [garden]
        assert prose not in task_chunks(conn, "tasks", None, None)


def test_task_chunks_head_the_keyword_leg_at_its_best_score() -> None:
    leg = [(7, 5.0), (3, 2.0), (9, 1.0)]
    assert with_tasks(leg, [4, 3], 10) == [(4, 5.0), (3, 5.0), (7, 5.0), (9, 1.0)]
    assert with_tasks(leg, [4], 2) == [(4, 5.0), (7, 5.0)]
    assert with_tasks([], [4], 5) == [(4, 1.0)] and with_tasks(leg, [], 5) == leg


def test_a_task_hit_is_no_weak_hit_and_passes_the_ask_rule() -> None:
    assert not weak_hit({"vector": 0.10, "task": 1.0}, 0.25)
    assert weak_hit({"vector": 0.10}, 0.25)
    tasks = hit(1, "We plant three beds.\n\n- [ ] order compost\n- [x] fix the shed door")
    other = hit(2, "The water butt holds 200 litres.")
    assert section_named("What is still on my to-do list?", [other, tasks])
    assert not section_named("What is still on my to-do list?", [other])
    assert not section_named("How much does the water butt hold?", [tasks])


def test_task_candidates_are_the_items_asked_for_in_note_order() -> None:
    note = hit(
        1,
        "We plant three beds this spring.\n\n- [ ] order compost (8 bags)\n"
        "- [x] fix the shed door\n- [ ] buy seed potatoes",
    )
    ps = [PassageSentences.of(1, note)]
    cands = rank_candidates("What is still on my to-do list?", ps, None, 8)
    got = [c.text for c in task_candidates("What is still on my to-do list?", cands)]
    assert got == ["[ ] order compost (8 bags)", "[ ] buy seed potatoes"]
    done = [c.text for c in task_candidates("Which tasks have I done?", cands)]
    assert done == ["[x] fix the shed door"]
    assert task_candidates("How many beds do we plant?", cands) == []


def test_a_task_item_after_a_quote_starts_the_next_answer_sentence() -> None:
    """ "[ ] order compost [#2]" then "[ ] buy seed potatoes [#2]" on the next line were
    one answer sentence (a "[" after a citation was read as maybe another citation), so
    the verifier found neither item in the passage and marked the answer ungrounded."""
    text = "[ ] order compost (8 bags) [#2]\n[ ] buy seed potatoes [#2]"
    for step in (1, 3, len(text)):
        sp = AnswerSplitter(cited_only=True)
        out = []
        for i in range(0, len(text), step):
            out += sp.feed(text[i : i + step])
        out += sp.finish()
        assert [s.text for s in out] == text.split("\n"), step
    sp = AnswerSplitter()
    out = sp.feed("Paris is in France [#1] [") + sp.feed("#2]. Next [#1].") + sp.finish()
    assert [s.text for s in out] == ["Paris is in France [#1] [#2].", "Next [#1]."]
