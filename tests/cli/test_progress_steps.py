"""Long steps report progress (kb.progress): rows that move on a terminal, lines at a
bounded rate through a pipe, and the real PDF loader and whisper model reporting."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest

from kb import progress
from kb.cli.progress_steps import StepLines, describe
from kb.progress import SECONDS, Step

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "fixtures" / "demo" / "papers" / "urban-beekeeping.pdf"
WAV = ROOT / "fixtures" / "demo" / "audio" / "heron-pilot.wav"


class Recorder:
    """A sink that keeps every call: (event, label, done, total)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, float, float | None]] = []

    def step_started(self, s: Step) -> None:
        self.events.append(("start", s.label, s.done, s.total))

    def step_advanced(self, s: Step) -> None:
        self.events.append(("advance", s.label, s.done, s.total))

    def step_done(self, s: Step) -> None:
        self.events.append(("done", s.label, s.done, s.total))


def test_a_step_counts_and_tells_time_left() -> None:
    now = [10.0]
    s = Step("reading a.pdf", 40, "pages", clock=lambda: now[0])
    s.started = now[0]
    assert s.left() is None and s.counts() == "0/40 pages"  # nothing done yet
    now[0] += 4
    s.advance(10)
    assert s.left() == pytest.approx(12.0)  # 4 s x (40 - 10) / 10
    assert describe(s, now[0]) == (
        "reading a.pdf: 10/40 pages (25%), 00:04 elapsed, about 00:12 left"
    )
    s.reach(5)  # never goes back
    assert s.done == 10
    s.reach(40)
    assert s.left() == 0.0
    audio = Step("transcribing memo.wav", 200.0, SECONDS)
    audio.done = 65.4
    assert audio.counts() == "01:05/03:20 of audio"
    opaque = Step("building the vector index", clock=lambda: now[0])
    opaque.started = now[0] - 3
    assert describe(opaque, now[0]) == "building the vector index: 00:03 elapsed"


def test_steps_go_to_the_installed_sink_and_nowhere_without_one() -> None:
    rec = Recorder()
    with progress.step("unseen", 3) as s:  # no sink: nothing to call, nothing fails
        s.advance()
    with progress.reporting(rec), progress.step("seen", 2, "pages") as s:
        s.advance()
        s.advance()
    assert rec.events == [
        ("start", "seen", 0, 2),
        ("advance", "seen", 1, 2),
        ("advance", "seen", 2, 2),
        ("done", "seen", 2, 2),
    ]
    with pytest.raises(ValueError), progress.reporting(rec), progress.step("fails"):
        raise ValueError
    assert rec.events[-1][:2] == ("done", "fails")  # ended even when its block raised


def test_a_pipe_gets_a_line_at_most_every_interval_and_none_for_short_steps() -> None:
    now = [0.0]
    out = io.StringIO()
    lines = StepLines(5.0, clock=lambda: now[0], out=out)
    with progress.reporting(lines), progress.step("quick", 10) as s:
        for _ in range(10):
            now[0] += 0.1
            s.advance()
    assert out.getvalue() == ""  # 1 s: shorter than FIRST_LINE_S, no line at all
    with progress.reporting(lines), progress.step("slow step", 200, "pages") as s:
        for _ in range(200):  # 100 s, a page every 0.5 s
            now[0] += 0.5
            s.advance()
    got = out.getvalue().splitlines()
    assert got[0] == "ingest: slow step: 4/200 pages (2%), 00:02 elapsed, about 01:38 left"
    assert got[-1] == "ingest: slow step: done, 200/200 pages in 01:40"
    # never two lines within 5 s: 1 + 98 / 5 progress lines and the end line
    assert len(got) == 1 + 98 // 5 + 1
    quiet = io.StringIO()
    hushed = StepLines(5.0, quiet=True, clock=lambda: now[0], out=quiet)
    with progress.reporting(hushed), progress.step("slow step", 10) as s:
        now[0] += 60
        s.advance(10)
    assert quiet.getvalue() == ""


def test_a_step_that_never_advances_still_prints_on_time_through_a_pipe() -> None:
    """One opaque call (an ONNX export, an index build) holds the thread: the wake-up
    thread prints its elapsed time, at most once per interval."""
    out = io.StringIO()
    lines = StepLines(0.2, out=out, first=0.2)
    with progress.reporting(lines), progress.step("exporting the embedding model to ONNX"):
        time.sleep(1.5)
    got = out.getvalue().splitlines()
    ticks = [g for g in got if g.endswith("elapsed")]
    assert 2 <= len(ticks) <= 1 + 1.5 / 0.2, got  # at 0.2 s, then 0.2 s apart or more
    assert got[-1].startswith("ingest: exporting the embedding model to ONNX: done, in 00:0")
    for _ in range(3):  # a step right after another is woken too (one thread, restarted)
        out.truncate(0)
        out.seek(0)
        with progress.reporting(lines), progress.step("next step"):
            time.sleep(0.7)
        assert "ingest: next step: 00:00 elapsed" in out.getvalue().splitlines()


