"""AskPipeline with a fake retriever and a scripted fake generator (unit tests)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from kb.backends.generator import Generator, Prompt
from kb.config import AnswerSettings, LlmSettings, Settings
from kb.errors import ContextOverflowError, EmptyStoreError, UsageError
from kb.rag import AskPipeline, CitationEvent, DoneEvent, SourcesEvent, TokenEvent
from kb.search.options import SearchOptions
from kb.types import Hit, Locator, Span


def make_hit(i: int, words: int = 10) -> Hit:
    text = " ".join(f"w{i}_{j}" for j in range(words))
    loc = Locator(
        f"notes/doc{i}.md", "md", ("Doc", f"Part {i}"), Span(line_start=i, line_end=i + 3)
    )
    return Hit(chunk_id=100 + i, text=text, locator=loc, score=1.0 / i)


@dataclass
class FakeResult:
    query: str
    hits: list[Hit]
    timings: dict[str, float] = field(default_factory=dict)
    mode: str = "hybrid"


class FakeRetriever:
    def __init__(self, hits: list[Hit], error: Exception | None = None) -> None:
        self.hits, self.error, self.queries = hits, error, []  # type: ignore[var-annotated]

    def search(self, query: str, opts: SearchOptions) -> FakeResult:
        self.queries.append(query)
        if self.error is not None:
            raise self.error
        return FakeResult(query, self.hits[: opts.k])


class ScriptedGenerator(Generator):
    """Yields ``pieces``; one token per whitespace-separated word; optional pause per piece;
    ``finish`` is the stop reason it reports afterwards (``"length"``: max_tokens hit)."""

    def __init__(
        self,
        pieces: Sequence[str],
        n_ctx: int = 2048,
        delay: float = 0.0,
        finish: str | None = None,
    ) -> None:
        self.pieces, self.n_ctx, self.delay = list(pieces), n_ctx, delay
        self.finish = finish  # becomes last_finish_reason once the pieces are out
        self.model_path = Path("/models/fake.gguf")
        self._hash = "f" * 64
        self.calls: list[dict[str, object]] = []
        self.yielded = 0

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def stream(
        self,
        prompt: Prompt,
        *,
        max_tokens: int,
        grammar: str | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        self.calls.append({"prompt": prompt, "max_tokens": max_tokens, "grammar": grammar})
        for p in self.pieces:
            if self.delay:
                time.sleep(self.delay)
            self.yielded += 1
            yield p
        self.last_finish_reason = self.finish


def settings(**llm: object) -> Settings:
    """Generate mode without verification: the pipeline as these tests were written for
    (the verifier and quote mode have their own tests in test_rag_verified.py)."""
    a = AnswerSettings(mode="generate", verify=False, min_answerable=0.0)
    s = replace(Settings(), answer=a)
    return replace(s, llm=replace(LlmSettings(), **llm))  # type: ignore[arg-type]


OPTS = SearchOptions(k=5)


def test_answer_with_sources_and_events_in_order() -> None:
    hits = [make_hit(i) for i in range(1, 6)]
    gen = ScriptedGenerator(["Paris is big [", "#2", "]. It is old [#4][#2]."])
    stream = AskPipeline(FakeRetriever(hits), gen, settings()).ask("Where?", OPTS)
    events = list(stream)
    kinds = [type(e).__name__ for e in events]
    # each citation follows the token that closed it; the third token closes three
    # the retrieved passages first, then each citation after the token that closed it
    assert kinds == ["SourcesEvent"] + ["TokenEvent"] * 3 + ["CitationEvent"] * 3 + ["DoneEvent"]
    cites = [e for e in events if isinstance(e, CitationEvent)]
    assert [(c.n, c.valid, c.hit.chunk_id if c.hit else None) for c in cites] == [
        (2, True, 102),
        (4, True, 104),
        (2, True, 102),
    ]
    rec = stream.result()
    assert rec.text == "Paris is big [#2]. It is old [#4][#2]."
    assert [(c.n, c.chunk_id, c.path) for c in rec.citations] == [
        (2, 102, "notes/doc2.md"),
        (4, 104, "notes/doc4.md"),
    ]
    assert rec.citations[0].locator["lines"] == [2, 5]
    assert rec.grounded and not rec.refused and rec.invalid_citations == []
    assert [h.chunk_id for h in rec.contexts] == [101, 102, 103, 104, 105]
    assert rec.model_hash == "f" * 64 and rec.model_path == "/models/fake.gguf"
    assert rec.prompt_version == "v2" and rec.grammar is True and rec.truncated is None
    t = rec.timings
    assert t["retrieval_s"] is not None and t["first_token_s"] is not None
    assert 0 <= t["retrieval_s"] <= t["first_token_s"] <= t["total_s"]  # type: ignore[operator]
    # the prompt numbers every context, with no file name or locator the model could copy
    # (locators appear only in Sources); the grammar allows 1..5 only
    user = gen.calls[0]["prompt"][1]["content"]  # type: ignore[index]
    assert "[#1] w1_0 w1_1" in user
    assert "notes/doc1.md" not in user and "lines" not in user
    assert "[#5] w5_0" in user and "[#6]" not in user
    assert '"5"' in str(gen.calls[0]["grammar"]) and '"6"' not in str(gen.calls[0]["grammar"])
    d = rec.to_dict()
    assert d["contexts"][0]["n"] == 1 and d["citations"][1]["n"] == 4


def test_no_hits_refuses_without_loading_the_model() -> None:
    calls: list[int] = []

    def factory() -> Generator:
        calls.append(1)
        raise AssertionError("the generator must not be created")

    pipe = AskPipeline(FakeRetriever([]), factory, settings())
    stream = pipe.ask("anything?", OPTS)
    events = list(stream)
    assert len(events) == 1 and isinstance(events[0], DoneEvent)
    rec = stream.result()
    assert rec.refused and rec.refusal_reason == "no_hits" and not rec.grounded
    assert rec.text == "" and rec.contexts == [] and rec.model_hash is None
    assert rec.timings["first_token_s"] is None and rec.nearest is None  # nothing found
    assert calls == [] and not pipe.loaded


def test_factory_called_once_when_needed() -> None:
    made: list[ScriptedGenerator] = []

    def factory() -> Generator:
        made.append(ScriptedGenerator(["Yes [#1]."]))
        return made[-1]

    pipe = AskPipeline(FakeRetriever([make_hit(1)]), factory, settings())
    assert not pipe.loaded
    for _ in range(2):
        assert pipe.ask("q", OPTS).result().grounded
    assert len(made) == 1


@pytest.mark.parametrize("answer", ["not in context", "Not in context.", " NOT IN CONTEXT\n"])
def test_model_refusal_phrase(answer: str) -> None:
    gen = ScriptedGenerator([answer[:4], answer[4:]])
    rec = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings()).ask("q", OPTS).result()
    assert rec.refused and rec.refusal_reason == "model" and not rec.grounded
    assert rec.citations == []


def test_out_of_range_citation_is_invalid_and_never_linked() -> None:
    hits = [make_hit(i) for i in range(1, 6)]
    gen = ScriptedGenerator(["The answer [#9", "9]."])
    stream = AskPipeline(FakeRetriever(hits), gen, settings()).ask("q", OPTS)
    cites = [e for e in stream if isinstance(e, CitationEvent)]
    assert [(c.n, c.valid, c.hit) for c in cites] == [(99, False, None)]
    rec = stream.result()
    assert rec.invalid_citations == [99] and rec.citations == []
    assert not rec.grounded and not rec.refused
    assert rec.to_dict()["invalid_citations"] == [99]


def test_uncited_answer_is_ungrounded() -> None:
    gen = ScriptedGenerator(["Paris, see [1] or (#1) or `[#1]`."])
    rec = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings()).ask("q", OPTS).result()
    assert not rec.grounded and not rec.refused and rec.citations == []


def test_lowest_ranked_dropped_then_last_kept_truncated() -> None:
    # 5 hits of 50 words each; the window leaves room for about 2.5 of them
    hits = [make_hit(i, words=50) for i in range(1, 6)]
    gen = ScriptedGenerator(["ok [#1]."], n_ctx=0)
    s = settings(max_tokens=20)
    fixed = gen.count_prompt_tokens(
        [
            {"role": "system", "content": s.prompt.system},
            {
                "role": "user",
                "content": s.prompt.question_template.format(contexts="", question="q"),
            },
        ]
    )
    gen.n_ctx = fixed + 20 + 2 * 52 + 35  # two whole blocks (~52 tokens) and part of a third
    rec = AskPipeline(FakeRetriever(hits), gen, s).ask("q", OPTS).result()
    assert [h.chunk_id for h in rec.contexts] == [101, 102, 103]
    assert rec.truncated is None  # the answer itself was not cut
    assert rec.contexts_cut is not None
    assert rec.contexts_cut["dropped_chunk_ids"] == [104, 105]
    cut = rec.contexts_cut["cut"]
    assert cut["chunk_id"] == 103 and 0 < cut["kept_chars"] < cut["original_chars"]
    prompt = gen.calls[0]["prompt"]
    assert gen.count_prompt_tokens(prompt) + 20 <= gen.n_ctx  # type: ignore[arg-type]
    user = prompt[1]["content"]  # type: ignore[index]
    assert "w3_0" in user and "w3_49" not in user and "w4_0" not in user and user.count("…") == 1


def test_question_too_long_for_the_window() -> None:
    gen = ScriptedGenerator(["x"], n_ctx=200)
    pipe = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings(max_tokens=50))
    with pytest.raises(ContextOverflowError, match=r"question is 300 tokens.*200-token window"):
        pipe.ask(" ".join(["word"] * 300), OPTS)
    assert gen.calls == []


def test_empty_question_and_empty_store_raise_before_generation() -> None:
    gen = ScriptedGenerator(["x"])
    with pytest.raises(UsageError):
        AskPipeline(FakeRetriever([make_hit(1)]), gen, settings()).ask("  \n", OPTS)
    err = EmptyStoreError("no chunks")
    with pytest.raises(EmptyStoreError):
        AskPipeline(FakeRetriever([], error=err), gen, settings()).ask("q", OPTS)
    assert gen.calls == []


def test_grammar_switch() -> None:
    gen = ScriptedGenerator(["a [#1]."])
    pipe = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings(grammar=True))
    assert pipe.ask("q", OPTS, grammar=False).result().grammar is False
    assert gen.calls[-1]["grammar"] is None
    assert pipe.ask("q", OPTS).result().grammar is True
    assert "root ::=" in str(gen.calls[-1]["grammar"])
    pipe_off = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings(grammar=False))
    assert pipe_off.ask("q", OPTS).result().grammar is False


def test_consumed_from_another_thread() -> None:
    gen = ScriptedGenerator([f"s{i} [#1]. " for i in range(30)], delay=0.001)
    stream = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings()).ask("q", OPTS)
    seen: list[object] = []
    consumer = threading.Thread(target=lambda: seen.extend(stream))
    consumer.start()
    consumer.join(timeout=10)
    assert not consumer.is_alive()
    tokens = "".join(e.text for e in seen if isinstance(e, TokenEvent))
    assert tokens == "".join(gen.pieces)
    assert isinstance(seen[-1], DoneEvent) and seen[-1].record.text == tokens
    assert stream.result() is seen[-1].record
    assert list(stream) == []  # exhausted


def test_cancel_stops_generation_and_keeps_partial_text() -> None:
    gen = ScriptedGenerator([f"w{i} " for i in range(1000)], delay=0.002)
    stream = AskPipeline(FakeRetriever([make_hit(1)]), gen, settings()).ask("q", OPTS)
    assert isinstance(next(stream), SourcesEvent)
    first = next(stream)
    assert isinstance(first, TokenEvent)
    stream.cancel()
    rec = stream.result()
    assert rec.interrupted and rec.error is None
    assert rec.text.startswith("w0 ") and 0 < len(rec.text.split()) < 1000
    assert gen.yielded < 1000


def test_generation_error_is_recorded_and_stream_ends() -> None:
    class Broken(ScriptedGenerator):
        def stream(self, prompt: Prompt, **kw: object) -> Iterator[str]:  # type: ignore[override]
            yield "Partial [#1]"
            raise RuntimeError("decode failed")

    stream = AskPipeline(FakeRetriever([make_hit(1)]), Broken([]), settings()).ask("q", OPTS)
    events = list(stream)
    assert isinstance(events[-1], DoneEvent)
    rec = stream.result()
    assert rec.text == "Partial [#1]" and rec.error and "decode failed" in rec.error
    assert [c.n for c in rec.citations] == [1]


def test_sources_go_to_on_sources_before_the_model_is_loaded() -> None:
    # sources first (issue 55): the retrieved passages reach the caller while ask() is
    # still to check the evidence, load the model and build the prompt
    hits = [make_hit(i) for i in range(1, 4)]
    seen: list[str] = []

    def factory() -> Generator:
        seen.append("model load")
        return ScriptedGenerator(["Paris [#1]."])

    def on_sources(event: SourcesEvent) -> None:
        seen.append("sources")
        assert [h.chunk_id for h in event.hits] == [101, 102, 103]

    stream = AskPipeline(FakeRetriever(hits), factory, settings()).ask(
        "Where?", OPTS, on_sources=on_sources
    )
    assert seen == ["sources", "model load"]
    events = list(stream)
    # delivered once: to on_sources, so not again in the stream
    assert not any(isinstance(e, SourcesEvent) for e in events)
    assert isinstance(events[0], TokenEvent) and isinstance(events[-1], DoneEvent)


def test_sources_event_numbers_the_passages_as_the_answer_cites_them() -> None:
    hits = [make_hit(i) for i in range(1, 4)]
    stream = AskPipeline(FakeRetriever(hits), ScriptedGenerator(["A [#2]."]), settings()).ask(
        "Where?", OPTS
    )
    first = next(stream)
    assert isinstance(first, SourcesEvent)
    d = first.to_dict()
    assert d["event"] == "sources"
    assert [(s["n"], s["chunk_id"], s["path"]) for s in d["sources"]] == [
        (1, 101, "notes/doc1.md"),
        (2, 102, "notes/doc2.md"),
        (3, 103, "notes/doc3.md"),
    ]
    assert d["sources"][1]["locator"]["display"] == "notes/doc2.md › Doc > Part 2 · lines 2–5"
    assert 0 <= d["retrieval_s"] <= d["at_s"]
    rec = stream.result()
    assert rec.citations[0].chunk_id == d["sources"][1]["chunk_id"]


def test_a_refusal_by_the_evidence_check_still_shows_the_sources_first() -> None:
    # the passages were found, they just do not say what is asked: the person saw them
    hits = [make_hit(i) for i in range(1, 3)]
    s = replace(settings(), answer=AnswerSettings(mode="generate", verify=False))
    pipe = AskPipeline(FakeRetriever(hits), ScriptedGenerator(["x"]), s, embed=None)
    events = list(pipe.ask("When did the zeppelin land in Brazil?", OPTS))
    assert [type(e).__name__ for e in events] == ["SourcesEvent", "DoneEvent"]
    assert events[-1].record.refusal_reason == "no_support"  # type: ignore[union-attr]
