"""PDF loader: sections by page and by the headings a page shows, pages without text,
encrypted and damaged files."""

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


def page_texts(path: Path) -> str:
    """The document text the loader's offsets index: the pages' text joined by a blank line."""
    from pypdf import PdfReader

    pages = [(p.extract_text() or "").replace("\x00", "").strip() for p in PdfReader(path).pages]
    return "\n\n".join(t for t in pages if t)


def test_demo_pdf_sections_by_page_and_heading(ctx: LoadContext) -> None:
    doc = PdfLoader().load(BEES, "papers/urban-beekeeping.pdf", ctx)
    title = "A Short Field Guide to Urban Beekeeping"  # the PDF's /Title
    assert doc.doc_type == "pdf" and doc.warnings == []
    assert doc.meta == {"pages": 3, "title": title}
    assert [(s.span.page_start, s.span.page_end) for s in doc.sections] == [(1, 1), (2, 2), (3, 3)]
    # each page's 14 pt heading heads its section and leaves its text, as in Markdown
    assert [s.heading_path for s in doc.sections] == [
        (title, "1. Setting up the hive"),
        (title, "2. Seasonal care"),
        (title, "3. Harvesting honey"),
    ]
    assert "Setting up the hive" not in doc.sections[0].text
    assert doc.sections[0].text.startswith("A rooftop or a quiet corner")
    assert "Varroa" in doc.sections[1].text
    assert "Varroa" not in doc.sections[0].text + doc.sections[2].text
    # every page's footer ("Page 1", "Page 2", "Page 3") is a running line: cut
    assert all("Page" not in s.text for s in doc.sections)
    assert doc.sections[0].text.endswith("for the first two months.")
    # offsets index the page texts, less their running lines, joined by a blank line
    joined = (
        page_texts(BEES).replace("\nPage 1", "").replace("\nPage 2", "").replace("\nPage 3", "")
    )
    for s in doc.sections:
        assert joined[s.char_start : s.char_end] == s.text
        assert s.span.line_start is None


def test_headings_nest_by_size_and_carry_over_pages(ctx: LoadContext, tmp_path: Path) -> None:
    from reportlab.pdfgen import canvas

    path = tmp_path / "manual.pdf"
    c = canvas.Canvas(str(path), invariant=1)
    c.setTitle("AquaWash 7000 User Manual")

    def lines(y: int, font: str, size: int, texts: list[str]) -> int:
        c.setFont(font, size)
        for t in texts:
            c.drawString(60, y, t)
            y -= int(size * 1.6)
        return y

    y = lines(780, "Helvetica-Bold", 20, ["AquaWash 7000 User Manual"])
    y = lines(y, "Helvetica", 11, ["Thank you for buying the AquaWash 7000 washing machine."])
    y = lines(y, "Helvetica-Bold", 16, ["Installation"])
    y = lines(y, "Helvetica", 11, ["Remove the three transport bolts from the back panel."])
    y = lines(y, "Helvetica-Bold", 13, ["Water supply and the inlet", "hose"])
    lines(y, "Helvetica", 11, ["Connect the inlet hose to a cold tap (3/4 inch thread)."])
    c.showPage()
    y = lines(780, "Helvetica", 11, ["Tighten the hose by hand; never use pliers on it."])
    y = lines(y, "Helvetica-Bold", 16, ["Error codes"])
    y = lines(y, "Helvetica", 11, ["E21: the water does not drain. Clean the pump filter."])
    lines(y, "Helvetica", 11, ["This line of body text runs long, " * 5])
    c.showPage()
    c.save()
    doc = PdfLoader().load(path, "manual.pdf", ctx)
    title = "AquaWash 7000 User Manual"
    got = [(s.span.page_start, s.heading_path[1:], s.text.split("\n")[0]) for s in doc.sections]
    water = "Water supply and the inlet hose"  # one heading over two lines
    assert got == [
        (1, (), "Thank you for buying the AquaWash 7000 washing machine."),
        (1, ("Installation",), "Remove the three transport bolts from the back panel."),
        (1, ("Installation", water), "Connect the inlet hose to a cold tap (3/4 inch thread)."),
        (2, ("Installation", water), "Tighten the hose by hand; never use pliers on it."),
        (2, ("Error codes",), "E21: the water does not drain. Clean the pump filter."),
    ]
    assert all(s.heading_path[0] == title for s in doc.sections)
    assert "Error codes" not in doc.sections[-1].text  # the heading moved to the path
    joined = page_texts(path)
    for s in doc.sections:
        assert joined[s.char_start : s.char_end] == s.text


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ("  Deep   Residual\nLearning ", "Deep Residual Learning"),
        ("untitled", None),
        ("(anonymous)", None),  # reportlab's SimpleDocTemplate
        ("[Unspecified]", None),
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
    assert {s.heading_path for s in doc.sections} == {(title,)}
    assert [s.span.page_start for s in doc.sections] == [1] * (1 + stamp) + [2]
    # the title's lines head the sections instead of opening page 1's text (the stamp,
    # above them in the text, is a section of its own on page 1 ...)
    assert "Service Agreement:" not in " ".join(s.text for s in doc.sections)
    assert "1. Term. It starts in 2026." in doc.sections[stamp].text
    # ... which the structure chunker merges with the page's clauses (same heading, page)
    from ingest.chunkers import make_chunker
    from kb.config import Settings
    from tests.ingest.test_chunkers import REGEX

    chunks = make_chunker("structure", Settings(), REGEX).chunk(doc)
    assert [c.span.page_start for c in chunks] == [1, 2]


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


