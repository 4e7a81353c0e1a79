"""``kb eval run --resume`` answers the remaining queries with the run's own settings."""

from __future__ import annotations

from kb.cli.eval_run import _LLM_PLACEMENT, _restored
from kb.config import AnswerSettings, LlmSettings, SearchSettings


def test_a_resumed_run_takes_its_snapshot_not_todays_config() -> None:
    today = AnswerSettings(mode="generate", min_answerable=0.2)
    snap = {"mode": "quote", "min_answerable": 0.4, "from_a_future_version": 1}
    back = _restored(today, AnswerSettings, snap)
    assert back.mode == "quote" and back.min_answerable == 0.4  # unknown keys ignored
    # where the model runs stays as configured now; how it samples comes from the run
    llm = _restored(
        LlmSettings(model="/new.gguf", threads=8, max_tokens=64),
        LlmSettings,
        {"model": "/old.gguf", "threads": 2, "max_tokens": 256, "grammar": False},
        skip=_LLM_PLACEMENT,
    )
    assert (llm.model, llm.threads) == ("/new.gguf", 8)
    assert (llm.max_tokens, llm.grammar) == (256, False)
    # an old run without a snapshot keeps today's settings
    assert _restored(SearchSettings(k=7), SearchSettings, None).k == 7


def test_a_run_stored_before_the_sentence_rerank_resumes_without_it() -> None:
    from eval.run import RunOptions

    old = RunOptions.from_json({"k": 10, "search": {"k": 10, "mode": "hybrid"}})
    assert old.search.sentence_weight == 0.0
    new = RunOptions.from_json({"k": 10, "search": {"k": 10, "sentence_weight": 0.3}})
    assert new.search.sentence_weight == 0.3
