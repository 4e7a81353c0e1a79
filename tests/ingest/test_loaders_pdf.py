"""PDF loader: one section per page, pages without text, encrypted and damaged files."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from ingest.loaders import LoadContext, PdfLoader
from kb.errors import IngestError

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
BEES = DEMO / "papers" / "urban-beekeeping.pdf"


def make_pdf(path: Path, pages: list[str | None]) -> Path:
    """A PDF whose page ``n`` carries the given text, or only a drawing when ``None``."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), invariant=1)
    for text in pages:
        if text is None:
            c.setFillGray(0.4)
            c.rect(100, 300, 300, 300, fill=1)  # vector "picture", no text operators
        else:
            c.drawString(72, 700, text)
        c.showPage()
    c.save()
    return path


def test_demo_pdf_one_section_per_page(ctx: LoadContext) -> None:
    doc = PdfLoader().load(BEES, "papers/urban-beekeeping.pdf", ctx)
    title = "A Short Field Guide to Urban Beekeeping"  # the PDF's /Title
    assert doc.doc_type == "pdf" and doc.warnings == []
    assert doc.meta == {"pages": 3, "title": title}
    assert [(s.span.page_start, s.span.page_end) for s in doc.sections] == [(1, 1), (2, 2), (3, 3)]
    assert all(s.heading_path == (title,) for s in doc.sections)
    assert "Setting up the hive" in doc.sections[0].text
    assert "Seasonal care" in doc.sections[1].text and "Varroa" in doc.sections[1].text
    assert "Harvesting honey" in doc.sections[2].text
    assert "Varroa" not in doc.sections[0].text + doc.sections[2].text
    # offsets index the page texts joined by a blank line
    joined = "\n\n".join(s.text for s in doc.sections)
    for s in doc.sections:
        assert joined[s.char_start : s.char_end] == s.text
        assert s.span.line_start is None


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ("  Deep   Residual\nLearning ", "Deep Residual Learning"),
        ("untitled", None),
        ("Microsoft Word - draft 3.docx", None),
        ("thesis_final.tex", None),
        ("", None),
        ("1234 5678", None),
        ("x" * 201, None),
        (None, None),
    ],
)
def test_pdf_title_keeps_a_real_title_and_drops_placeholders(
    tmp_path: Path, raw: str | None, title: str | None
) -> None:
    from pypdf import PdfReader, PdfWriter

    from ingest.loaders.pdf import pdf_title

    src = make_pdf(tmp_path / "a.pdf", ["Some text on a page."])
    writer = PdfWriter(clone_from=src)
    if raw is not None:
        writer.add_metadata({"/Title": raw})
    out = tmp_path / "b.pdf"
    writer.write(out)
    assert pdf_title(PdfReader(out)) == title


def test_a_placeholder_title_leaves_pages_without_a_heading(
    ctx: LoadContext, tmp_path: Path
) -> None:
    # reportlab writes /Title "untitled" unless told otherwise
    doc = PdfLoader().load(make_pdf(tmp_path / "c.pdf", ["Clause one."]), "c.pdf", ctx)
    assert doc.sections[0].heading_path == () and "title" not in doc.meta