PARTS = tuple(f"Part {i}" for i in range(1, 100))


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
    # each page is its sections and the 14 pt "Part N" lines (the 20 pt title on page 1)
    # between them; a part that runs on over a page keeps its heading there
    for n, text in expected:
        secs = [s for s in doc.sections if s.span.page_start == n]
        rest = text
        for s in secs:
            assert s.text in rest
            rest = rest.replace(s.text, "", 1)
        assert [line for line in rest.split("\n") if line.strip()] == [
            line for line in rest.split("\n") if line.strip() in ("Geology", *PARTS)
        ]
    parts = [s.heading_path for s in doc.sections]
    assert parts[0] == ("Geology", "Part 1") and all(len(p) == 2 for p in parts)
    assert [int(p[1].split()[1]) for p in parts] == sorted(int(p[1].split()[1]) for p in parts)
    assert all(s.span.page_start == s.span.page_end for s in doc.sections)
    assert {s.span.page_start for s in doc.sections} == {n for n, _ in expected}


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


def test_heading_lines_rules() -> None:
    from ingest.loaders.pdf_headings import MAX_HEADING_CHARS, char_sizes, heading_lines

    body = "Body text of the page, set at the size most characters use.\n" * 3
    text = f"Intro\n{body}Big lead-in then body\n{'W' * (MAX_HEADING_CHARS + 1)}\n2024\nEnd"
    runs = [("Intro", 14.0), (body, 10.0), ("Big lead-in", 14.0), (" then body\n", 10.0)]
    runs += [("W" * (MAX_HEADING_CHARS + 1), 14.0), ("2024", 14.0), ("End", 14.0)]
    got = [(text[a:b], size) for a, b, size in heading_lines(text, runs)]
    # a line partly at body size, an over-long line and a line without a letter are text
    assert got == [("Intro", 14.0), ("End", 14.0)]
    # a run not found near where the previous one ended gives its characters no size
    sizes = char_sizes("abc def", [("abc", 10.0), ("xyz", 12.0), ("def", 12.0)])
    assert sizes == [10.0] * 3 + [None] + [12.0] * 3
    assert heading_lines("only body", [("only body", 10.0)]) == []
    assert heading_lines("no runs", []) == []


def test_a_passage_set_large_stays_text() -> None:
    from ingest.loaders.pdf_headings import MAX_HEADING_LINES, heading_lines

    lead = [f"Lead paragraph line {i} in a larger size." for i in range(MAX_HEADING_LINES + 1)]
    body = "Body text of the page, set at the size most characters use.\n" * 4
    text = "\n".join(lead) + "\n" + body + "A heading\nover two lines\n" + body
    runs = [(f"{t}\n", 13.0) for t in lead] + [(body, 10.0)]
    runs += [("A heading\n", 13.0), ("over two lines\n", 13.0), (body, 10.0)]
    got = [text[a:b] for a, b, _ in heading_lines(text, runs)]
    assert got == ["A heading\nover two lines"]


