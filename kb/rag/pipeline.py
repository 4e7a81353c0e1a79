"""AskPipeline: question -> retrieval -> evidence check -> streamed generation ->
verified, cited answer.

``ask`` does the quick, fallible steps in the caller's thread, so their errors
surface as exceptions with their exit codes before any output: empty question
(:class:`UsageError`), KB without chunks (:class:`EmptyStoreError`, from the
retriever), model file (:class:`ModelError`, on first use), question too long
(:class:`ContextOverflowError`). Generation then runs in a worker thread that
feeds an :class:`AnswerStream`.

Refusals without running the model (the generator factory is not even called):

- ``no_hits``: no hit passed the retrieval threshold (:mod:`kb.search.evidence`); its
  sentence margin is waived when a sentence of the hits holds every content word of the
  question (:func:`kb.rag.answerability.says_every_term`: a short question such as
  "How many transport bolts are there?" has a low cosine to the manual page that says
  "remove the three transport bolts");
- ``no_support``: the evidence check (:mod:`kb.rag.answerability`) finds no passage
  sentence that says what the question asks about: ``p(answerable)`` below
  ``[answer] min_answerable``, or (``[answer] require_key_terms``) a number or name of
  the question in no passage. The record's ``answerability`` has the score and names
  the missing words.

Answer modes (``[answer] mode``): ``generate`` numbers the passages ``[#1]..[#k]``
(text only: no file names or locators, so the model cannot copy one) and constrains
the output to cited sentences (:mod:`kb.rag.grammar`); ``quote`` lets the model copy
only candidate passage sentences, each with its citation (:mod:`kb.rag.quote`).

Verification (``[answer] verify``): as each answer sentence completes on the stream
(:class:`kb.rag.sentences.AnswerSplitter`), a verifier thread scores it against its
cited passages (:mod:`kb.rag.verify`) and emits a ``VerdictEvent``; the token path
never waits for it. Passage sentences are embedded once, before the evidence check
(which uses their cosine to the question), and reused by quote ranking and the
verifier.

When generation stops at ``max_tokens`` the answer is trimmed to its last complete
sentence and ``truncated="max_tokens"``; in quote mode its quotes are whole sentences
already, and a list of candidate numbers cut short is marked the same way (the quotes
it would have named are missing). Quote mode's own budget (:func:`quote_budget`) lets
the model name every candidate.

Sources first: once retrieval has found passages worth answering from (the ``no_hits``
rule passed), a :class:`SourcesEvent` with them is made at once, before the evidence
check, the model load and the prompt: it goes to ``on_sources`` when the caller passes
one (``kb ask`` and ``kb serve`` show it while ``ask`` is still running), otherwise it is
the stream's first event. Either way it is delivered once, before any token.

Timings (seconds): ``retrieval_s`` (from the start of ``ask``); ``load_s`` (model
load, 0 when already loaded); ``prompt_s`` (fitting contexts, token counting,
grammar, quote candidates); ``first_token_s`` and ``total_s`` (from the start of
``ask``; ``first_token_s`` is ``None`` without tokens); ``verify_s`` (verifier busy
time).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kb.backends.generator import Generator
from kb.config import Settings
from kb.errors import ContextOverflowError, UsageError
from kb.lang import language
from kb.rag.answerability import (
    Answerability,
    DocFreq,
    assess,
    says_every_term,
    section_named,
)
from kb.rag.citations import CitationParser
from kb.rag.grammar import citation_grammar
from kb.rag.prompt import BuiltPrompt, build_prompt
from kb.rag.quote import (
    LabelExpander,
)
from kb.rag.quote_prompt import QUOTE_MAX_TOKENS as QUOTE_MAX_TOKENS
from kb.rag.quote_prompt import TWO_FACTS, expanded, quote_prompt
from kb.rag.quote_prompt import quote_budget as quote_budget
from kb.rag.record import (
    AnswerRecord,
    CitationEvent,
    DoneEvent,
    SourceRef,
    SourcesEvent,
    TokenEvent,
    is_refusal,
)
from kb.rag.responsive import NO_QUOTE, Responsiveness, no_responsive_quote
from kb.rag.retrieval_gate import has_evidence, nearest_of
from kb.rag.rules import unknown
from kb.rag.sentences import AnswerSplitter
from kb.rag.stored_vectors import known_vectors, reusing_embed
from kb.rag.stream import AnswerStream
from kb.rag.verifier_thread import VerifierThread
from kb.rag.verify import EmbedFn, PassageSentences, SentenceVerdict, Verifier
from kb.search.options import SearchOptions
from kb.types import Hit

ANSWER_MODES = ("quote", "generate")


class RetrieverLike(Protocol):
    """What the pipeline needs from :class:`kb.search.Retriever`."""

    def search(self, query: str, opts: SearchOptions) -> Any: ...


GeneratorFactory = Callable[[], Generator]
_AUTO: Any = object()


def _embed_from(retriever: Any) -> EmbedFn | None:
    """The retriever's embedder as an embed function (loaded on first call), if any."""
    if not hasattr(retriever, "embedder"):
        return None

    def embed(texts: Sequence[str]) -> Any:
        return retriever.embedder.embed_batch(list(texts))

    return embed


