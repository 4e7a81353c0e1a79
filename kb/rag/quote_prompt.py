"""Quote mode's prompt: the candidate sentences the model may quote, and its grammar.

:func:`quote_prompt` ranks the passages' sentences (:func:`kb.rag.candidates.rank_candidates`),
narrows them by the selectors of :mod:`kb.rag.rules` in order (``two-facts``: one sentence
for each of two facts asked, :mod:`kb.rag.two_facts`; ``period``: a year's entry;
``typed-candidates``: a sentence that gives the type asked; then ``steps``, ``rows``,
``record-one``, ``section``, ``list``, ``record``, ``tasks``: the first that gives candidates
wins), keeps as many as fit the context window beside the question and the model's
budget (:func:`quote_budget`), and returns the prompt, the grammar that lets the model
write only candidate numbers or the refusal phrase, the verifier that holds the
passages' embedded sentences, and the id of the selector that chose. :func:`expanded`
turns the model's streamed numbers back into the quoted sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from kb.backends.generator import Generator
from kb.errors import ContextOverflowError
from kb.rag.answer_type import expected_type, gives, strict_type
from kb.rag.answerability import (
    Assessed,
)
from kb.rag.asked_period import asked_years, in_period
from kb.rag.prompt import BuiltPrompt, Truncation
from kb.rag.quote import (
    SECTION_QUOTES,
    STEP_QUOTES,
    Candidate,
    LabelExpander,
    asks_one,
    asks_rows,
    asks_several,
    asks_steps,
    candidates_block,
    counts_items,
    list_candidates,
    listed,
    quote_grammar,
    rank_candidates,
    record_candidates,
    row_candidates,
    section_candidates,
    step_candidates,
    task_candidates,
)
from kb.rag.rules import RANKED
from kb.rag.two_facts import asked_facts, two_fact_candidates
from kb.rag.verify import Verifier
from kb.types import Hit

if TYPE_CHECKING:
    from kb.rag.pipeline import AskPipeline

#: the selector of a question that asks two facts (:mod:`kb.rag.two_facts`)
TWO_FACTS = "two-facts"

#: quote mode: the model writes only candidate numbers or the refusal phrase; the
#: least it may write (the refusal phrase fits)
QUOTE_MAX_TOKENS = 16


def quote_budget(n_candidates: int) -> int:
    """The tokens quote mode lets the model write: every candidate's number and a space
    after it (3 tokens each at most: "10 " may be two and a space), and at least
    :data:`QUOTE_MAX_TOKENS` for the refusal phrase. A fixed budget of 16 cut the all-items
    answer "1 2 3 4 5 6 7 8 9 10" of a 10-step procedure after its eighth step."""
    return max(QUOTE_MAX_TOKENS, 3 * n_candidates)


def quote_prompt(
    pipe: AskPipeline, gen: Generator, q: str, hits: list[Hit], assessed: Assessed
) -> tuple[BuiltPrompt, str, Verifier, str, str | None]:
    """Candidates that fit the window, the quote grammar, the verifier that already
    holds the embedded passage sentences (the evidence check's), the id of the
    selector (:mod:`kb.rag.rules`) whose candidates the model chooses from, and the
    part of a two-fact question no candidate answers (:mod:`kb.rag.two_facts`; ``None``
    for any other question)."""
    a, p, llm = pipe.settings.answer, pipe.settings.prompt, pipe.settings.llm
    verifier = pipe._verifier(hits, vectors=True, passages=assessed.passages, quoted=True)
    cands = rank_candidates(
        q,
        verifier.passages,
        pipe.embed,
        a.quote_candidates,
        doc_freq=pipe.doc_freq,
        qvec=assessed.qvec,
        off=a.rules_off,
    )
    if not cands:
        raise ContextOverflowError("the retrieved passages hold no sentence to quote")
    most = a.quote_max_sentences
    every = False  # every item of a named section, list or record, or the tasks asked
    off = frozenset(a.rules_off)
    chose = RANKED  # the rule (kb.rag.rules) whose candidates the model chooses from
    # the section is the answer, its sentences ("What are the risks?"); not for a
    # question one value answers ("How long does a restore take?" under "## Restore")
    counting = counts_items(q)  # "How many books …?": every item, to count
    ranked_all: list[Candidate] = []

    def every_of() -> list[Candidate]:
        """Every sentence as a candidate, ranked once for all the selectors that read it."""
        if not ranked_all:
            ranked_all.extend(every_candidate(pipe, q, verifier, assessed))
        return list(ranked_all)

    years = asked_years(q)
    unanswered: str | None = None
    facts = asked_facts(q) if "two-facts" not in off else None
    if facts is not None:
        # a question that asks two facts quotes one sentence for each (of that year's
        # entries when it names one), or says which one the notes do not answer
        pool = every_of()
        if years:
            ps = verifier.passages
            pool = [c for c in pool if in_period(years, (c.lead, c.text), ps[c.n - 1].hit)] or pool
        picked = two_fact_candidates(facts, pool, verifier.passages, pipe.doc_freq)
        if picked is not None:
            cands, chose, unanswered = picked.candidates, TWO_FACTS, picked.unanswered
            most, every = len(cands), True
    if years and "period" not in off and chose == RANKED:
        # a question that names a year answers from that year's entry, row or section
        # (kb.rag.asked_period), which may rank past the candidates' limit
        pool = list(cands)
        seen = {(c.n, c.j) for c in pool}
        pool += [c for c in every_of() if (c.n, c.j) not in seen]
        ps = verifier.passages
        dated = [c for c in pool if in_period(years, (c.lead, c.text), ps[c.n - 1].hit)]
        if dated and len(dated) < len(pool):
            cands, chose = dated[: a.quote_candidates], "period"
    strict = strict_type(q)
    if strict is not None and not counting and "typed-candidates" not in off and not every:
        # a question that needs a number, an amount or a year is answered only by a
        # sentence that gives one as quoted (a journal's entry after its dated
        # heading), when any does (the evidence check counted those)
        typed = [c for c in cands if gives(strict, f"{c.lead} {c.text}", q)]
        if typed and len(typed) < len(cands) and chose == RANKED:
            chose = "typed-candidates"
        cands = typed or cands
    if chose != TWO_FACTS and (expected_type(q) is None or counting):
        # each selector in order (kb.rag.rules), the first that gives candidates wins
        selectors: list[tuple[str, Callable[[], list[Candidate]]]] = [
            # the steps of a procedure a how-to question's best sentence is one of
            # ("How do I make the dal?" over "1. Fry the cumin seeds ..."), before the
            # section the question names (the note's "Red lentil dal")
            ("steps", lambda: step_candidates(q, verifier.passages, every_of())),
            # the rows of a table that hold what a question for several things picks
            # ("Which subscriptions are on the Amex?": both Amex rows), or counts, or
            # that a question not for one thing picks ("What do I take in the morning?")
            ("rows", lambda: row_candidates(q, verifier.passages, every_of())),
            # one value asked of a section that labels it ("What is Miso's vet
            # called?" over "## Vet" / "Vet: Parkside Veterinary …" / the visits)
            ("record-one", lambda: record_candidates(q, verifier.passages, cands)),
            ("section", lambda: section_candidates(q, verifier.passages, cands)),
            # the list a lead-in names ("What are the follow-ups?" over "Follow-ups:")
            ("list", lambda: list_candidates(q, verifier.passages, cands)),
            # the lines a key names ("What is the risk?" over "Risk: ...")
            ("record", lambda: record_candidates(q, verifier.passages, cands)),
            # the task items a question about tasks asks for ("What is left to do?")
            ("tasks", lambda: task_candidates(q, cands)),
        ]
        applies = {
            "steps": asks_steps(q),
            "rows": asks_rows(q),
            "record-one": asks_one(q),
            "section": assessed.answerability.section,
        }
        inside: list[Candidate] = []
        for rule, select in selectors:
            if rule in off or not applies.get(rule, True):
                continue
            inside = select()
            if inside:
                chose = rule
                break
        # several things asked of a section that lists them ("What books did I read
        # in 2026?"): its list, not the prose after it; to count them ("How many
        # books …?"), one line per item
        if inside and (counting or asks_several(q)):
            kept = [c for c in inside if c.item or (not counting and listed(c))]
            inside = kept or inside
        if inside:
            # a list's items are short, and each is part of the answer ("What are
            # the ingredients?" over seven); prose sentences are long
            items = chose == "steps" or all(listed(c) for c in inside)
            cap = STEP_QUOTES if items else SECTION_QUOTES
            cands, most = inside, max(most, min(len(inside), cap))
            every = True

    def messages(cs: Sequence[Any]) -> list[dict[str, str]]:
        user = p.quote_template.format(candidates=candidates_block(cs), question=q)
        system = {"role": "system", "content": p.quote_system}
        return [system, {"role": "user", "content": user}]

    kept = list(cands)
    budget = min(llm.max_tokens, quote_budget(len(cands)))
    while kept and gen.count_prompt_tokens(messages(kept)) + budget > gen.n_ctx:
        kept.pop()
    if not kept:
        raise ContextOverflowError(
            f"no candidate sentence fits the {gen.n_ctx}-token window next to the "
            "question; raise --ctx or lower --max-tokens"
        )
    msgs = messages(kept)
    built = BuiltPrompt(
        msgs, hits, Truncation(), gen.count_prompt_tokens(msgs), f"{p.version}-quote", kept
    )
    gbnf = quote_grammar(kept, p.refusal_phrase, most, every=every)
    return built, gbnf, verifier, chose, unanswered


def every_candidate(
    pipe: AskPipeline, q: str, verifier: Verifier, assessed: Assessed
) -> list[Candidate]:
    """Every sentence of the passages as a candidate, best first (a procedure's later
    steps, or a table's other rows, may rank past the candidates' limit)."""
    return rank_candidates(
        q,
        verifier.passages,
        pipe.embed,
        10_000,
        doc_freq=pipe.doc_freq,
        qvec=assessed.qvec,
        off=pipe.settings.answer.rules_off,
    )


def expanded(tokens: Iterator[str], expander: LabelExpander, labels: list[str]) -> Iterator[str]:
    """The answer text for the model's streamed candidate numbers (quote mode); what
    the model wrote is appended to ``labels``."""
    try:
        for piece in tokens:
            labels.append(piece)
            yield expander.feed(piece)
        yield expander.finish()
    finally:
        close = getattr(tokens, "close", None)
        if close is not None:
            close()