def test_small_print_pages_callouts_and_a_closing_heading(ctx: LoadContext, tmp_path: Path) -> None:
    from reportlab.pdfgen import canvas

    path = tmp_path / "report.pdf"
    c = canvas.Canvas(str(path), invariant=1)
    c.setTitle("Annual Report")
    small = "References and footnotes set in small print, line after line. " * 1
    c.setFont("Helvetica", 8)
    for i in range(6):
        c.drawString(60, 780 - 12 * i, f"{small}{i}")
    c.setFont("Helvetica", 10)
    c.drawString(60, 690, "Appendix data")  # 10 pt over 8 pt print: a heading on this page
    c.setFont("Helvetica", 8)
    c.drawString(60, 676, "Table A1 lists the raw figures.")
    c.showPage()
    c.setFont("Helvetica", 10)
    for i in range(6):
        c.drawString(60, 780 - 14 * i, f"Ordinary body text of the second page, line {i}.")
    c.setFont("Helvetica-Bold", 13)
    c.drawString(60, 680, "Warning: unplug the unit before you open it.")  # a callout
    c.drawString(60, 650, "Index")  # the last line of the document: heads nothing
    c.showPage()
    c.save()
    doc = PdfLoader().load(path, "report.pdf", ctx)
    got = [(s.span.page_start, s.heading_path, s.text.split("\n")[0]) for s in doc.sections]
    assert got[1] == (1, ("Annual Report", "Appendix data"), "Table A1 lists the raw figures.")
    # page 2's 10 pt body closes the 10 pt "heading" of the small-print page
    assert got[2][:2] == (2, ("Annual Report",))
    assert "Warning: unplug the unit" in doc.sections[2].text  # a callout stays text
    assert got[3] == (2, ("Annual Report",), "Index")  # kept as text, not lost
    joined = page_texts(path)
    for s in doc.sections:
        assert joined[s.char_start : s.char_end] == s.text


