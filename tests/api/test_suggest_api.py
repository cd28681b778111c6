"""GET /api/search/suggest in-process: same-named entities told apart, the shape the boxes read, precise 400s."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.graph import driver
from tests.search.suggest_memory import SAME_NAME, store_suggest_memory


@pytest.fixture(scope="module")
def memory(graph_server: object) -> Iterator[tuple[str, dict[str, str]]]:
    group = "api-suggest-memory"
    ids = store_suggest_memory(group)
    yield group, ids
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def test_same_named_entities_come_with_kind_date_snippet_and_id(client_for, memory) -> None:
    group, ids = memory
    wanted = {"q": "expedite request Nordbalt", "group": group}
    response = client_for("viewer", [group]).get("/api/search/suggest", wanted)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["group"] == group and answer["query"] == "expedite request Nordbalt"
    twins = {item["id"]: item for item in answer["suggestions"] if item["name"] == SAME_NAME}
    assert set(twins) == {ids["first"], ids["second"]}
    assert twins[ids["first"]] == {
        "id": ids["first"],
        "name": SAME_NAME,
        "kind": "AgentAction",
        "date": "2025-02-03",  # its first fact's
        "snippet": "Asked Nordbalt to pull 300 bolt kits forward.",
        "same_name": True,
    }
    assert twins[ids["second"]]["date"] == "2025-06-20"
    others = [item for item in answer["suggestions"] if item["name"] != SAME_NAME]
    assert others and not any(item["same_name"] for item in others)
    assert {item["kind"] for item in others} <= {"DataSource", "Entity"}


def test_limit_and_a_half_typed_word(client_for, memory) -> None:
    group, _ = memory
    client = client_for("viewer", [group])
    answer = client.get("/api/search/suggest", {"q": "Nordbalt", "group": group, "limit": 1}).json()
    assert len(answer["suggestions"]) == 1
    typed = client.get("/api/search/suggest", {"q": "  Warehouse Ly ", "group": group}).json()
    assert typed["query"] == "Warehouse Ly" and typed["suggestions"][0]["name"] == "Warehouse Lyon"
    assert client.get("/api/search/suggest", {"q": "   ", "group": group}).json()["suggestions"] == []


def names(client, group: str, text: str) -> list[str]:
    answer = client.get("/api/search/suggest", {"q": text, "group": group}).json()
    return [item["name"] for item in answer["suggestions"]]


def test_typed_letters_narrow_to_names_and_nonsense_finds_nothing(client_for, memory) -> None:
    """Before (issue 32): "Lyo" and "supp" listed whatever their embeddings landed near, and nonsense got eight
    confident suggestions. Now names holding words that start with the typed ones come first, whole words before
    prefixes, then names starting with the text; below the relevance floor nothing is listed."""
    group, _ = memory
    client = client_for("viewer", [group])
    for typed in ("Ly", "Lyo"):
        assert names(client, group, typed)[:2] == ["Lyons cycle count log", "Warehouse Lyon"], typed
    for typed in ("Lyon", "lyon "):  # the whole word before a word it starts
        assert names(client, group, typed)[:2] == ["Warehouse Lyon", "Lyons cycle count log"], typed
    assert names(client, group, "wareh ly")[0] == "Warehouse Lyon"
    assert names(client, group, "Nordb")[0] == "Nordbalt Metals ASN feed"  # starts with the text
    assert set(names(client, group, "Nordb")[1:3]) == {SAME_NAME}
    assert "Prefers service level 97% over lower holding cost" not in names(client, group, "supp")
    assert names(client, group, "distribution centre") == ["Warehouse Lyon"]  # a summary's words, by BM25
    assert names(client, group, "zzqxv") == []
    assert names(client, group, "qwv plmk") == []


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"q": ""}, "q: String should have at least 1 character"),
        ({"q": "x" * 201}, "q: String should have at most 200 characters"),
        ({"q": "x", "limit": "0"}, "limit: Input should be greater than or equal to 1"),
        ({"q": "x", "limit": "many"}, "limit: Input should be a valid integer, unable to parse string as an integer"),
        ({"q": "x", "scope": "facts"}, "body: unknown field(s) scope"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client_for, memory, params: dict, problem: str) -> None:
    group, _ = memory
    response = client_for("viewer", [group]).get("/api/search/suggest", {"group": group, **params})
    assert response.status_code == 400 and problem in response.json()["errors"], response.json()


def test_a_group_not_given_is_not_found(client_for, memory) -> None:
    group, _ = memory
    assert client_for("viewer", []).get("/api/search/suggest", {"q": "x", "group": group}).status_code == 404
    assert client_for("viewer", [group]).get("/api/search/suggest", {"q": "x", "group": "no such"}).status_code == 400
