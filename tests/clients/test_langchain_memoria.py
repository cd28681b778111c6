"""clients/langchain-memoria pip-installed (with langchain-core from PyPI) into a scratch venv and run there against
a real daphne: facts and episodes come back as Documents with their provenance and validity, sync and async alike;
`valid_at` leaves out the ended fact; a group the token may not see is refused as NotFound."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.conftest import Memory
from tests.clients.framework_venv import framework_python, run_script

pytestmark = pytest.mark.django_db(transaction=True)
SCRIPT = Path(__file__).with_name("langchain_script.py")


def relations(found: list[dict]) -> set[str]:
    return {item["metadata"]["name"] for item in found}


def test_retriever_against_daphne(memory: Memory) -> None:
    python, costs = framework_python("langchain-memoria")
    print("langchain-memoria venv", costs)
    seen = run_script(python, SCRIPT, memory.url, memory.token, memory.group, memory.hidden)

    assert seen["module"].startswith(str(python.parent.parent)) and seen["is_retriever"]
    documents = seen["sync"]
    assert documents and all(d["class"] == "Document" and d["metadata"]["group"] == memory.group for d in documents)
    assert all(d["id"] == d["metadata"]["id"] for d in documents)
    facts = [d for d in documents if d["metadata"]["kind"] == "fact"]
    episodes = [d for d in documents if d["metadata"]["kind"] == "episode"]
    assert facts and episodes and documents.index(facts[-1]) < documents.index(episodes[0])  # facts first

    g = memory.group
    by_relation = {fact["metadata"]["name"]: fact for fact in facts}  # offline extraction: one fact per relation
    tallinn = by_relation["live_in"]
    assert "Maren lives in Tallinn" in tallinn["text"]
    assert tallinn["metadata"]["episode_ids"] == [f"{g}-c1", f"{g}-c3"]  # said twice: both are its sources
    assert tallinn["metadata"]["valid_at"] == "2024-03-01T10:00:00Z"
    assert tallinn["metadata"]["invalid_at"] == "2024-04-03T00:00:00Z"  # "last week", seen from 10 April
    riga = by_relation["move_to"]
    assert "Maren moved to Riga" in riga["text"]
    assert riga["metadata"]["episode_ids"] == [f"{g}-c4"] and riga["metadata"]["invalid_at"] is None
    assert all(isinstance(d["metadata"]["score"], float) for d in documents)

    moved = next(d for d in episodes if d["id"] == f"{g}-c4")
    assert moved["text"] == "Liv: Maren moved to Riga last week." and moved["metadata"]["episode_ids"] == [f"{g}-c4"]

    assert seen["async"] == documents  # the same search, off the event loop

    in_may = seen["in_may"]
    assert {d["metadata"]["kind"] for d in in_may} == {"fact"}
    assert "move_to" in relations(in_may) and "live_in" not in relations(in_may)  # the ended fact is left out

    for refused in (seen["hidden"], seen["hidden_async"]):
        assert refused is not None and refused["class"] == "NotFound" and refused["status"] == 404
        assert "Oslo" not in refused["detail"]  # nothing of the other group shows
    assert seen["k0"] == "ValidationError"
