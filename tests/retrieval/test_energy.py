"""The seed's formulas and worked examples (Activation Energy document, sections 3 and 4)."""

from __future__ import annotations

import math

import pytest

from memoria.retrieval.energy import tag_similarity, transfer_energy


def test_worked_example_with_one_shared_tag() -> None:
    edge = ["inventory_policy", "recommendation", "analysis_dependency"]
    query = ["demand_forecasting", "stockout", "safety_stock", "inventory_policy"]
    similarity = tag_similarity(edge, query, 0.15)
    assert similarity == pytest.approx(0.15 + 0.85 * (1 / 6))
    assert round(similarity, 3) == 0.292


def test_worked_example_without_overlap_keeps_the_floor() -> None:
    assert tag_similarity(["lead_time"], ["stockout", "safety_stock"], 0.15) == 0.15


def test_no_query_tags_means_no_filtering_and_untagged_edges_get_the_floor() -> None:
    assert tag_similarity(["anything"], [], 0.15) == 1.0
    assert tag_similarity([], ["stockout"], 0.15) == 0.15
    assert tag_similarity(["a", "b"], ["a", "b"], 0.15) == 1.0  # full overlap: about 7× the floor


def test_transfer_energy() -> None:
    # T = R · w / √d · tag_sim
    assert transfer_energy(0.8, 0.5, 4, 1.0) == pytest.approx(0.2)
    assert transfer_energy(1.0, 1.0, 9, 0.292) == pytest.approx(0.292 / 3)
    assert transfer_energy(1.0, None, 1, 1.0) == 0.01  # a missing weight reads as 0.01
    assert transfer_energy(0.5, 0.9, 2, 0.5) == pytest.approx(0.5 * 0.9 / math.sqrt(2) * 0.5)
