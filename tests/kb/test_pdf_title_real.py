"""A PDF's title heads its chunks, on real parts: a real PDF (reportlab, with /Title),
the demo notes, the real ingest pipeline (SQLite + FTS5, LanceDB) and the bundled
all-MiniLM-L6-v2. A paper saved under an arXiv-style number is found, shown and
answered by its title's words, which its pages never repeat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ingest.pipeline import ingest_paths
from kb.config import load_settings
from kb.rag.answerability import check
from kb.rag.verify import PassageSentences
from kb.search import Retriever, SearchOptions
from kb.store import Store
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow

TITLE = "Cold Retarding of Sourdough"
SHOWN_TITLE = "Summer Ventilation of Beehives"
PAGES = [
    "We proofed the dough at 4, 10 and 20 degrees and measured the rise every hour.",
    "At 4 degrees the rise took 14 hours; at 20 degrees it took 5 hours.",
]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    from reportlab.pdfgen import canvas

    root = tmp_path_factory.mktemp("pdf-title")
    papers = root / "papers"
    papers.mkdir()
    c = canvas.Canvas(str(papers / "2301.01234.pdf"))
    c.setTitle(TITLE)
    for text in PAGES:
        c.drawString(72, 700, text)
        c.showPage()
    c.save()
    # no /Title (reportlab writes "untitled"): the title is the big first line of page 1
    c = canvas.Canvas(str(papers / "scan-0042.pdf"))
    c.setFont("Helvetica-Bold", 18)
    c.drawString(72, 760, SHOWN_TITLE)
    c.setFont("Helvetica", 11)
    c.drawString(72, 720, "Open the lower entrance fully from June to August.")
    c.showPage()
    c.save()
    home = root / "kb"
    store = Store.open(home)
    ingest_paths(
        store, load_settings(home), [papers, FIXTURES / "demo" / "notes"], embedder=real_embedder
    )
    yield store, Retriever(store, real_embedder)
    store.close()


@pytest.mark.parametrize(
    ("query", "name", "title"),
    [
        # the /Title
        ("cold retarding sourdough", "2301.01234.pdf", TITLE),
        # no /Title ("untitled"): the big first line of page 1
        ("beehive ventilation in summer", "scan-0042.pdf", SHOWN_TITLE),
    ],
)
def test_a_paper_is_found_and_shown_by_its_title(
    kb: Any, query: str, name: str, title: str
) -> None:
    _, retriever = kb
    hits = retriever.search(query, SearchOptions(k=5)).hits
    top = hits[0]
    assert top.locator.path.endswith(name), [h.locator.path for h in hits]
    assert top.locator.heading_path == (title,)
    assert f"{name} › {title} · p. 1" in top.locator.render()


def test_the_evidence_check_counts_the_title_words(kb: Any) -> None:
    _, retriever = kb
    q = "How long did the sourdough take to rise at 4 degrees?"
    hits = [
        h for h in retriever.search(q, SearchOptions(k=5)).hits if h.locator.path.endswith(".pdf")
    ]
    assert hits, "the paper is among the top hits"
    got = check(q, [PassageSentences.of(1, h) for h in hits], None, 0.0)
    # "sourdough" is only in the title; "rise", "4", "degrees" in the page sentence
    assert "sourdough" not in [w.lower() for w in got.missing]
    assert got.coverage == 1.0