def _doc_freq_from(retriever: Any) -> DocFreq | None:
    store = getattr(retriever, "store", None)
    if store is None:
        return None
    from kb.rag.docfreq import doc_freq_of

    return doc_freq_of(store)


class AskPipeline:
    """One retriever, one (lazily loaded) generator, one settings tree.

    ``embed`` (texts -> normalised vectors) and ``doc_freq`` (word -> (rows with it,
    rows)) default to the retriever's embedder and store; pass ``None`` to do without
    (the verifier is then lexical only, and question terms weigh 1 each).
    """

    def __init__(
        self,
        retriever: RetrieverLike,
        generator_or_factory: Generator | GeneratorFactory,
        settings: Settings,
        *,
        embed: EmbedFn | None = _AUTO,
        doc_freq: DocFreq | None = _AUTO,
    ) -> None:
        self.retriever = retriever
        self.settings = settings
        self.embed = _embed_from(retriever) if embed is _AUTO else embed
        # the retriever's own embedder: its store's sentence vectors can stand in for it
        self._reuse_stored = embed is _AUTO and self.embed is not None
        self.doc_freq = _doc_freq_from(retriever) if doc_freq is _AUTO else doc_freq
        self._generator: Generator | None = None
        self._factory: GeneratorFactory | None = None
        if isinstance(generator_or_factory, Generator):
            self._generator = generator_or_factory
        else:
            self._factory = generator_or_factory
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._generator is not None

    def generator(self) -> Generator:
        """The generator, created by the factory on first use (may raise ModelError)."""
        with self._load_lock:
            if self._generator is None:
                assert self._factory is not None
                self._generator = self._factory()
            return self._generator

    def ask(
        self,
        question: str,
        opts: SearchOptions,
        *,
        grammar: bool | None = None,
        mode: str | None = None,
        on_sources: Callable[[SourcesEvent], None] | None = None,
    ) -> AnswerStream:
        """Answer ``question``; ``None`` options use ``[llm] grammar`` / ``[answer] mode``.
        ``on_sources`` receives the :class:`SourcesEvent` as soon as retrieval ends
        (instead of the stream; module docs)."""
        t0 = time.perf_counter()
        q = question.strip()
        if not q:
            raise UsageError("the question is empty; pass the question as one argument")
        a = self.settings.answer
        use_grammar = self.settings.llm.grammar if grammar is None else grammar
        mode = a.mode if mode is None else mode
        if mode not in ANSWER_MODES:
            raise UsageError(f"answer mode {mode!r}: choose quote or generate")
        if bad := unknown(a.rules_off):
            raise UsageError(
                f"[answer] rules_off: unknown rule id {bad[0]!r}; `kb eval rules --list` "
                "lists the rule ids"
            )
        if mode == "quote" and not use_grammar:
            raise UsageError(
                "quote mode needs the grammar (it is what makes the model copy sentences); "
                "use --answer-mode generate with --no-grammar"
            )
        result = self.retriever.search(q, opts)
        hits: list[Hit] = list(result.hits)
        retrieval_s = time.perf_counter() - t0
        base = {"retrieval_s": retrieval_s, "load_s": 0.0, "first_token_s": None}
        if not hits or not has_evidence(
            result,
            opts.min_score,
            lambda: says_every_term(q, hits, self.doc_freq),
            lambda: section_named(q, hits),
        ):
            nearest = nearest_of(result) if hits else None
            return self._refuse(
                q,
                "no_hits",
                base,
                t0,
                use_grammar,
                mode,
                None,
                nearest,
                opts.min_score,
                retrieved=hits,
            )
        sources = SourcesEvent(tuple(hits), retrieval_s, time.perf_counter() - t0)
        first: tuple[SourcesEvent, ...] = (sources,)
        if on_sources is not None:
            on_sources(sources)
            first = ()
        # a German or French question's function words are no content words
        # (kb.lang): the evidence check and quote ranking read it in its language
        with _language_of(q):
            # always measured (no model), recorded, and enforced when min_answerable > 0; the
            # sentence vectors it needs (about 0.1-0.3 s on a CPU) are what quote mode ranks
            # with anyway, so generate mode with the check off skips them (lexical score only)
            embed = self.embed if (mode == "quote" or a.min_answerable > 0) else None
            if embed is not None and self._reuse_stored:
                known = known_vectors(
                    getattr(self.retriever, "store", None),
                    hits,
                    q,
                    getattr(result, "query_vector", None),
                )
                embed = reusing_embed(embed, known)
            assessed = assess(
                q,
                hits,
                embed,
                self.doc_freq,
                a.min_answerable,
                require_keys=a.require_key_terms,
                off=frozenset(a.rules_off),
            )
            checked = assessed.answerability
            if not checked.answerable:
                return self._refuse(
                    q,
                    "no_support",
                    base,
                    t0,
                    use_grammar,
                    mode,
                    checked,
                    first=first,
                    retrieved=hits,
                )
            t_load = time.perf_counter()
            gen = self.generator()
            load_s = time.perf_counter() - t_load
            t_prompt = time.perf_counter()
            verifier: Verifier | None = None
            gbnf: str | None
            selector: str | None = None
            unanswered: str | None = None
            if mode == "quote":
                built, gbnf, verifier, selector, unanswered = quote_prompt(
                    self, gen, q, hits, assessed
                )
                off = [*a.rules_off, *([NO_QUOTE] if selector == TWO_FACTS else [])]
                cands, ps = built.quote_candidates, verifier.passages
                if verdict := no_responsive_quote(q, checked.terms, cands, ps, off):
                    return self._refuse(  # no candidate gives what the question asks
                        q, "not_responsive", base, t0, use_grammar, mode, checked, first=first,
                        retrieved=hits, responsive=verdict, selector=selector,
                    )  # fmt: skip
            else:
                built = build_prompt(
                    gen, self.settings.prompt, q, hits, self.settings.llm.max_tokens
                )
                if not built.contexts:
                    raise ContextOverflowError(
                        f"no context passage fits the {gen.n_ctx}-token window next to the "
                        "question; raise --ctx or lower --max-tokens"
                    )
                gbnf = (
                    citation_grammar(len(built.contexts), self.settings.prompt.refusal_phrase)
                    if use_grammar
                    else None
                )
            if a.verify and verifier is None:
                verifier = self._verifier(built.contexts)
            timings: dict[str, float | None] = {
                "retrieval_s": retrieval_s,
                "load_s": load_s,
                "prompt_s": time.perf_counter() - t_prompt,
            }
            run = _Run(q, built, gbnf, mode, verifier if a.verify else None, checked, t0, timings)
            run.selector = selector
            run.unanswered = unanswered

            def produce(stream: AnswerStream) -> None:
                self._produce(stream, gen, run)

            return AnswerStream.start(produce, first=first)

    # -- building blocks ------------------------------------------------------------------
    def _verifier(
        self,
        contexts: Sequence[Hit],
        vectors: bool | None = None,
        passages: Sequence[PassageSentences] | None = None,
        quoted: bool = False,
    ) -> Verifier:
        a = self.settings.answer
        return Verifier(
            contexts,
            self.embed,
            threshold=a.support_threshold,
            margin=a.suggest_margin,
            vectors=vectors,
            passages=passages,
            quoted=quoted,
            off=a.rules_off,
        )

    def _refuse(
        self,
        q: str,
        reason: str,
        base: dict[str, float | None],
        t0: float,
        use_grammar: bool,
        mode: str,
        checked: Answerability | None,
        nearest: dict[str, Any] | None = None,
        min_score: float | None = None,
        first: Sequence[SourcesEvent] = (),
        retrieved: Sequence[Hit] = (),
        responsive: Responsiveness | None = None,
        selector: str | None = None,
    ) -> AnswerStream:
        return AnswerStream.finished(
            AnswerRecord(
                question=q,
                refused=True,
                refusal_reason=reason,
                timings={**base, "total_s": time.perf_counter() - t0},
                prompt_version=self.settings.prompt.version,
                grammar=use_grammar,
                mode=mode,
                answerability=None if checked is None else checked.to_dict(),
                nearest=nearest,
                min_score=min_score,
                rules_off=list(self.settings.answer.rules_off),
                retrieved=list(retrieved),
                responsive=responsive,
                selector=selector,
            ),
            first,
        )

    def _judge(self, run: _Run, record: AnswerRecord, chosen: list[int] | None) -> None:
        """The responsiveness verdict (:mod:`kb.rag.responsive`) on a written answer;
        ``grounded`` then also needs it to be responsive."""
        if record.refused or not record.text.strip():
            return
        from kb.rag.answerability import question_terms
        from kb.rag.responsive import judge
        from kb.rag.verify import PassageSentences

        cands = run.built.quote_candidates
        if cands is not None and chosen is not None:
            picked = [cands[k - 1] for k in chosen if 1 <= k <= len(cands)]
            texts = [f"{c.lead} {c.text}".strip() for c in picked]
            cited = sorted({c.n for c in picked})
        else:
            texts = [v.text for v in record.sentences] or [record.text]
            cited = [c.n for c in record.citations]
        if run.verifier is not None:
            passages = run.verifier.passages
        else:
            passages = [PassageSentences.of(i, h) for i, h in enumerate(run.built.contexts, 1)]
        by_n = {p.n: p for p in passages}
        terms = run.checked.terms if run.checked is not None else None
        verdict = judge(
            run.question,
            terms if terms is not None else question_terms(run.question, None),
            texts,
            [by_n[n] for n in cited if n in by_n],
            [p for n, p in by_n.items() if n not in cited],
            cut=record.truncated is not None,
        )
        if verdict is None:
            return
        if run.unanswered is not None and verdict.verdict == "responsive":
            # one of two facts asked is in no candidate: the answer gives the other
            verdict = replace(verdict, verdict="partial", reason="fact", unanswered=run.unanswered)
        record.responsive = verdict
        if verdict.verdict != "responsive":
            record.grounded = False

    # -- worker thread --------------------------------------------------------------------
    def _produce(self, stream: AnswerStream, gen: Generator, run: _Run) -> None:
        contexts = run.built.contexts
        parser = CitationParser(len(contexts))
        cands = run.built.quote_candidates
        splitter = AnswerSplitter(cited_only=cands is not None)
        checker = VerifierThread(run.verifier, stream) if run.verifier is not None else None
        pieces: list[str] = []
        first: float | None = None
        error: str | None = None
        interrupted = False
        max_tokens = self.settings.llm.max_tokens
        expander = LabelExpander(cands) if cands is not None else None
        labels: list[str] = []  # what the model wrote in quote mode: candidate numbers
        if cands is not None:
            max_tokens = min(max_tokens, quote_budget(len(cands)))
        try:
            tokens = gen.stream(
                run.built.messages, max_tokens=max_tokens, grammar=run.gbnf, stop=()
            )
            if expander is not None:
                tokens = expanded(tokens, expander, labels)
            try:
                for piece in tokens:
                    if stream.cancelled:
                        interrupted = True
                        break
                    if not piece:
                        continue
                    if first is None:
                        first = time.perf_counter() - run.t0
                    pieces.append(piece)
                    stream.put(TokenEvent(piece))
                    for c in parser.feed(piece):
                        hit = contexts[c.n - 1] if c.valid else None
                        stream.put(CitationEvent(c.n, c.valid, hit))
                    if checker is not None:
                        for s in splitter.feed(piece):
                            checker.submit(s)
                    else:
                        splitter.feed(piece)
            finally:
                close = getattr(tokens, "close", None)
                if close is not None:
                    close()
            parser.finish()
        except Exception as e:  # noqa: BLE001 - recorded, the stream must still end
            error = f"generation failed: {type(e).__name__}: {e}"
        record = AnswerRecord(question=run.question)
        try:
            text = "".join(pieces)
            # in quote mode the sentences are whole whatever the cut, but a cut list of
            # numbers drops the quotes after it ("1 2 3" of a 4-step procedure): marked
            written = "".join(labels) if expander is not None else text
            truncated = not interrupted and error is None and _hit_length(gen, written, max_tokens)
            completed = splitter.completed_end
            tail = splitter.finish() if not interrupted else []
            if truncated and expander is None:
                tail = [s for s in tail if splitter.is_complete(s.text)]
                text = text[: tail[-1].end if tail else completed]
            if checker is not None:
                for s in tail:
                    checker.submit(s)
            verdicts: list[SentenceVerdict] = []
            if checker is not None:
                verdicts = checker.close()
                run.timings["verify_s"] = checker.busy_s
            run.timings.update(first_token_s=first, total_s=time.perf_counter() - run.t0)
            record = self._record(run, text, parser, gen, verdicts)
            record.truncated = "max_tokens" if truncated else None
            if expander is not None:
                record.quote_choice = expander.chosen
            record.selector = run.selector
            record.rules_off = list(self.settings.answer.rules_off)
            self._judge(run, record, expander.chosen if expander is not None else None)
            record.interrupted = interrupted
            record.error = error
        except Exception as e:  # noqa: BLE001
            record.error = error or f"answer record failed: {type(e).__name__}: {e}"
        finally:
            stream.put(DoneEvent(record))

    def _record(
        self,
        run: _Run,
        text: str,
        parser: CitationParser,
        gen: Generator,
        verdicts: list[SentenceVerdict],
    ) -> AnswerRecord:
        built = run.built
        refused = is_refusal(text, self.settings.prompt.refusal_phrase)
        kept = [c for c in parser.citations if c.end <= len(text)]
        sources = _sources(kept, built.contexts)
        invalid = list(dict.fromkeys(c.n for c in kept if not c.valid))
        verified = run.verifier is not None
        all_supported = bool(verdicts) and all(v.verdict == "supported" for v in verdicts)
        cut = built.truncation.to_dict() if built.truncation else None
        if built.quote_candidates is not None and built.uncandidated():
            cut = {"quote_uncandidated_chunk_ids": built.uncandidated()}
        return AnswerRecord(
            question=run.question,
            text=text,
            contexts=list(built.contexts),
            citations=sources,
            invalid_citations=invalid,
            grounded=bool(sources) and not refused and (all_supported or not verified),
            refused=refused,
            refusal_reason="model" if refused else None,
            contexts_cut=cut,
            timings=run.timings,
            model_hash=gen.model_hash,
            model_path=str(gen.model_path),
            prompt_version=built.version,
            grammar=run.gbnf is not None,
            sentences=[] if refused else verdicts,
            answerability=None if run.checked is None else run.checked.to_dict(),
            mode=run.mode,
            verifier=(
                None
                if not verified or run.verifier is None
                else ("embedding+lexical" if run.verifier.embed else "lexical")
            ),
        )


