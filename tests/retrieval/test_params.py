"""Retrieval parameters: the seed's defaults and clear rejections."""

from __future__ import annotations

import pytest

from memoria.errors import InvalidInput
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.params import ActivationParams, ActivationParamsInput


def test_defaults_are_the_seeds() -> None:
    defaults = ActivationParams(max_depth=5, min_activation=0.005, tag_sim_floor=0.15, max_branches=3)
    assert input_parse(ActivationParamsInput, {}).params() == ActivationParams() == defaults
    assert input_parse(ActivationParamsInput, {"max_depth": 3, "min_activation": 0.01}).params().max_depth == 3


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"max_depth": 0}, "params.max_depth: 0 is outside [1, 10]"),
        ({"max_depth": 2.5}, "params.max_depth: must be a whole number"),
        ({"min_activation": 0}, "params.min_activation: 0 is outside (0, 1]"),
        ({"min_activation": "high"}, "params.min_activation: must be a number"),
        ({"tag_sim_floor": 1.5}, "params.tag_sim_floor: 1.5 is outside [0, 1]"),
        ({"max_branches": True}, "params.max_branches: must be a whole number"),
        ({"depth": 3}, "params: unknown field(s) depth"),
        ([1], "params: must be a JSON object"),
    ],
)
def test_out_of_range_values_are_named(raw: object, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(ActivationParamsInput, raw, where="params")
    assert message in str(caught.value)
