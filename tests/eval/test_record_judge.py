"""`kb eval record` loop (driven through scripted input) and the LLM judge (scripted)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from eval.golden import load_golden
from eval.judge import GRAMMAR, Judge, parse_score
from eval.metrics import compute_table
from eval.record import append_query, distinctive_sentence, next_id, record_loop
from tests.eval.builders import answer, check, hit, query, result, sup

HITS = [
    hit(
        "notes/heron.md",
        "Short. The one error that needs a person is ZX-4417 in the app. Tiny.",
        "Heron > Errors",
        cid=1,
        doc_type="md",
    ),
    hit(
        "papers/bees.pdf",
        "Inspect the new colony once a week for two months.",
        cid=2,
        doc_type="pdf",
        pages=(1, 1),
    ),
    hit("audio/pilot.wav", "forty scanners arrived", cid=3, doc_type="audio", seconds=(2.0, 9.5)),
]


def scripted(lines: list[str]) -> tuple:  # type: ignore[type-arg]
    it: Iterator[str] = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str | None:
        out.append(prompt)
        return next(it, None)

    return read, out.append, out


def test_record_appends_entries_with_anchors(tmp_path: Path) -> None:
    g = tmp_path / "new.yaml"
    read, write, out = scripted(
        [
            "Which error needs a person?",
            "1",
            "ZX-4417",  # answerable, hit 1, answer phrase
            "What about bees and audio?",
            "9",
            "2 3",
            "",  # 9 is rejected and re-asked
            "Unknown thing?",
            "u",
            "Skip me?",
            "s",
            "",  # empty question: stop
        ]
    )
    n = record_loop(g, lambda q: HITS, read, write, lambda p: p, None, "../corpus")
    assert n == 3
    gs = load_golden(g)
    assert gs.corpus == "../corpus"
    q1, q2, q3 = gs.queries
    assert [q.id for q in gs.queries] == ["rec-0001", "rec-0002", "rec-0003"]
    s = q1.supports[0]
    assert s.path == "notes/heron.md" and s.heading == "Heron > Errors"
    # the distinctive sentence: the longest sentence of 30-200 chars
    assert s.snippet == "The one error that needs a person is ZX-4417 in the app."
    assert q1.answer is not None and q1.answer.any_of == ("ZX-4417",)
    pdf, wav = q2.supports
    assert pdf.page == 1 and pdf.snippet == "Inspect the new colony once a week for two months."
    assert wav.seconds == (2.0, 9.5) and wav.snippet is None  # audio: time range, no text
    assert not q3.answerable and q3.supports == ()
    assert any("enter numbers between 1 and 3" in line for line in out)


def test_append_keeps_comments_and_jsonl(tmp_path: Path) -> None:
    g = tmp_path / "g.yaml"
    g.write_text(
        "# my golden set\nschema_version: 1\nqueries:\n  - id: rec-0004\n"
        "    question: Old?\n    answerable: false\n"
    )
    append_query(g, {"id": next_id({"rec-0004"}), "question": "New?", "answerable": False})
    text = g.read_text()
    assert text.startswith("# my golden set") and "rec-0005" in text
    assert [q.id for q in load_golden(g).queries] == ["rec-0004", "rec-0005"]
    # a file that cannot take an appended item is rewritten from its parsed form
    g2 = tmp_path / "flow.yaml"
    g2.write_text("schema_version: 1\nqueries: []\n")
    append_query(g2, {"id": "a", "question": "A?"})
    assert [q.id for q in load_golden(g2).queries] == ["a"]
    j = tmp_path / "g.jsonl"
    append_query(j, {"id": "a", "question": "A?"})
    append_query(j, {"id": "b", "question": "B?"})
    assert [q.id for q in load_golden(j).queries] == ["a", "b"]


def test_distinctive_sentence_fallbacks() -> None:
    short = hit("a.md", "no sentence punctuation here at all", cid=1)
    assert distinctive_sentence(None, short) == "no sentence punctuation here at all"
    long = hit("a.md", "word " * 60, cid=2)
    s = distinctive_sentence(None, long)
    assert len(s) <= 120 and s.startswith("word word")


class ScriptedLLM:
    """Returns scripted outputs in order and records the prompts."""

    def __init__(self, outputs: list[str]) -> None:
        self.outputs, self.prompts = list(outputs), []  # type: ignore[var-annotated]

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.prompts.append(messages[-1]["content"])
        return self.outputs.pop(0)


def test_judge_scores_spot_checks_and_metrics() -> None:
    c = [hit("a.md", "Paris is the capital.", cid=1)]
    q = query("q", [sup("a.md")], answer=check(any_of=["Paris"]))
    r1 = result(q, c, 0, answer("Paris [#1]", c, [1]))
    r2 = result(q, c, 1, answer("Lyon [#1]", c, [1]))
    refused = result(q, c, 2, answer("not in context", c, refused=True))
    # r1: groundedness 5, correctness 4, spot-check (first judged) groundedness_alt 2
    # r2: groundedness 1, correctness "?" (unparsable -> None); no spot check (every 5th)
    llm = ScriptedLLM(["5", "4", "Score: 2", "1", "?"])
    judge = Judge(llm, "hash123", spot_every=5)
    for r in (r1, r2, refused):
        assert r.answer is not None
        r.answer.judge = judge(r)
    assert refused.answer is not None and refused.answer.judge is None  # refusals not judged
    j1 = r1.answer.judge  # type: ignore[union-attr]
    assert (j1["groundedness"], j1["correctness"], j1["groundedness_alt"]) == (5, 4, 2)
    assert j1["model_hash"] == "hash123" and j1["prompt_version"] == "judge-v1"
    assert "Paris is the capital." in j1["inputs"]["groundedness"]
    assert r2.answer.judge["correctness"] is None  # type: ignore[union-attr]
    t = compute_table([r1, r2, refused], 5)
    data = t.to_json()
    # judge metrics are reported apart, not among the gateable metrics
    assert "judge_groundedness" not in data["overall"]["metrics"]
    jm = data["judge"]["metrics"]
    assert jm["judge_groundedness"] == 3.0  # (5 + 1) / 2
    assert jm["judge_correctness"] == 4.0  # only r1 parsed
    assert jm["judge_disagreement_rate"] == 1.0  # |5 - 2| >= 2 on the one spot check


def test_parse_score_and_grammar() -> None:
    assert parse_score("4") == 4 and parse_score("I'd say 3/5") == 3
    assert parse_score("nine") is None and parse_score("9") is None
    assert GRAMMAR == "root ::= [0-5]"
