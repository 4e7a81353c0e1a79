"""Golden set format v1: loading YAML and JSONL, validation messages, round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.golden import GoldenQuery, load_golden
from kb.errors import GoldenError
from tests.conftest import FIXTURES

GOOD = """\
schema_version: 1
corpus: corpus/
queries:
  - id: q1
    question: "In what country is Normandy located?"
    answerable: true
    category: factual
    difficulty: easy
    tags: [wiki, history]
    supports:
      - path: wiki/Normans.md
        heading: "Normans > Etymology"
        snippet: "a region in France"
        page: 3
        lines: [10, 20]
        seconds: [12.0, 30.5]
        grade: 2
        date: 2020-01-01
    support_groups: [[0]]
    answer:
      any_of: ["France"]
      must_contain: []
      forbidden: ["Germany"]
    conflict_rule: cite_newer
    pending: false
    owner: someone
  - id: q2
    question: "What is not here?"
    answerable: false
    category: unanswerable
"""


def write(tmp_path: Path, text: str, name: str = "g.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_yaml_all_fields(tmp_path: Path) -> None:
    g = load_golden(write(tmp_path, GOOD))
    assert g.schema_version == 1 and g.corpus == "corpus/" and g.format == "yaml"
    assert g.corpus_dir == (tmp_path / "corpus").resolve()
    q1, q2 = g.queries
    s = q1.supports[0]
    assert (s.path, s.heading, s.snippet, s.page) == (
        "wiki/Normans.md",
        "Normans > Etymology",
        "a region in France",
        3,
    )
    assert s.lines == (10, 20) and s.seconds == (12.0, 30.5) and s.grade == 2
    assert set(s.extra) == {"date"}  # unknown fields are kept
    assert q1.support_groups == ((0,),) and q1.answer is not None
    assert q1.answer.any_of == ("France",) and q1.answer.forbidden == ("Germany",)
    assert q1.conflict_rule == "cite_newer" and q1.extra == {"owner": "someone"}
    assert q1.tags == ("wiki", "history") and q1.difficulty == "easy"
    assert not q2.answerable and q2.supports == () and q2.groups() == ()
    assert len(g.sha256) == 64


def test_round_trip_through_dict(tmp_path: Path) -> None:
    for q in load_golden(write(tmp_path, GOOD)).queries:
        again = GoldenQuery.from_dict(json.loads(json.dumps(q.to_dict(), default=str)))
        assert again.to_dict() == json.loads(json.dumps(q.to_dict(), default=str))


def test_groups_default_to_one_group_of_all_supports(tmp_path: Path) -> None:
    text = GOOD.replace("    support_groups: [[0]]\n", "")
    q = load_golden(write(tmp_path, text)).queries[0]
    assert q.support_groups is None and q.groups() == ((0,),)


def test_jsonl(tmp_path: Path) -> None:
    lines = [
        {
            "id": "a",
            "question": "Q a?",
            "answerable": True,
            "supports": [{"path": "x.md", "snippet": "s"}],
        },
        {"id": 7, "question": "Q b?", "answerable": False},
    ]
    p = write(tmp_path, "\n".join(json.dumps(x) for x in lines) + "\n\n", "g.jsonl")
    g = load_golden(p)
    assert [q.id for q in g.queries] == ["a", "7"] and g.format == "jsonl" and g.corpus is None


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("schema_version: 1", "schema_version: 2", "schema_version 2 is newer"),
        ("schema_version: 1", "schema_version: one", "schema_version: expected an integer"),
        ("  - id: q2", "  - id: q1", "query 'q1': id: duplicate id"),
        ("answerable: false", "answerable: maybe", "query 'q2': answerable: expected true"),
        ("        grade: 2", "        grade: 0", "query 'q1': supports[0].grade"),
        ("        page: 3", "        page: -1", "query 'q1': supports[0].page"),
        ("        lines: [10, 20]", "        lines: [20, 10]", "supports[0].lines"),
        ("        seconds: [12.0, 30.5]", "        seconds: [1]", "supports[0].seconds"),
        ("support_groups: [[0]]", "support_groups: [[0], [3]]", "support_groups: index 3"),
        ("support_groups: [[0]]", "support_groups: [[]]", "support_groups: expected a list"),
        ("conflict_rule: cite_newer", "conflict_rule: newest", "conflict_rule: 'newest'"),
        ("      - path: wiki/Normans.md", "      - path: /abs/Normans.md", "must be relative"),
        ("      - path: wiki/Normans.md", "      - path: wiki\\\\Normans.md", "use '/'"),
        ('    question: "What is not here?"', '    question: ""', "query 'q2': question"),
        ("    tags: [wiki, history]", "    tags: {a: 1}", "query 'q1': tags"),
        ('      forbidden: ["Germany"]', "      forbidden: 3", "answer.forbidden"),
    ],
)
def test_validation_names_file_line_query_and_field(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert old in GOOD
    p = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(GoldenError) as e:
        load_golden(p)
    msg = str(e.value)
    assert expected in msg
    assert msg.startswith(str(p))


def test_yaml_error_line_points_at_the_field(tmp_path: Path) -> None:
    p = write(tmp_path, GOOD.replace("        grade: 2", "        grade: x"))
    with pytest.raises(GoldenError) as e:
        load_golden(p)
    # supports start on line 10 of GOOD; the message gives the line of the 'supports' key
    assert str(e.value).startswith(f"{p}:10: query 'q1': supports[0].grade")


def test_unanswerable_with_supports_is_an_error(tmp_path: Path) -> None:
    text = GOOD + "    supports:\n      - path: a.md\n"
    with pytest.raises(GoldenError, match="query 'q2': supports: an unanswerable query"):
        load_golden(write(tmp_path, text))


def test_jsonl_errors_give_the_line(tmp_path: Path) -> None:
    p = write(tmp_path, '{"id": "a", "question": "x?"}\n{"id": "b"}\n', "g.jsonl")
    with pytest.raises(GoldenError, match=r"g\.jsonl:2: query 'b': question: missing"):
        load_golden(p)
    p = write(tmp_path, '{"id": "a", "question": "x?"}\n{"id": "a", "question": "y?"}\n', "g.jsonl")
    with pytest.raises(GoldenError, match=r"g\.jsonl:2: query 'a': id: duplicate id .*line 1"):
        load_golden(p)
    p = write(tmp_path, '{"id": "a", "question": "x?"}\n{nope\n', "g.jsonl")
    with pytest.raises(GoldenError, match=r"g\.jsonl:2: invalid JSON"):
        load_golden(p)


def test_other_file_problems(tmp_path: Path) -> None:
    with pytest.raises(GoldenError, match=r"golden set .*missing\.yaml is missing; name a"):
        load_golden(tmp_path / "missing.yaml")
    with pytest.raises(GoldenError, match="unknown golden set format"):
        load_golden(write(tmp_path, "x", "g.txt"))
    with pytest.raises(GoldenError, match="invalid YAML"):
        load_golden(write(tmp_path, "queries: [\n"))
    with pytest.raises(GoldenError, match="queries: missing"):
        load_golden(write(tmp_path, "schema_version: 1\n"))


def test_the_demo_and_squad_golden_sets_load() -> None:
    g = load_golden(FIXTURES / "golden" / "demo.yaml")
    assert len(g.queries) >= 20
    cats = {q.category for q in g.queries}
    assert {"factual", "multi_hop", "unanswerable", "pdf", "audio"} <= cats
    assert g.corpus_dir == (FIXTURES / "demo").resolve()
    from tests.conftest import SQUAD

    if (SQUAD / "golden.yaml").is_file():
        s = load_golden(SQUAD / "golden.yaml")
        assert len(s.queries) == 460
        assert sum(not q.answerable for q in s.queries) == 160
