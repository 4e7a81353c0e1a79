"""``kb eval check GOLDEN``: supports the KB no longer backs (the corpus drifted).

Per support, in order (the first failure is reported):

- **missing document**: no indexed document has the support's path (a ``failed``
  document is reported as such);
- **heading**: no chunk of the document has a heading path starting with it;
- **snippet**: the folded snippet is in no chunk and not in the document text either;
- **page / lines / seconds**: no chunk of the document overlaps the range.

A snippet found only across a chunk boundary is not drift (the text is there), but is
listed as a note: strict matching cannot match it; ``kb eval compare`` across
chunkers can (see :mod:`eval.matching`).
"""

from __future__ import annotations

from dataclasses import dataclass

from eval.golden import GoldenSet, Support
from eval.matching import heading_parts
from eval.resolve import Resolver


@dataclass(frozen=True)
class Issue:
    query_id: str
    support: int
    path: str
    problem: str
    drift: bool  # False: a note

    def line(self) -> str:
        kind = "drift" if self.drift else "note"
        return (
            f"{kind}: query '{self.query_id}': supports[{self.support}] {self.path}: {self.problem}"
        )


def _overlaps(a: tuple[float, float] | None, lo: float, hi: float) -> bool:
    return a is not None and a[0] <= hi and lo <= a[1]


def check_support(res: Resolver, qid: str, i: int, s: Support) -> Issue | None:
    kb_path = res.kb_path(s.path)
    doc = res.document(kb_path)
    if doc is None:
        return Issue(qid, i, kb_path, "document is not in the KB", True)
    if doc.status != "indexed":
        return Issue(qid, i, kb_path, "document failed to ingest (see `kb status`)", True)
    chunks = res.chunks(doc.id)
    if s.heading is not None:
        want = heading_parts(s.heading)
        if not any(heading_parts(c.heading)[: len(want)] == want for c in chunks):
            return Issue(qid, i, kb_path, f"no chunk under heading {s.heading!r}", True)
    for name, rng, attr in (
        ("page", (s.page, s.page) if s.page else None, "pages"),
        ("lines", s.lines, "lines"),
        ("seconds", s.seconds, "seconds"),
    ):
        if rng is not None and not any(_overlaps(getattr(c, attr), *rng) for c in chunks):
            return Issue(qid, i, kb_path, f"no chunk overlaps {name} {list(rng)}", True)
    if s.snippet is not None:
        r = res.resolve(s)
        if r.snippet_found == "missing":
            return Issue(qid, i, kb_path, f"snippet not found: {s.snippet[:60]!r}", True)
        if r.snippet_found == "span":
            return Issue(qid, i, kb_path, "snippet found only across a chunk boundary", False)
    return None


def check_golden(res: Resolver, golden: GoldenSet) -> list[Issue]:
    out = []
    for q in golden.queries:
        for i, s in enumerate(q.supports):
            issue = check_support(res, q.id, i, s)
            if issue is not None and q.pending and issue.drift:
                # evidence not indexed yet: expected, so a note rather than drift
                issue = Issue(issue.query_id, i, issue.path, issue.problem + " (pending)", False)
            if issue is not None:
                out.append(issue)
    return out
