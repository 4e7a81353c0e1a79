"""kb.serve.render: Markdown with cited blocks marked, numbered text, escaped excerpts."""

from __future__ import annotations

from kb.serve.render import excerpt_html, markdown_html, text_html

NOTE = """---
tags: [a]
title: <b>x</b>
---
# Title

First paragraph
on two lines.

- item <i>one</i>
- item two

```
<script>code()</script>
```
"""


def test_markdown_marks_the_blocks_of_the_cited_file_lines() -> None:
    html = markdown_html(NOTE, (7, 8))
    assert "tags:" not in html and "<b>x</b>" not in html  # front matter hidden
    assert '<p data-lines="7-8" class="hl" id="cited">First paragraph' in html
    assert '<h1 data-lines="5-5">Title</h1>' in html  # file lines, front matter counted
    assert "&lt;i&gt;one&lt;/i&gt;" in html and "&lt;script&gt;code()" in html
    assert html.count('class="hl"') == 1


def test_markdown_without_citation_marks_nothing() -> None:
    assert "hl" not in markdown_html(NOTE, None)


def test_text_lines_are_numbered_escaped_and_marked() -> None:
    html = text_html(["a <b>", "b", "c"], (2, 3))
    assert '<span class="ln" data-n="1"><span class="no">1</span>a &lt;b&gt;</span>' in html
    assert 'class="ln hl" id="cited" data-n="2"' in html
    assert 'class="ln hl" data-n="3"' in html


def test_excerpt_marks_query_words_and_escapes_the_rest() -> None:
    html = excerpt_html("Feed the <starter> & wait", "starter")
    assert html == "Feed the &lt;<mark>starter</mark>&gt; &amp; wait"


def test_page_text_writes_pdf_headings_over_their_text() -> None:
    from kb.serve.reader import Segment, joined_text

    def seg(text: str, heading: str, page: int) -> Segment:
        return Segment(1, text, heading, None, (page, page), None)

    titled = [
        seg("Thanks.", "Manual", 1),
        seg("Remove the bolts.", "Manual > Setup", 1),
        seg("Tighten the hose.", "Manual > Setup", 2),
        seg("E21: no drain.", "Manual > Errors", 2),
    ]
    assert joined_text(titled, "Manual") == (
        "Thanks.\n\nSetup\n\nRemove the bolts.\n\nTighten the hose.\n\nErrors\n\nE21: no drain."
    )
    # an untitled PDF's first heading is a heading, not a title to leave out
    untitled = [seg("E21: no drain.", "Error codes", 1), seg("Keep warm.", "Heating", 1)]
    assert joined_text(untitled) == "Error codes\n\nE21: no drain.\n\nHeating\n\nKeep warm."
