"""PPR seeded by the entities a query names (`linked`), through the REST parser and on the real graph server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.errors import InvalidInput
from memoria.ppr.request import PprBody
from memoria.ppr.service import LINKED, UNIFORM, ppr_run
from memoria.projection.cache import ProjectionCache
from memoria.requests.vocabulary import input_parse
from tests.linking.memory import QUESTION, two_hop_group


@pytest.fixture(scope="module")
def two_hop(graph_server: object) -> Iterator[str]:
    with two_hop_group() as group:
        yield group


def test_linked_seeds_are_the_named_entities(two_hop: str) -> None:
    request = input_parse(PprBody, {"group": two_hop, "query": QUESTION, "linked": True, "top_k": 3}).request()
    answer = ppr_run(request, cache=ProjectionCache(), wait=30)
    assert answer.seed_source == LINKED
    assert [seed.id for seed in answer.seeds] == [f"{two_hop}-ada"]
    assert answer.passages[0].id == f"{two_hop}-ep-born"


def test_a_query_naming_nothing_walks_from_everywhere(two_hop: str) -> None:
    request = input_parse(PprBody, {"group": two_hop, "query": "what is the weather", "linked": True}).request()
    assert ppr_run(request, cache=ProjectionCache(), wait=30).seed_source == UNIFORM


@pytest.mark.parametrize(
    "body",
    [
        {"linked": True},
        {"linked": True, "query": "x", "seeds": [{"id": "a"}]},
        {"linked": True, "query": "x", "relation_aware": True},
        {"linked": "yes", "query": "x"},
    ],
)
def test_linked_needs_a_query_alone(body: dict) -> None:
    with pytest.raises(InvalidInput, match="linked"):
        input_parse(PprBody, {"group": "g", **body}).request()
