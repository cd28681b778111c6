"""clients/langgraph-memoria pip-installed (with langgraph from PyPI) into a scratch venv and run there against a
real daphne: items put as episodes of the group, read back, found by Memoria's search within their namespace; what
the REST API cannot do (overwrite, delete, listing) refused with NotImplementedError naming why; a viewer's write
and another group refused with the client's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoria.graph import driver
from tests.clients.conftest import Memory
from tests.clients.framework_venv import framework_python, run_script

pytestmark = pytest.mark.django_db(transaction=True)
SCRIPT = Path(__file__).with_name("langgraph_script.py")


def keys(items: list[dict]) -> list[tuple[tuple[str, ...], str]]:
    return [(tuple(found["namespace"]), found["key"]) for found in items]


def test_store_against_daphne(memory: Memory) -> None:
    python, costs = framework_python("langgraph-memoria")
    print("langgraph-memoria venv", costs)
    g = memory.group
    args = (memory.url, memory.curator_token, memory.token, g, memory.hidden)
    seen = run_script(python, SCRIPT, *args)

    assert seen["module"].startswith(str(python.parent.parent)) and seen["is_store"]
    liv, oren = (g, "users", "liv"), (g, "users", "oren")
    trip = {"text": "Liv plans a sailing trip to Riga in June", "kind": "travel"}
    assert seen["got"]["value"] == trip and (tuple(seen["got"]["namespace"]), seen["got"]["key"]) == (liv, "trip")
    assert seen["got_async"]["value"]["text"] == "Oren prefers green tea over coffee"
    assert seen["missing"] is None
    assert seen["same_again"] is None  # the same value again changes nothing
    assert seen["overwrite"]["class"] == "NotImplementedError" and "immutable" in seen["overwrite"]["message"]
    assert seen["still"]["value"] == trip  # the refused overwrite left the item as it was
    assert seen["delete"]["class"] == "NotImplementedError" and "no delete" in seen["delete"]["message"]

    # Stored as episodes of the group, named by namespace and key, the value as JSON content.
    rows = driver.read(
        "MATCH (e:Episode {group_id: $g}) WHERE e.name STARTS WITH 'langgraph ' RETURN e.name AS name, e.source AS s",
        g=g,
    )
    names = [f'langgraph ["{g}","users","liv","preferences"]', f'langgraph ["{g}","users","liv","trip"]']
    names.append(f'langgraph ["{g}","users","oren","preferences"]')
    assert sorted(row["name"] for row in rows) == sorted(names)
    assert {row["s"] for row in rows} == {"json"}

    users = seen["search_users"]
    assert keys(users)[0] == (liv, "trip") and users[0]["value"] == trip and isinstance(users[0]["score"], float)
    assert set(keys(users)) <= {(liv, "trip"), (liv, "preferences"), (oren, "preferences")}  # never the chat episodes
    assert keys(seen["search_oren"]) == [(oren, "preferences")]
    assert keys(seen["search_filtered"]) == [(liv, "trip")]
    assert keys(seen["search_async"])[0] == (liv, "preferences")
    assert all(found[0] == liv for found in keys(seen["search_async"]))

    assert seen["search_operator"]["class"] == "NotImplementedError"
    assert seen["no_query"]["class"] == "NotImplementedError" and "no listing" in seen["no_query"]["message"]
    assert seen["namespaces"]["class"] == "NotImplementedError" and "list_namespaces" in seen["namespaces"]["message"]
    assert seen["no_group"]["class"] == "ValueError"

    assert seen["viewer_reads"]["value"] == trip
    assert seen["viewer_writes"]["class"] == "NotAllowed" and seen["viewer_writes"]["status"] == 403
    assert seen["hidden_search"]["class"] == "NotFound" and seen["hidden_search"]["status"] == 404
    assert seen["hidden_put"]["class"] == "NotFound" and seen["hidden_put"]["status"] == 404
    assert seen["hidden_get"] is None
