"""Title links on real parts: 300 squad-dev HotpotQA pages plus the pages of three
two-document questions and a folder of notes, ingested by the real pipeline (SQLite +
FTS5, LanceDB, the bundled all-MiniLM-L6-v2).

Each case is checked first without links ([search] links = 0): the second document is
not among the first 3 hits, so the test is about the case links exist for; then with
the default settings it is placed at rank 3 or better, with ``ranks["link"]`` saying
who named it (0 the question, 1 the best hit).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from kb.search import Retriever, SearchOptions
from tests.conftest import hotpot_kb

pytestmark = pytest.mark.slow

PAGES = [
    "All_Join_Hands.md",
    "Slade.md",
    "Mount_Diablo_Unified_School_District.md",
    "Concord_California.md",
    "Local_H.md",
    "For_Against.md",
]
NOTES = {
    "house.md": "# House\n\nThe boiler is serviced every March by Tom Baxter; the "
    "chimney sweep comes in October and the gutters are cleared after the leaves fall.\n",
    "tom.md": "# Tom Baxter\n\nPlumber and gas engineer. Phone 07700 900123, mornings "
    "only. He charges £85 for the yearly check.\n",
}
#: (question, the page that answers with the best hit, the page the links must place,
#: who names it: 0 the question, 1 the best hit)
CASES = [
    (
        'When did the rock band that sang "All Join Hands" rise to prominence?',
        "All_Join_Hands.md",
        "Slade.md",
        1,
    ),
    (
        "What was the population at the 2010 census of the city which, along with "
        "Clayton, is covered by the Mount Diablo Unified School District?",
        "Mount_Diablo_Unified_School_District.md",
        "Concord_California.md",
        1,
    ),
    ("Are Local H and For Against both from the United States?", "Local_H.md", "For_Against.md", 0),
]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("links")
    store, settings = hotpot_kb(root, NOTES, real_embedder, extra=tuple(PAGES))
    yield store, Retriever(store, real_embedder), settings
    store.close()


def _rank(hits: list[Any], page: str) -> int | None:
    return next((i for i, h in enumerate(hits, 1) if h.path.endswith(page)), None)


@pytest.mark.parametrize(("question", "first", "second", "who"), CASES)
def test_a_document_named_by_title_is_placed_third(
    kb: Any, question: str, first: str, second: str, who: int
) -> None:
    _, r, settings = kb
    opts = SearchOptions.from_settings(settings.search, k=10)
    assert opts.links == 2 and opts.mode == "hybrid"
    without = r.search(question, replace(opts, links=0)).hits
    assert _rank(without, first) == 1
    assert (_rank(without, second) or 99) > 3  # the case links are for
    hits = r.search(question, opts).hits
    assert _rank(hits, first) == 1
    at = _rank(hits, second)
    assert at is not None and at <= 3
    assert hits[at - 1].ranks.get("link") == who
    # scores still fall with the rank
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


def test_vector_mode_places_it_too_and_a_scope_keeps_it_out(kb: Any) -> None:
    _, r, settings = kb
    question, first, second, _ = CASES[0]
    opts = SearchOptions.from_settings(settings.search, k=10, mode="vector")
    assert (_rank(r.search(question, opts).hits, second) or 99) <= 3
    # a document outside the scope is never placed
    scoped = replace(opts, paths=(f"**/{first}",))
    assert [h.path.rsplit("/", 1)[-1] for h in r.search(question, scoped).hits] == [first]


def test_a_note_that_names_another_note_brings_it(kb: Any) -> None:
    """A note that names another by its title ("serviced by Tom Baxter") links to it:
    the plumber's note (his phone number, his price) is among the first three hits for
    a question about the boiler's service, though it says nothing of boilers."""
    _, r, settings = kb
    opts = SearchOptions.from_settings(settings.search, k=10)
    question = "When is the boiler serviced?"
    assert (_rank(r.search(question, replace(opts, links=0)).hits, "tom.md") or 99) > 3
    hits = r.search(question, opts).hits
    assert hits[0].path.endswith("/notes/house.md")
    at = _rank(hits, "tom.md")
    assert at is not None and at <= 3
