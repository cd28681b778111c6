"""Rerankers: RRF's worked numbers, MMR's diversity, true hop distance, mention counts, the optional cross-encoder."""

from __future__ import annotations

import math

import pytest

from memoria.errors import InvalidInput
from memoria.search import rerankers
from memoria.search.rerankers import by_mentions, by_node_distance, mmr, rrf
from tests.search.memory import node_id


def test_rrf_uses_rank_constant_one() -> None:
    # a: 1/1 + 1/2 = 1.5; b: 1/2 + 1/1 = 1.5; c: 1/3; d: 1/3 + 1/1; e: 1/4
    fused = rrf([["a", "b", "c"], ["b", "a", "d", "e"], ["d"]])
    assert dict(fused) == pytest.approx({"a": 1.5, "b": 1.5, "c": 1 / 3, "d": 1 / 3 + 1.0, "e": 1 / 4})
    assert [item for item, _ in fused] == ["a", "b", "d", "c", "e"]  # ties keep the order first seen
    assert rrf([["x"]]) == [("x", 1.0)]
    assert rrf([]) == []


def unit(*values: float) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


def test_mmr_prefers_a_different_second_result() -> None:
    query = [1.0, 0.0, 0.0]
    vectors = {
        "best": unit(0.9, 0.1, 0.0),  # relevance 0.994
        "twin": unit(0.9, 0.12, 0.0),  # as relevant, but nearly the same as best
        "other": unit(0.6, 0.0, 0.8),  # less relevant (0.6), and different
    }
    ranked = mmr(query, vectors, mmr_lambda=0.5)
    assert [item for item, _ in ranked] == ["best", "other", "twin"]
    assert ranked[0][1] == pytest.approx(0.5 * 0.9 / math.hypot(0.9, 0.1))  # nothing taken yet: λ·relevance
    twin_best = sum(a * b for a, b in zip(vectors["twin"], vectors["best"], strict=True))
    other_best = sum(a * b for a, b in zip(vectors["other"], vectors["best"], strict=True))
    assert ranked[1][1] == pytest.approx(0.5 * 0.6 - 0.5 * other_best)
    assert ranked[2][1] == pytest.approx(0.5 * vectors["twin"][0] - 0.5 * max(twin_best, vectors["twin"][0] * 0.6))
    # λ = 1 is pure relevance
    assert [item for item, _ in mmr(query, vectors, mmr_lambda=1.0)] == ["best", "twin", "other"]
    assert mmr(query, {}, mmr_lambda=0.5) == []


def test_ordering_by_distance_and_by_mentions_keeps_ties_in_the_fused_order() -> None:
    ranked = by_node_distance(
        ["far", "near", "lost", "also_near"], {"far": 3, "near": 1, "lost": math.inf, "also_near": 1}
    )
    assert ranked == [("near", 0.5), ("also_near", 0.5), ("far", 0.25), ("lost", 0.0)]
    assert by_mentions(["a", "b", "c"], {"b": 2, "c": 2}) == [("b", 2.0), ("c", 2.0), ("a", 0.0)]


def test_node_distances_are_hops_from_the_center(searched: str) -> None:
    nodes = [node_id(searched, key) for key in ("rotterdam", "lyon", "nordbalt")]
    distances = rerankers.node_distances(center=node_id(searched, "alice"), nodes=nodes, group=searched)
    assert distances == {nodes[0]: 3.0, nodes[1]: 1.0, nodes[2]: math.inf}


def test_the_cross_encoder_is_unavailable_without_a_model(settings) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = ""
    with pytest.raises(InvalidInput, match=r"facts\.reranker: cross_encoder is unavailable here: set MEMORIA_CROSS"):
        rerankers.cross_encoder_model(where="facts.reranker")
    settings.MEMORIA_CROSS_ENCODER_MODEL = "/nonexistent/model"
    with pytest.raises(InvalidInput, match="is not a folder"):
        rerankers.cross_encoder_model()


class FakeCrossEncoder:
    """Judges relevance by shared words, as a stand-in for a real model."""

    def predict(self, pairs: list[tuple[str, str]], show_progress_bar: bool = False) -> list[float]:
        return [len(set(query.lower().split()) & set(text.lower().split())) for query, text in pairs]


def test_cross_encoder_ranks_by_the_model_s_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rerankers, "cross_encoder_model", lambda **_: FakeCrossEncoder())
    ranked = rerankers.cross_encoder_rank(
        query="red apples", texts={"a": "green pears", "b": "red apples", "c": "red cars"}
    )
    assert ranked == [("b", 2.0), ("c", 1.0), ("a", 0.0)]
