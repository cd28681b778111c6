"""Recall@k on hand-made rankings: distinct items, partial evidence, short lists, and the table's averages."""

from __future__ import annotations

import pytest

from memoria.errors import InvalidInput
from memoria.evaluation.recall import RecallTable, distinct, parse_ks, recall_at


def test_distinct_keeps_first_occurrences_in_order() -> None:
    assert distinct(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


@pytest.mark.parametrize(
    ("retrieved", "relevant", "k", "expected"),
    [
        (["a", "b", "c"], {"a"}, 1, 1.0),
        (["a", "b", "c"], {"c"}, 2, 0.0),
        (["a", "b", "c"], {"c"}, 3, 1.0),
        (["a", "b", "c", "d"], {"b", "d"}, 2, 0.5),
        (["a", "b", "c", "d"], {"b", "d", "x"}, 4, 2 / 3),
        (["a"], {"a", "b"}, 20, 0.5),  # a list shorter than k is not padded
        ([], {"a"}, 5, 0.0),
        (["a", "a", "a", "b"], {"b"}, 2, 1.0),  # a repeated item takes one place
        (["a", "b"], ["b", "b"], 2, 1.0),  # relevant items count once
    ],
)
def test_recall_at(retrieved: list[str], relevant: set[str], k: int, expected: float) -> None:
    assert recall_at(retrieved, relevant, k) == pytest.approx(expected)


def test_recall_needs_relevant_items_and_a_positive_k() -> None:
    with pytest.raises(ValueError, match="at least one relevant"):
        recall_at(["a"], set(), 5)
    with pytest.raises(ValueError, match="k=0"):
        recall_at(["a"], {"a"}, 0)


def test_parse_ks() -> None:
    assert parse_ks("5,10,20") == (5, 10, 20)
    assert parse_ks(" 20, 5 ,5,10") == (5, 10, 20)
    assert parse_ks("2") == (2,)
    for bad in ("", "5,,10", "5,x", "-1", "2.5"):
        with pytest.raises(InvalidInput, match="comma-separated whole numbers"):
            parse_ks(bad)
    for bad in ("0", "5,101"):
        with pytest.raises(InvalidInput, match=r"in \[1, 100\]"):
            parse_ks(bad)


def test_table_means_per_label_set() -> None:
    table = RecallTable(ks=(1, 2), methods=("m", "n"))
    table.record(key="q1", label="x", method="m", retrieved=["a", "b"], relevant={"b"}, seconds=0.010)
    table.record(key="q1", label="x", method="n", retrieved=["b"], relevant={"b"}, seconds=0.030)
    table.record(key="q2", label="y", method="m", retrieved=["a", "c"], relevant={"a", "c"}, seconds=0.020)
    table.record(key="q2", label="y", method="n", retrieved=[], relevant={"a", "c"}, seconds=0.040)
    assert table.count({"x"}) == 1 and table.count({"x", "y"}) == 2 and table.count({"z"}) == 0
    assert table.mean_recall("m", {"x"}, 1) == 0.0
    assert table.mean_recall("m", {"x"}, 2) == 1.0
    assert table.mean_recall("m", {"x", "y"}, 1) == pytest.approx((0.0 + 0.5) / 2)
    assert table.mean_recall("m", {"x", "y"}, 2) == pytest.approx(1.0)
    assert table.mean_recall("n", {"x", "y"}, 2) == pytest.approx(0.5)
    assert table.mean_recall("m", {"z"}, 1) is None
    assert table.mean_retrieved("m") == 2.0 and table.mean_retrieved("n") == 0.5
    latency = table.latency("n")
    assert latency["questions"] == 2
    assert latency["total_s"] == pytest.approx(0.070)
    assert latency["p50_ms"] == pytest.approx(35.0)
    assert latency["p95_ms"] == pytest.approx(40.0)


def test_table_refuses_an_unknown_method() -> None:
    table = RecallTable(ks=(1,), methods=("m",))
    with pytest.raises(ValueError, match="'other' is not one of m"):
        table.record(key="q", label="x", method="other", retrieved=[], relevant={"a"}, seconds=0.0)
