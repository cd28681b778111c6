"""Query-side entity linking over a group's projection, read from the real graph server."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from memoria.graph import driver
from memoria.graph.versions import group_version_bump
from memoria.linking.lexicon import Lexicon, group_lexicon
from memoria.projection.cache import ProjectionCache
from tests.linking.memory import QUESTION, store_two_hop, two_hop_group


@pytest.fixture(scope="module")
def two_hop(graph_server: object) -> Iterator[str]:
    with two_hop_group() as group:
        yield group


def lexicon(group: str) -> Lexicon:
    projection, _ = ProjectionCache().get(group, wait=30)
    return group_lexicon(projection)


def linked(group: str, query: str) -> list[str]:
    return [entity.id.removeprefix(f"{group}-") for entity in lexicon(group).link(query)]


def test_a_cased_question_links_its_names_not_its_common_nouns(two_hop: str) -> None:
    # "river" is an entity too, but the question capitalises only its name: only the name seeds.
    found = lexicon(two_hop).link(QUESTION)
    assert [entity.id for entity in found] == [f"{two_hop}-ada"]
    assert found[0].span == "Ada Lindqvist" and found[0].name == "Ada Lindqvist"


def test_a_lower_case_query_links_every_span(two_hop: str) -> None:
    assert set(linked(two_hop, "which river flows through the city of ada lindqvist")) == {"river", "ada"}


def test_aliases_accents_and_possessives_link(two_hop: str) -> None:
    assert linked(two_hop, "Who painted in Vasa?") == ["vaasa"]  # the alias of Vaasa
    assert linked(two_hop, "What is Kyro River's source?") == ["kyro"]


def test_a_span_inside_a_longer_match_is_dropped(two_hop: str) -> None:
    # "Helsinki Cathedral (Finland)" is typed out; "Helsinki Cathedral" inside it is a shorter match.
    assert linked(two_hop, "When was Helsinki Cathedral Finland built?") == ["cathedral2"]


def test_weight_is_the_idf_over_episodes(two_hop: str) -> None:
    # Vaasa is mentioned by two of the six episodes, Ada Lindqvist by one: the rarer name weighs more.
    found = {
        entity.id.removeprefix(f"{two_hop}-"): entity.weight for entity in lexicon(two_hop).link("Ada Lindqvist Vaasa")
    }
    assert found["ada"] == pytest.approx(math.log(7 / 2))
    assert found["vaasa"] == pytest.approx(math.log(7 / 3))


def test_max_share_leaves_out_the_entities_too_many_episodes_mention(two_hop: str) -> None:
    # Of six episodes, Vaasa is in two (a share of 1/3) and Ada Lindqvist in one (1/6).
    def kept(share: float | None) -> set[str]:
        found = lexicon(two_hop).link("Ada Lindqvist Vaasa", max_share=share)
        return {entity.id.removeprefix(f"{two_hop}-") for entity in found}

    assert kept(None) == kept(1.0) == kept(1 / 3) == {"ada", "vaasa"}  # at most the share: kept
    assert kept(0.3) == kept(1 / 6) == {"ada"}
    assert kept(0.1) == set()
    assert lexicon(two_hop).idf_floor(1 / 3) == pytest.approx(math.log(7 / 3))


def test_nothing_named_links_nothing(two_hop: str) -> None:
    assert linked(two_hop, "What is the Weather Like Today?") == []


def test_a_rename_is_seen_on_the_next_version(group: str) -> None:
    store_two_hop(group)
    assert linked(group, "Who is Ada Lindqvist?") == ["ada"]
    driver.write("MATCH (n:Entity {group_id: $group, id: $id}) SET n.name = 'Ada Berg'", group=group, id=f"{group}-ada")
    driver.write_transaction(lambda tx: group_version_bump(tx, group))
    assert linked(group, "Who is Ada Berg?") == ["ada"]
    assert linked(group, "Who is Ada Lindqvist?") == []