def test_a_terminal_row_moves_while_the_step_runs() -> None:
    """On a tty-like stream rich redraws the step's row several times a second: counts
    and elapsed time change while the step runs, not only at its end."""
    from rich.console import Console

    from kb.cli.progress import RichProgress
    from kb.cli.progress_steps import REFRESH_PER_S

    buf = io.StringIO()
    rich = RichProgress(Console(file=buf, force_terminal=True, width=150))
    started = time.monotonic()
    with rich, progress.reporting(rich), progress.step("reading fake.pdf", 12, "pages") as s:
        for _ in range(12):
            time.sleep(0.1)
            s.advance()
        with progress.step("building the keyword index"):  # opaque: only time moves
            time.sleep(1.1)
    took = time.monotonic() - started
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.getvalue())  # colours, cursor moves
    frames = out.count("reading fake.pdf")
    assert frames >= took * REFRESH_PER_S / 2  # at least every 2 s, here ~4 a second
    shown = set(re.findall(r"\b(\d+)/12 pages", out))
    assert len(shown) >= 3, shown  # the count moved: 0/12 ... 12/12, not just the end
    row = [f for f in out.split("\r") if "building the keyword index" in f]
    assert any("0:00:00" in f for f in row) and any("0:00:01" in f for f in row)


def test_the_real_pdf_loader_reports_its_pages(tmp_path: Path) -> None:
    from ingest.loaders import LoadContext, PdfLoader
    from kb.config import Settings

    rec = Recorder()
    with progress.reporting(rec):
        doc = PdfLoader().load(PDF, "papers/b.pdf", LoadContext(Settings(), lambda: None))  # type: ignore[arg-type]
    pages = max(sec.span.page_end or 0 for sec in doc.sections)
    assert rec.events[0] == ("start", "reading papers/b.pdf", 0, pages)
    assert rec.events[-1] == ("done", "reading papers/b.pdf", pages, pages)
    dones = [e[2] for e in rec.events if e[0] == "advance"]
    assert dones == sorted(dones) and len(dones) == pages  # page by page
    out = io.StringIO()
    with progress.reporting(StepLines(0.0, out=out, first=0.0)):
        PdfLoader().load(PDF, "papers/b.pdf", LoadContext(Settings(), lambda: None))  # type: ignore[arg-type]
    assert f"ingest: reading papers/b.pdf: done, {pages}/{pages} pages in 00:00" in out.getvalue()


def test_the_real_whisper_model_reports_mm_ss_of_audio() -> None:
    import wave

    from kb.backends.transcriber import make_transcriber
    from kb.config import WhisperSettings

    with wave.open(str(WAV)) as w:
        duration = w.getnframes() / w.getframerate()
    t = make_transcriber(WhisperSettings(device="cpu", language="", beam_size=1), None)
    rec = Recorder()
    out = io.StringIO()
    lines = StepLines(0.0, out=out, first=0.0)

    class Both(Recorder):
        def step_started(self, s: Step) -> None:
            rec.step_started(s)
            lines.step_started(s)

        def step_advanced(self, s: Step) -> None:
            rec.step_advanced(s)
            lines.step_advanced(s)

        def step_done(self, s: Step) -> None:
            rec.step_done(s)
            lines.step_done(s)

    with progress.reporting(Both()):
        t.transcribe(WAV)
    mine = [e for e in rec.events if e[1] == "transcribing heron-pilot.wav"]
    assert mine[0] == ("start", "transcribing heron-pilot.wav", 0, pytest.approx(duration))
    assert mine[-1][2] == pytest.approx(duration, abs=0.01)
    assert len([e for e in mine if e[0] == "advance"]) >= 2  # segment by segment
    total = progress.Step("x", duration, SECONDS).counts().split("/")[1]
    assert re.search(rf"transcribing heron-pilot.wav: \d\d:\d\d/{total}", out.getvalue())


def test_a_model_load_before_the_first_run_is_not_taken_for_slow_embedding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kb.cli.progress import LineRate, PlainProgress

    now = [0.0]
    p = PlainProgress(rate=LineRate(interval=5, clock=lambda: now[0]))
    p.embed_total(100)
    with progress.reporting(p), progress.step("exporting the embedding model to ONNX"):
        now[0] += 60  # a minute of export: one line through the wake-up thread at most
    now[0] += 2
    p.embedded(10)  # 10 chunks in 2 s: 90 left take 18 s, not 90 x 62 / 10
    assert capsys.readouterr().err.splitlines()[-1] == (
        "ingest: embedding chunks 10/100 (10%), about 00:18 left"
    )
