"""retrievers_run: every method answers every question once, timed, in the table's method order."""

from __future__ import annotations

import pytest

from memoria.evaluation.recall import RecallTable
from memoria.evaluation.runner import Question, retrievers_run

QUESTIONS = [
    Question("q1", "apple pie", "fruit", frozenset({"d1"})),
    Question("q2", "pear tart", "fruit", frozenset({"d2", "d3"})),
    Question("q3", "bread", "grain", frozenset({"d4"})),
]
DOCUMENTS = {"d1": "apple pie recipe", "d2": "pear tart", "d3": "tart pastry", "d4": "rye bread"}


def word_overlap(text: str) -> list[str]:
    """A tiny real retriever: documents sharing a word with the question, most shared words first."""
    words = set(text.split())
    scored = sorted(DOCUMENTS, key=lambda doc: (-len(words & set(DOCUMENTS[doc].split())), doc))
    return [doc for doc in scored if words & set(DOCUMENTS[doc].split())]


def test_every_method_answers_every_question() -> None:
    asked: list[tuple[str, str]] = []

    def first_only(text: str) -> list[str]:
        asked.append(("first", text))
        return word_overlap(text)[:1]

    def overlap(text: str) -> list[str]:
        asked.append(("overlap", text))
        return word_overlap(text)

    table = RecallTable(ks=(1, 2), methods=("overlap", "first"))
    seen: list[str] = []
    retrievers_run(
        table,
        questions=QUESTIONS,
        retrievers={"first": first_only, "overlap": overlap},
        progress=lambda question: seen.append(question.key),
    )
    assert seen == ["q1", "q2", "q3"]
    assert asked[:2] == [("overlap", "apple pie"), ("first", "apple pie")]
    assert len(table.scores) == 6
    assert table.mean_recall("overlap", {"fruit"}, 1) == pytest.approx((1.0 + 0.5) / 2)
    assert table.mean_recall("overlap", {"fruit"}, 2) == pytest.approx(1.0)
    assert table.mean_recall("first", {"fruit"}, 2) == pytest.approx((1.0 + 0.5) / 2)
    assert table.mean_recall("first", {"grain"}, 1) == 1.0
    assert all(score.seconds >= 0 for score in table.scores)


def test_a_method_without_retriever_is_refused_before_any_question() -> None:
    table = RecallTable(ks=(1,), methods=("a", "b"))
    with pytest.raises(ValueError, match="no retriever for b"):
        retrievers_run(table, questions=QUESTIONS, retrievers={"a": word_overlap})
    assert table.scores == []
