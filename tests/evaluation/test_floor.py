"""The cosine relevance floor, cross-validated on two questions worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from memoria.evaluation.crossval import fold_indexes
from memoria.evaluation.dense import DenseIndex
from memoria.evaluation.floor import FLOORS, Ranked, floor_choose, nonsense_best, ranked, recall_at_floor

# q1: its two answers at similarity 0.6 and 0.2, a wrong item between; q2: its answer second, at 0.45.
Q1 = Ranked(similarities=(0.6, 0.4, 0.2), hits=(True, False, True), relevant=2)
Q2 = Ranked(similarities=(0.5, 0.45), hits=(False, True), relevant=1)


def test_recall_at_floor_drops_what_is_not_above_it() -> None:
    assert [recall_at_floor(Q1, k=3, floor=floor) for floor in (0.0, 0.1, 0.3, 0.6)] == [1.0, 1.0, 0.5, 0.0]
    assert recall_at_floor(Q1, k=1, floor=0.0) == 0.5
    assert [recall_at_floor(Q2, k=3, floor=floor) for floor in (0.4, 0.45, 0.5)] == [1.0, 0.0, 0.0]


def test_floor_choose_by_hand() -> None:
    """Held out q1, the floor is chosen on q2: 0.5 loses its answer, 0.3, 0.1 and 0.0 keep it, and the highest of
    those is 0.3, which keeps half of q1's answers. Held out q2, chosen on q1: only 0.1 and 0.0 keep both answers,
    so 0.1, which keeps q2's. Held-out recall (0.5, 1.0) against (1, 1) without a floor: loss −0.25; resampled
    means of (−0.5, 0) are −0.5, −0.25, 0 with P = 1/4, 1/2, 1/4, so the interval is [−0.5, 0]."""
    found = floor_choose([Q1, Q2], k=3, nonsense={"zzqqxxyy": 0.25}, floors=(0.0, 0.1, 0.3, 0.5), folds=2)
    held = [fold[0] for fold in fold_indexes(2, folds=2)]  # the question each fold holds out
    expected = {0: ("0.30", 0.5), 1: ("0.10", 1.0)}
    assert [(fold.chosen, fold.test) for fold in found.validation.folds] == [expected[q] for q in held]
    assert sorted(found.floors()) == [0.1, 0.3]
    assert (found.loss.mean, found.loss.low, found.loss.high) == (-0.25, -0.5, 0.0)
    assert found.empty_for(0.3) == ["zzqqxxyy"] and found.empty_for(0.1) == []


def test_floors_listed_highest_first() -> None:
    assert FLOORS[0] > FLOORS[-1] == 0.0 and list(FLOORS) == sorted(FLOORS, reverse=True)


def test_dense_index_gives_similarities_and_nonsense_best() -> None:
    index = DenseIndex(["a", "b"], np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert index.scored([1.0, 1.0], 2) == [
        ("a", pytest.approx(0.7071, abs=1e-4)),
        ("b", pytest.approx(0.7071, abs=1e-4)),
    ]
    assert index.rank([0.0, 2.0], 1) == ["b"]
    best = nonsense_best(index, [[1.0, 1.0], [3.0, 0.0]], ["halfway", "on a"])
    assert best == {"halfway": pytest.approx(0.7071, abs=1e-4), "on a": pytest.approx(1.0)}
    question = ranked(index, [0.0, 1.0], frozenset({"b"}), 2)
    assert question.hits == (True, False) and question.relevant == 1 and question.similarities[0] == pytest.approx(1.0)
