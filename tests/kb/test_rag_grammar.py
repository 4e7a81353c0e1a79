"""The citation grammar: its text, llama.cpp accepts it, and real output conforms."""

from __future__ import annotations

import re

import pytest

from kb.backends.generator import Generator, make_generator
from kb.config import LlmSettings
from kb.rag.citations import parse_citations
from kb.rag.grammar import MAX_SENTENCE_CHARS, MAX_SENTENCES, citation_grammar
from kb.rag.record import is_refusal


def language(
    k: int, sentences: int = MAX_SENTENCES, chars: int = MAX_SENTENCE_CHARS
) -> re.Pattern[str]:
    """The grammar's language as a regex (an independent oracle for the tests)."""
    num = "|".join(str(n) for n in range(k, 0, -1))
    cites = rf"\[#(?:{num})\](?: ?\[#(?:{num})\]){{0,3}}"
    first = r"[^\[\]#`\n\r\t .!?]"
    prose = r"(?:[^\[\]#`\n\r.!?]|[.!?][^\[\]#`\n\r\t .!?])"
    sentence = rf"{first}{prose}{{0,{chars - 1}}}(?: ?{cites}[.!?]|[.!?] ?{cites})"
    return re.compile(
        rf"(?:[nN]ot in context\.?"
        rf"|{sentence}(?: {sentence}){{0,{sentences - 1}}})"
    )


def test_alternation_covers_exactly_1_to_k() -> None:
    g = citation_grammar(3, "not in context")
    num = next(line for line in g.splitlines() if line.startswith("num ::="))
    assert num == 'num ::= "1" | "2" | "3"'
    assert 'refusal ::= ("not in context" | "Not in context") "."?' in g
    with pytest.raises(ValueError):
        citation_grammar(0, "not in context")


def test_refusal_phrase_is_escaped() -> None:
    g = citation_grammar(1, 'say "none" \\ here')
    refusal = next(line for line in g.splitlines() if line.startswith("refusal ::="))
    assert '"say \\"none\\" \\\\ here"' in refusal, refusal


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 5, 12])
def test_llama_cpp_accepts_the_grammar(k: int) -> None:
    from llama_cpp import LlamaGrammar

    g = LlamaGrammar.from_string(citation_grammar(k, 'Not in "context"'), verbose=False)
    assert g is not None


@pytest.fixture(scope="module")
def gen() -> Generator:
    return make_generator(LlmSettings(n_ctx=2048))


CONTEXT = (
    "[#1] (notes/bread.md › Sourdough · lines 3–9)\n"
    "The bulk fermentation takes around five hours at 24 °C.\n\n"
    "[#2] (notes/garden.md › Tomatoes · lines 1–4)\n"
    "Tomatoes need at least six hours of direct sun a day.\n\n"
    "[#3] (notes/bikes.md › Chains · lines 10–12)\n"
    "Clean and oil the bicycle chain every 300 kilometres."
)
SYSTEM = (
    "You answer questions using only the numbered context passages. End every sentence "
    "with the number of the passage it comes from, written like [#1]. If the passages do "
    "not contain the answer, reply exactly: not in context"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "How long does the bulk fermentation take?",
        "How much sun do tomatoes need?",
        "What is the capital of Peru?",  # not in the context
    ],
)
def test_real_model_output_conforms_and_cites_validly(gen: Generator, question: str) -> None:
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Context:\n{CONTEXT}\n\nQuestion: {question}\nAnswer:"},
    ]
    # at most 2 sentences of at most 120 characters: even at one character per token the
    # grammar must end the answer within 2 * (120 + 4 citations * 4 + 1) < 300 tokens
    grammar = citation_grammar(3, "not in context", max_sentences=2, max_sentence_chars=120)
    text = "".join(gen.stream(messages, max_tokens=300, grammar=grammar))
    assert language(3, sentences=2, chars=120).fullmatch(text), text
    cites = parse_citations(text, 3)
    if is_refusal(text, "not in context"):
        assert cites == []
    else:
        assert cites and all(c.valid for c in cites)
