"""Document text as safe HTML for the source viewer, with the cited place marked.

- Markdown: rendered by markdown-it-py with raw HTML **off** (a ``<script>`` in a
  note is shown as text) and its link check on (no ``javascript:`` links); front
  matter is parsed and hidden. Every top-level block carries ``data-lines="A-B"``
  (1-based file lines, as chunks store them); blocks that overlap the cited lines get
  the class ``hl``, the first of them ``id="cited"``.
- Text: one ``<span class="ln">`` per line with its number; cited lines ``hl``.
- Search excerpts: the query's words wrapped in ``<mark>``, everything else escaped.

Every string from a document passes :func:`html.escape` (or markdown-it's escaping)
before it reaches a page; nothing here emits a script or an event attribute.
"""

from __future__ import annotations

from html import escape

Lines = tuple[int, int] | None


def _overlap(a: int, b: int, cited: Lines) -> bool:
    return cited is not None and a <= cited[1] and cited[0] <= b


def markdown_html(text: str, cited: Lines) -> str:
    """Rendered Markdown with the blocks covering ``cited`` (first, last line) marked."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.use(front_matter_plugin)
    tokens = md.parse(text)
    first = True
    for tok in tokens:
        if tok.level != 0 or tok.nesting == -1 or tok.map is None or tok.type == "front_matter":
            continue
        a, b = tok.map[0] + 1, max(tok.map[0] + 1, tok.map[1])
        tok.attrSet("data-lines", f"{a}-{b}")
        if _overlap(a, b, cited):
            tok.attrJoin("class", "hl")
            if first:
                tok.attrSet("id", "cited")
                first = False
    return str(md.renderer.render(tokens, md.options, {}))


def text_html(lines: list[str], cited: Lines, start: int = 1) -> str:
    """Numbered lines; those in ``cited`` marked, the first with ``id="cited"``."""
    out = []
    first = True
    for i, line in enumerate(lines, start):
        cls = "ln"
        extra = ""
        if _overlap(i, i, cited):
            cls += " hl"
            if first:
                extra, first = ' id="cited"', False
        out.append(
            f'<span class="{cls}"{extra} data-n="{i}"><span class="no">{i}</span>'
            f"{escape(line) or ' '}</span>"
        )
    return "\n".join(out)


def excerpt_html(text: str, query: str, width: int = 280) -> str:
    """A search excerpt around the query words, escaped, the words in ``<mark>``."""
    from kb.search.excerpt import excerpt, spans

    shown = excerpt(text, query, width)
    out, pos = [], 0
    for s, e in spans(shown, query):
        out.append(escape(shown[pos:s]) + "<mark>" + escape(shown[s:e]) + "</mark>")
        pos = e
    out.append(escape(shown[pos:]))
    return "".join(out)
