"""POST /api/context: viewers read it, the text form leaves the items out, bad fields are named, other groups 404."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.context.tokens import token_count
from tests.search.memory import node_id, search_memory_group

URL = "/api/context"


@pytest.fixture(scope="module")
def memory(graph_server: object) -> Iterator[str]:
    with search_memory_group() as group:
        yield group


def test_a_viewer_gets_the_text_and_items_naming_their_episodes(client_for, memory: str) -> None:
    client = client_for("viewer", [memory])
    response = client.post(URL, {"group": memory, "query": "safety gloves in Lyon", "budget_tokens": 400}, "json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["used_tokens"] == token_count(body["text"]) <= 400
    assert body["text"].startswith("Memory (what holds now):")
    assert all({"kind", "id", "tokens", "line", "episodes"} <= set(item) for item in body["items"])
    assert node_id(memory, "stocks") in {item["id"] for item in body["items"]}

    wanted = {"group": memory, "query": "safety gloves in Lyon", "budget_tokens": 400, "format": "text"}
    text = client.post(URL, wanted, "json")
    assert "items" not in text.json() and text.json()["text"] == body["text"]


def test_bad_fields_are_named(client_for, memory: str) -> None:
    client = client_for("viewer", [memory])
    response = client.post(
        URL, {"group": memory, "query": "", "budget_tokens": 10, "as_of": "later", "colour": 1}, "json"
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    for field in ("query", "budget_tokens", "as_of"):
        assert any(problem.startswith(f"{field}:") for problem in errors), (field, errors)
    assert "body: unknown field(s) colour" in errors


def test_another_groups_memory_is_not_found(client_for, memory: str) -> None:
    client = client_for("viewer", ["elsewhere"])
    response = client.post(URL, {"group": memory, "query": "gloves"}, "json")
    assert response.status_code == 404 and "gloves" not in response.content.decode().lower()


def test_a_scoped_block_holds_only_the_scopes_memories(client_for, group: str) -> None:
    from memoria.admission.episodes import episodes_admit

    said = {
        "alice": "Alice Martin moved to Lyon and works at the Lyon harbour office.",
        "bob": "Bob Keller moved to Lyon and works at the Lyon rail depot.",
    }
    ids = {
        user: episodes_admit(group=group, given={"content": text, "user_id": user}, update_communities=True)[
            "episodes"
        ][0]["episode_id"]
        for user, text in said.items()
    }
    client = client_for("viewer", [group])
    both = client.post(URL, {"group": group, "query": "who works in Lyon", "budget_tokens": 800}, "json").json()
    assert "Bob Keller" in both["text"] and "Alice Martin" in both["text"]
    wanted = {"group": group, "query": "who works in Lyon", "budget_tokens": 800, "user_id": "alice"}
    block = client.post(URL, wanted, "json").json()
    assert "Alice Martin" in block["text"] and "Bob" not in block["text"] and "rail" not in block["text"]
    sources = {episode["id"] for item in block["items"] for episode in item.get("episodes", ())}
    assert sources and sources <= {ids["alice"]}
    refused = client.post(URL, {**wanted, "metadata": {"k": None}}, "json")
    assert refused.status_code == 400 and refused.json()["errors"] == [
        "metadata: k: must be a text, a number or true/false, not NoneType"
    ]
