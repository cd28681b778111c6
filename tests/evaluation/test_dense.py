"""The dense baseline's ranking on hand-made vectors, and with the real embedding model."""

from __future__ import annotations

import numpy as np
import pytest

from memoria.embeddings import embedder
from memoria.evaluation.dense import DenseIndex, dense_retriever


def test_ranks_by_cosine_whatever_the_lengths() -> None:
    index = DenseIndex(["a", "b", "c"], np.array([[1.0, 0.0], [10.0, 10.0], [0.0, 3.0]]))
    assert index.rank([1.0, 0.1], 3) == ["a", "b", "c"]
    assert index.rank([0.1, 5.0], 2) == ["c", "b"]
    assert index.rank([1.0, 1.0], 1) == ["b"]
    assert index.rank([-1.0, 0.0], 3) == ["c", "b", "a"]  # cosines 0, -0.707, -1


def test_equal_scores_keep_the_items_order_and_zero_vectors_score_zero() -> None:
    index = DenseIndex(["z", "y", "x", "w"], np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]))
    assert index.rank([1.0, 0.0], 4) == ["y", "x", "z", "w"]
    assert DenseIndex([], np.zeros((0, 2))).rank([1.0, 0.0], 5) == []


def test_ids_and_vectors_must_match() -> None:
    with pytest.raises(ValueError, match="2 ids for 1 vectors"):
        DenseIndex(["a", "b"], np.array([[1.0, 0.0]]))


def test_with_the_memory_model() -> None:
    model = embedder()
    texts = {
        "t1": "Liv adopted a grey cat called Pixel.",
        "t2": "Oren repaired the harmonium his grandmother left him.",
        "t3": "The lighthouse museum opens at nine on Sundays.",
    }
    index = DenseIndex.build(ids=list(texts), texts=list(texts.values()), embed=model.embed)
    assert len(index) == 3
    retrieve = dense_retriever(index, embed=model.embed, limit=2)
    assert retrieve("Which musical instrument was fixed?")[0] == "t2"
    assert retrieve("When can I visit the lighthouse museum?")[0] == "t3"
    assert retrieve(texts["t1"])[0] == "t1"
    assert len(retrieve("anything")) == 2