def test_a_failing_cut_keeps_the_page_whole(
    ctx: LoadContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ingest.loaders.pdf as pdf

    def broken(*args: object, **kw: object) -> object:
        raise ValueError("odd runs")

    monkeypatch.setattr(pdf, "page_sections", broken)
    doc = PdfLoader().load(BEES, "b.pdf", ctx)
    assert [s.span.page_start for s in doc.sections] == [1, 2, 3]
    assert "Seasonal care" in doc.sections[1].text and doc.warnings == []


def test_a_title_shown_unlike_the_pdf_title_is_not_a_heading(
    ctx: LoadContext, tmp_path: Path
) -> None:
    from reportlab.pdfgen import canvas

    path = tmp_path / "t.pdf"
    c = canvas.Canvas(str(path), invariant=1)
    c.setTitle("report-final-v3")  # /Title differs from the title the page shows
    c.setFont("Helvetica-Bold", 20)
    c.drawString(60, 780, "Water Quality in 2025")
    c.setFont("Helvetica", 10)
    for i in range(4):
        c.drawString(60, 740 - 14 * i, f"Body text line {i} of the report on water quality.")
    c.showPage()
    c.save()
    doc = PdfLoader().load(path, "t.pdf", ctx)
    assert [s.heading_path for s in doc.sections] == [("report-final-v3",)]
    assert "Water Quality in 2025" not in doc.sections[0].text


def lease_pdf(path: Path, pages: int, *, chapter_heads: bool = False) -> Path:
    """A lease whose every page has a running header and a "Page n of N" footer in
    8 pt over five 11 pt clauses; ``chapter_heads`` opens each page with a 16 pt
    "Chapter n"."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), invariant=1)
    for n in range(1, pages + 1):
        c.setFont("Helvetica", 8)
        c.drawString(72, 800, "Tenancy Agreement - Flat 3, 12 Elm Road")
        y = 760
        if chapter_heads:
            c.setFont("Helvetica-Bold", 16)
            c.drawString(72, y, f"Chapter {n}")
            y -= 30
        c.setFont("Helvetica", 11)
        for i in range(5):  # clause numbers do not move with the page's
            c.drawString(72, y - 16 * i, f"Clause {n * n}.{i}: the tenant keeps item {n}{i}.")
        c.setFont("Helvetica", 8)
        c.drawString(500, 30, f"Page {n} of {pages}")
        c.showPage()
    c.save()
    return path


def test_running_headers_and_footers_are_cut(ctx: LoadContext, tmp_path: Path) -> None:
    doc = PdfLoader().load(lease_pdf(tmp_path / "lease.pdf", 4), "lease.pdf", ctx)
    assert doc.warnings == [] and len(doc.sections) == 4
    for n, s in enumerate(doc.sections, 1):
        assert s.text.endswith(f"item {n}4.") and "of 4" not in s.text
    # the header says where the flat is: kept on page 1, cut on the others
    assert doc.sections[0].text.startswith("Tenancy Agreement - Flat 3, 12 Elm Road\nClause 1.0")
    assert all(s.text.startswith(f"Clause {n * n}.0") for n, s in enumerate(doc.sections[1:], 2))
    # a two-page document keeps everything
    short = PdfLoader().load(lease_pdf(tmp_path / "short.pdf", 2), "short.pdf", ctx)
    assert all("Elm Road" in s.text and "of 2" in s.text for s in short.sections)


def test_a_large_line_opening_every_page_stays_a_heading(ctx: LoadContext, tmp_path: Path) -> None:
    path = lease_pdf(tmp_path / "book.pdf", 4, chapter_heads=True)
    doc = PdfLoader().load(path, "book.pdf", ctx)
    heads = [s.heading_path[-1] for s in doc.sections if s.heading_path]
    assert heads[-4:] == [f"Chapter {n}" for n in range(1, 5)]
    assert sum("Elm Road" in s.text for s in doc.sections) == 1


def test_running_line_rules() -> None:
    from ingest.loaders.pdf_running import RunningLines, line_key

    assert line_key("Page 2 of 14") == line_key("page 3  of 14") == "page # of #"
    assert line_key("- 7 -") == "- # -" and line_key("* * *") == ""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    body = [f"{w} {w} text, item {{n}}{{n}}." for w in words]

    def page(n: int, head: str, foot: str) -> tuple[int, str, list[tuple[str, float]]]:
        return (n, "\n".join([head, *(b.format(n=n) for b in body), foot]), [])

    # a repeated header, a page number printed one less than the page (a cover first),
    # and a clause line whose numbers do not follow the pages
    pages = [page(n, "Report 2026", f"- {n - 1} -") for n in range(2, 7)]
    pages += [page(7, "Clause 4.1 opens here", "End"), page(8, "Clause 9.3 opens here", "End")]
    pages += [page(9, "Clause 2.7 opens here", "End")]
    running = RunningLines(pages)
    assert running.keys == {"report #": False, "- # -": True}
    first, second = (running.strip(t, [])[0] for _, t, _ in pages[:2])
    assert first.startswith("Report 2026\nalpha") and first.endswith("item 22.")
    assert second.startswith("alpha") and second.endswith("item 33.")
    # the same words inside a page's text stay: only edge lines are cut
    inner = "Intro.\nMore.\nText.\nReport 2026\nEnd.\nOf.\nPage."
    assert running.strip(inner, []) == (inner, [])
    # a line whose other numbers change too is text, not a page number: kept
    diary = [
        page(n, f"Day {n} - {3 + n:02d}.03.2024 - {n * 7 + 3} km walked", "End")
        for n in (1, 2, 3, 4)
    ]
    assert RunningLines(diary).keys == {"end": False}
    carried = [
        page(n, f"Balance brought forward from page {n - 1}: £{n * 37}", "x") for n in (2, 3, 4)
    ]
    assert "balance brought forward from page #: £#" not in RunningLines(carried).keys
    # "Page 4 of 4": either 4 may be the page's
    last = [page(n, "Report", f"Page {n} of 4") for n in (1, 2, 3, 4)]
    assert RunningLines(last).keys["page # of #"] is True


def test_a_cut_page_number_does_not_hide_the_heading_after_it(
    ctx: LoadContext, tmp_path: Path
) -> None:
    from reportlab.pdfgen import canvas

    path = tmp_path / "numbers.pdf"
    c = canvas.Canvas(str(path), invariant=1)
    for n, word in enumerate(("Alpha", "Bravo", "Charlie", "Delta"), 1):
        c.setFont("Helvetica", 8)
        c.drawString(300, 800, f"{n}")
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, 760, f"Section {word}")
        c.setFont("Helvetica", 11)
        for i in range(4):
            c.drawString(
                72, 730 - 16 * i, f"The {word} tenant shall pay {n} months of rent, line {i}."
            )
        c.showPage()
    c.save()
    doc = PdfLoader().load(path, "numbers.pdf", ctx)
    heads = [s.heading_path[-1] for s in doc.sections]
    assert heads == [f"Section {w}" for w in ("Alpha", "Bravo", "Charlie", "Delta")]
    assert all(s.text.startswith("The ") for s in doc.sections)