@dataclass
class _Run:
    """What one ask carries from the caller's thread into the worker."""

    question: str
    built: BuiltPrompt
    gbnf: str | None
    mode: str
    verifier: Verifier | None
    checked: Answerability | None
    t0: float
    timings: dict[str, float | None]
    #: quote mode: the selector rule whose candidates the model chose from
    selector: str | None = None
    #: quote mode: the part of a two-fact question no candidate answers
    #: (:mod:`kb.rag.two_facts`)
    unanswered: str | None = None


def _language_of(question: str) -> AbstractContextManager[None]:
    """:func:`kb.rag.lexical.question_in` for a question detected as German or French
    (:func:`kb.lang.detect.question_language`); nothing changes for English or an
    undetected language."""
    from kb.lang.detect import question_language
    from kb.rag.lexical import question_in

    lang = question_language(question)
    # an English question word wins over a foreign guess ("Who recommended Taberna da Rua
    # das Flores?" reads as German by its names' "da", "das")
    english = {w.lower().strip("?,.") for w in question.split()} & _EN_QUESTION_WORDS
    return question_in(lang) if lang in ("de", "fr") and not english else nullcontext()


#: English's question words (:mod:`kb.lang.en`), and the two auxiliaries a yes/no
#: question opens with most ("Is …", "Does …")
_EN_QUESTION_WORDS = language("en").question_words | {"is", "does"}


def _hit_length(gen: Generator, text: str, max_tokens: int) -> bool:
    """Did generation stop because ``max_tokens`` ran out?"""
    reason = getattr(gen, "last_finish_reason", None)
    if reason is not None:
        return reason == "length"
    return bool(text) and gen.count_tokens(text) >= max_tokens


def _sources(citations: Sequence[Any], contexts: Sequence[Hit]) -> list[SourceRef]:
    """Distinct valid citations in order of first appearance, resolved to their hits."""
    seen: dict[int, SourceRef] = {}
    for c in citations:
        if c.valid and c.n not in seen:
            hit = contexts[c.n - 1]
            seen[c.n] = SourceRef(c.n, hit.chunk_id, hit.path, hit.locator.to_dict())
    return list(seen.values())
