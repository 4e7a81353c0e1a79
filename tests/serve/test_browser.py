"""End-to-end in a real browser: Chromium (Debian's ``chromium``, driven by Playwright
with ``executable_path=/usr/bin/chromium``; never ``playwright install``) against a real
``kb serve`` on a real KB (fixtures/demo: notes, a PDF, a recording) with the bundled
models, plus a hostile note.

Screenshots go to ``$KB_SCREENSHOTS`` when set (``docs/serve-ask.png`` is made this way).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT
from tests.serve.conftest import EVIL_NOTE
from tests.serve.live import kb_serve

CHROMIUM = os.environ.get("KB_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.slow
SHOTS = os.environ.get("KB_SCREENSHOTS")


def _browser_or_skip() -> Any:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set KB_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing: pip install -e '.[dev]'")
    return sync_playwright


def _kb(*args: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, check=True, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Path:
    """fixtures/demo plus an ``evil`` source, ingested by ``kb ingest``; two eval runs."""
    root = tmp_path_factory.mktemp("browser")
    evil = root / "evil"
    evil.mkdir()
    (evil / "evil.md").write_text(EVIL_NOTE, encoding="utf-8")
    home = root / "kb"
    config = root / "empty-config.toml"
    config.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "KB_HOME": str(home),
        "KB_CONFIG": str(config),
        "KB_MODEL_CACHE": str(model_cache),
        "HF_HUB_OFFLINE": "1",
    }
    _kb("ingest", str(FIXTURES / "demo"), str(evil), "-q", env=env)
    golden = str(FIXTURES / "golden" / "demo.yaml")
    _kb("eval", "run", golden, "--no-answer", "--name", "base", "-q", env=env)
    _kb("eval", "run", golden, "--no-answer", "--name", "k3", "-k", "3", "-q", env=env)
    return home


@pytest.fixture(scope="module")
def server(demo_home: Path, model_cache: Path) -> Iterator[str]:
    config = demo_home.parent / "empty-config.toml"
    env = {"KB_MODEL_CACHE": str(model_cache), "KB_CONFIG": str(config)}
    with kb_serve(demo_home, "--preload", env=env) as base:
        yield base


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.errors = errors
    yield pg
    ctx.close()


def shot(pg: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def test_ask_streams_an_answer_and_a_citation_opens_the_highlighted_lines(
    page: Any, server: str
) -> None:
    page.goto(server + "/")
    page.fill("#q", "How long does the sourdough proof in the refrigerator?")
    page.click("#ask-btn")
    page.wait_for_selector("#label:not([hidden])", timeout=90_000)
    answer = page.inner_text("#answer")
    assert "16 hours" in answer
    assert "Grounded" in page.inner_text("#label")
    assert page.locator("#verdicts li.supported").count() >= 1
    shot(page, "ask-md")
    page.click("#answer a.cite")
    frame = page.frame_locator("#viewer")
    cited = frame.locator("#cited")
    cited.wait_for(timeout=15_000)
    assert "refrigerator" in cited.inner_text()
    assert "hl" in (cited.get_attribute("class") or "")
    box = cited.bounding_box()
    assert box is not None and 0 <= box["y"] < 800  # scrolled into view
    assert page.errors == []


def test_a_contradicted_question_is_refused_with_the_word_named(page: Any, server: str) -> None:
    page.goto(server + "/")
    # the note: "The first trial count of aisle C finished in three hours."
    page.fill("#q", "How long did the last trial count of aisle C take?")
    page.click("#ask-btn")
    page.wait_for_selector("#label:not([hidden])", timeout=90_000)
    label = page.inner_text("#label")
    assert label.startswith("Refused:") and "'last'" in label and "'first'" in label, label
    assert "the model was not run" in label
    shot(page, "ask-contradicted")
    assert page.errors == []


def replay(page: Any, server: str, question: str, events: list[tuple[str, Any]]) -> None:
    """Ask ``question`` in the web app with ``/api/ask`` answered by these SSE events
    (what the client does with a given record, whatever the model would say)."""
    import json

    from kb.rag.reasons import outcome

    for name, data in events:  # the server's records carry their outcome (AnswerRecord.to_dict)
        if name == "done" and "outcome" not in data["answer"]:
            data["answer"]["outcome"] = outcome(data["answer"]).to_dict()
    body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    page.route(
        "**/api/ask?*",
        lambda route: route.fulfill(status=200, body=body, content_type="text/event-stream"),
    )
    page.goto(server + "/")
    page.fill("#q", question)
    page.click("#ask-btn")
    page.wait_for_selector("#label:not([hidden])", timeout=30_000)


def one_sentence_answer(
    claim: str, verdict: str, evidence: dict[str, Any], path: str
) -> list[tuple[str, Any]]:
    """The SSE events of an answer of one sentence, ``claim [#1]``, judged ``verdict``
    with ``evidence``, citing passage 1 of ``path``."""
    text = f"{claim} [#1]"
    score = evidence["score"]
    v = {"i": 0, "text": text, "claim": claim, "citations": [1], "verdict": verdict}
    v |= {"score": score, "evidence": evidence}
    loc = {"display": f"{path} · lines 1–8"}
    rec = {
        "text": text,
        "refused": False,
        "grounded": verdict == "supported",
        "citations": [{"n": 1, "chunk_id": 1, "path": path, "locator": loc}],
        "contexts": [],
        "sentences": [v],
        "timings": {},
    }
    return [("token", {"text": text}), ("verdict", v), ("done", {"answer": rec})]


def test_an_unsupported_sentence_shows_no_quote_as_evidence_under_its_source(
    page: Any, server: str
) -> None:
    # the answer stream is replaced by one whose only sentence the verifier rejected:
    # its cited passage's closest sentence must not appear under Sources as evidence
    closest = "Bulk fermentation takes four to six hours."
    ev = {"n": 1, "quote": closest, "score": 0.1, "locator": {"display": "notes/s.md · line 3"}}
    events = one_sentence_answer("It takes 9 days.", "unsupported", ev, "notes/s.md")
    replay(page, server, "How long is the bulk fermentation?", events)
    assert "Not grounded" in page.inner_text("#label")
    assert "closest: " in page.inner_text("#verdicts")
    sources = page.inner_text("#sources")
    assert closest not in sources
    assert "no sentence of this passage supports the answer" in sources
    shot(page, "ask-unsupported")
    assert page.errors == []


def test_a_quoted_table_row_shows_its_columns_under_its_source(page: Any, server: str) -> None:
    row = "| Netflix Standard | €13.99 | 19th |"
    ev = {
        "n": 1,
        "quote": row,
        "columns": ["service", "monthly", "renews"],
        "score": 0.9,
        "locator": {"display": "money/subscriptions.md · line 7"},
    }
    events = one_sentence_answer(row, "supported", ev, "money/subscriptions.md")
    replay(page, server, "How much is Netflix per month?", events)
    assert "Grounded" in page.inner_text("#label")
    sources = page.inner_text("#sources")
    assert f"“{row}” (columns: service | monthly | renews)" in sources
    shot(page, "ask-table-row")
    assert page.errors == []


def test_a_refusal_whose_words_are_all_there_says_the_meaning_is_far(
    page: Any, server: str
) -> None:
    a = {"score": 0.38, "threshold": 0.4, "coverage": 1.0, "cosine": 0.3948, "missing": []}
    rec = {
        "text": "",
        "refused": True,
        "refusal_reason": "no_support",
        "answerability": a,
        "grounded": False,
        "citations": [],
        "contexts": [],
        "sentences": [],
        "timings": {},
    }
    replay(page, server, "How long does the ALTER take?", [("done", {"answer": rec})])
    label = page.inner_text("#label")
    # the internals (the cosine) are for kb ask --explain only
    assert "the question's words are in the passages, but no sentence says what it asks" in label
    assert "cosine" not in label, label
    assert page.errors == []


def test_a_no_hits_refusal_names_the_closest_passage(page: Any, server: str) -> None:
    loc = {"path": "work/standup.md", "display": "work/standup.md › Standup 24 Nov · lines 3–8"}
    rec = {
        "text": "",
        "refused": True,
        "refusal_reason": "no_hits",
        "nearest": {"path": "work/standup.md", "locator": loc, "cosine": 0.206, "sentence": 0.447},
        "grounded": False,
        "citations": [],
        "contexts": [],
        "sentences": [],
        "timings": {},
    }
    replay(page, server, "What is Ana working on?", [("done", {"answer": rec})])
    label = page.inner_text("#label")
    assert "nothing in the KB is close enough" in label, label
    assert "Closest: work/standup.md › Standup 24 Nov · lines 3–8." in label, label
    shot(page, "ask-no-hits-closest")
    assert page.errors == []


def test_a_pdf_citation_lands_on_its_page(page: Any, server: str) -> None:
    page.goto(server + "/?q=When+is+honey+ready+to+harvest%3F")
    page.wait_for_selector("#label:not([hidden])", timeout=90_000)
    link = page.locator("#answer a.cite").first
    assert "urban-beekeeping.pdf" in (link.get_attribute("title") or "")
    link.click()
    frame = page.frame_locator("#viewer")
    frame.locator("#pdf[data-rendered='3']").wait_for(timeout=30_000)
    assert frame.locator("#pageinfo").inner_text() == "page 3 of 3"
    inked = frame.locator("#pdf-canvas").evaluate(
        "c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 100) n++; return n; }"
    )
    assert inked > 500  # the page's text was drawn
    page.wait_for_timeout(300)
    shot(page, "ask-pdf")
    if SHOTS:
        page.set_viewport_size({"width": 1100, "height": 560})
        page.screenshot(path=str(Path(SHOTS) / "serve-ask.png"))
    assert page.errors == []


def test_audio_starts_at_the_cited_second_with_the_transcript(page: Any, server: str) -> None:
    docs = page.request.get(server + "/api/documents").json()["documents"]
    audio = next(d for d in docs if d["type"] == "audio")
    page.goto(f"{server}/view/{audio['id']}?t=7")
    page.wait_for_function(
        "() => { const p = document.getElementById('player'); return p.readyState >= 1; }"
    )
    t = page.evaluate("() => document.getElementById('player').currentTime")
    assert 6.9 <= t <= 7.1
    assert "Heron" in page.inner_text("ol.transcript")
    page.click("ol.transcript button.seek")
    page.wait_for_function("() => document.getElementById('player').currentTime < 1")
    shot(page, "audio")
    assert page.errors == []


def test_search_with_a_type_filter(page: Any, server: str) -> None:
    page.goto(server + "/search")
    page.fill("#q", "bees")
    page.click("details.filters summary")
    page.select_option("select[name=type]", "pdf")
    page.click("form.query button[type=submit]")
    page.wait_for_selector("ol.hits")
    types = page.locator(".hit .type").all_inner_texts()
    assert types and {t.lower() for t in types} == {"pdf"}
    assert "type=pdf" in page.url
    page.locator(".hit a.loc").first.click()
    page.wait_for_selector("#pdf[data-rendered]", timeout=30_000)
    shot(page, "search")


def test_eval_compare_opens(page: Any, server: str) -> None:
    page.goto(server + "/eval")
    assert page.locator("table.grid tbody tr").count() == 2
    page.click("form.compare button")
    page.wait_for_load_state()
    assert "/eval/compare" in page.url
    body = page.inner_text("body")
    assert "k3" in body and "base" in body
    shot(page, "eval-compare")
    runs = page.request.get(server + "/api/eval/runs").json()["runs"]
    assert [r["name"] for r in runs] == ["base", "k3"]
    c = page.request.get(server + "/api/eval/compare?a=base&b=k3").json()
    assert c["a"]["name"] == "base" and c["b"]["name"] == "k3" and c["metrics"]
    rep = page.request.get(server + "/api/eval/runs/base").json()
    assert rep["metrics"]["overall"]["metrics"]["hit@1"] is not None
    page.click("text=eval runs")
    page.click("table.grid a >> nth=0")
    assert "Metrics" in page.inner_text("body")


def test_a_hostile_note_runs_no_script(page: Any, server: str) -> None:
    page.goto(server + "/search?q=zebra+passphrase+kumquat")
    page.locator(".hit a.loc").first.click()
    page.wait_for_selector("article.md")
    text = page.inner_text("article.md")
    assert "<script>window.__xss = 1</script>" in text
    assert 'onerror="window.__xss = 2"' in text
    page.click("text=link")  # a javascript: link is not a link: clicking does nothing
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__xss") is None
    page.goto(server + "/?q=%3Cimg+src%3Dx+onerror%3Dwindow.__xss%3D5%3E+zebra")
    page.wait_for_selector("#label:not([hidden]), #status:has-text('lost')", timeout=90_000)
    assert page.evaluate("() => window.__xss") is None


def test_phone_layout(browser: Any, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    pg = ctx.new_page()
    pg.goto(server + "/search?q=starter")
    width = pg.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390  # nothing forces sideways scrolling
    shot(pg, "phone-search")
    pg.goto(server + "/?q=How+long+does+the+sourdough+proof+in+the+refrigerator%3F")
    pg.wait_for_selector("#label:not([hidden])", timeout=90_000)
    pg.click("#answer a.cite")
    pg.frame_locator("#viewer").locator("#cited").wait_for(timeout=15_000)
    pg.wait_for_function(
        "() => document.getElementById('viewer-pane').getBoundingClientRect().top < 400"
    )
    pane = pg.locator("#viewer-pane").bounding_box()
    assert pane is not None and pane["height"] > 400  # stacked at its own height
    shot(pg, "phone-ask-source")
    ctx.close()


def test_skips_cleanly_without_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        _browser_or_skip()