def letterhead_pdf(path: Path, *, stamp: bool = False) -> Path:
    """An untitled PDF (reportlab's ``/Title`` is "untitled") whose page 1 shows a
    two-line 16 pt title over 11 pt clauses; ``stamp`` adds a bigger rotated margin
    stamp before it, as arXiv puts up a paper's left margin."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), invariant=1)
    if stamp:
        c.saveState()
        c.setFont("Helvetica", 20)
        c.translate(30, 200)
        c.rotate(90)
        c.drawString(0, 0, "arXiv:2301.01234v1 [cs.CL] 3 Jan 2023")
        c.restoreState()
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "Service Agreement:")
    c.drawString(72, 740, "Acme Cloud Hosting")
    c.setFont("Helvetica", 11)
    for i, clause in enumerate(["1. Term. It starts in 2026.", "2. Fees. EUR 1,250 a month."]):
        c.drawString(72, 700 - 16 * i, clause)
    c.showPage()
    c.setFont("Helvetica", 11)
    c.drawString(72, 700, "3. Uptime. Acme guarantees 99.9% monthly availability.")
    c.showPage()
    c.save()
    return path


@pytest.mark.parametrize("stamp", [False, True])
def test_without_a_title_the_one_page_1_shows_heads_the_pages(
    ctx: LoadContext, tmp_path: Path, stamp: bool
) -> None:
    doc = PdfLoader().load(letterhead_pdf(tmp_path / "c.pdf", stamp=stamp), "c.pdf", ctx)
    title = "Service Agreement: Acme Cloud Hosting"
    assert doc.meta == {"pages": 2, "title": title}
    assert [s.heading_path for s in doc.sections] == [(title,), (title,)]
    assert "Service Agreement:" in doc.sections[0].text  # the page text is kept


def test_a_failing_title_read_keeps_the_page_text(
    ctx: LoadContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pypdf import PageObject

    plain = PageObject.extract_text

    def flaky(self: PageObject, *args: object, **kw: object) -> str:
        if "visitor_text" in kw:
            raise ValueError("odd text matrix")
        return plain(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(PageObject, "extract_text", flaky)
    doc = PdfLoader().load(letterhead_pdf(tmp_path / "c.pdf"), "c.pdf", ctx)
    assert doc.warnings == [] and "title" not in doc.meta
    assert "Service Agreement:" in doc.sections[0].text and len(doc.sections) == 2


def test_visual_title_rules() -> None:
    from ingest.loaders.pdf import visual_title

    body = [("A clause of the body text, long enough to set the body size.", 11.0)] * 3
    assert visual_title([("Report", 18.0), *body]) == "Report"
    assert visual_title([("Report", 12.0), *body]) is None  # not clearly larger
    assert visual_title([*body, *body, ("Late big words", 18.0)]) is None  # not at the top
    assert visual_title([("untitled", 18.0), *body]) is None  # a placeholder
    assert visual_title([("2024", 18.0), *body]) is None  # no letter
    assert visual_title(body) is None and visual_title([]) is None


def test_squad_pdf_pages(ctx: LoadContext, squad: Path) -> None:
    from pypdf import PdfReader

    path = squad / "corpus" / "pdf" / "Geology.pdf"
    doc = PdfLoader().load(path, "pdf/Geology.pdf", ctx)
    reader = PdfReader(path)
    expected = [
        (n, t.strip())
        for n, p in enumerate(reader.pages, 1)
        if (t := p.extract_text() or "").strip()
    ]
    assert len(reader.pages) >= 2
    assert [(s.span.page_start, s.text) for s in doc.sections] == expected
    assert all(s.span.page_start == s.span.page_end for s in doc.sections)
    assert len(doc.sections) + len(doc.warnings) == len(reader.pages)


def test_page_without_text_layer_warns(tmp_path: Path, ctx: LoadContext) -> None:
    path = make_pdf(tmp_path / "scan.pdf", ["first page words", None, "third page words"])
    doc = PdfLoader().load(path, "scan.pdf", ctx)
    assert [s.span.page_start for s in doc.sections] == [1, 3]
    assert doc.sections[1].text == "third page words"
    assert doc.warnings == ["page 2 has no text layer (scanned?); it is not searchable"]


def test_no_text_at_all_fails(tmp_path: Path, ctx: LoadContext) -> None:
    path = make_pdf(tmp_path / "scan.pdf", [None, None])
    with pytest.raises(IngestError, match="none of its 2 pages has a text layer"):
        PdfLoader().load(path, "scan.pdf", ctx)


def _encrypted(tmp_path: Path, user_password: str) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(BEES.read_bytes()))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    writer.write(path)
    return path


def test_encrypted_pdf_fails_with_advice(tmp_path: Path, ctx: LoadContext) -> None:
    path = _encrypted(tmp_path, "secret")
    with pytest.raises(IngestError) as e:
        PdfLoader().load(path, "locked.pdf", ctx)
    assert e.value.path == "locked.pdf"
    assert e.value.reason.startswith("encrypted PDF; decrypt it first (e.g. qpdf --decrypt")


def test_encrypted_with_empty_user_password_loads(tmp_path: Path, ctx: LoadContext) -> None:
    doc = PdfLoader().load(_encrypted(tmp_path, ""), "open.pdf", ctx)
    assert [s.span.page_start for s in doc.sections] == [1, 2, 3]


@pytest.mark.parametrize("keep", [0.5, 0.05])
def test_truncated_pdf(
    tmp_path: Path, ctx: LoadContext, keep: float, caplog: pytest.LogCaptureFixture
) -> None:
    data = BEES.read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: int(len(data) * keep)])
    with caplog.at_level(logging.WARNING), pytest.raises(IngestError) as e:
        PdfLoader().load(path, "cut.pdf", ctx)
    assert e.value.reason.startswith("not a readable PDF: ")
    # pypdf's complaints ("EOF marker not found") are kept off the terminal ...
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]
    # ... and the pypdf logger is left as it was
    assert logging.getLogger("pypdf").level == logging.NOTSET


def test_not_a_pdf_and_empty(tmp_path: Path, ctx: LoadContext) -> None:
    bogus = tmp_path / "notes.pdf"
    bogus.write_text("this is plain text, not a PDF\n", encoding="utf-8")
    with pytest.raises(IngestError, match="not a readable PDF"):
        PdfLoader().load(bogus, "notes.pdf", ctx)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(IngestError, match="empty file"):
        PdfLoader().load(empty, "empty.pdf", ctx)
