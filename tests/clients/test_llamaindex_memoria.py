"""clients/llamaindex-memoria pip-installed (with llama-index-core from PyPI) into a scratch venv and run there
against a real daphne: facts and episodes come back as scored TextNodes with their provenance and validity, sync
and async alike, the ids kept out of what an LLM reads; `valid_at` leaves out the ended fact; a group the token may
not see is refused as NotFound."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.conftest import Memory
from tests.clients.framework_venv import framework_python, run_script

pytestmark = pytest.mark.django_db(transaction=True)
SCRIPT = Path(__file__).with_name("llamaindex_script.py")


def relations(found: list[dict]) -> set[str]:
    return {item["metadata"]["name"] for item in found}


def test_retriever_against_daphne(memory: Memory) -> None:
    python, costs = framework_python("llamaindex-memoria")
    print("llamaindex-memoria venv", costs)
    seen = run_script(python, SCRIPT, memory.url, memory.token, memory.group, memory.hidden)

    assert seen["module"].startswith(str(python.parent.parent)) and seen["is_retriever"]
    hits = seen["sync"]
    assert hits and all(hit["class"] == "NodeWithScore" and hit["node"] == "TextNode" for hit in hits)
    assert all(hit["id"] == hit["metadata"]["id"] and hit["score"] == hit["metadata"]["score"] for hit in hits)
    assert all(hit["metadata"]["group"] == memory.group for hit in hits)
    facts = [hit for hit in hits if hit["metadata"]["kind"] == "fact"]
    episodes = [hit for hit in hits if hit["metadata"]["kind"] == "episode"]
    assert facts and episodes and hits.index(facts[-1]) < hits.index(episodes[0])  # facts first

    g = memory.group
    by_relation = {fact["metadata"]["name"]: fact for fact in facts}  # offline extraction: one fact per relation
    tallinn = by_relation["live_in"]
    assert "Maren lives in Tallinn" in tallinn["text"]
    assert tallinn["metadata"]["episode_ids"] == [f"{g}-c1", f"{g}-c3"]
    assert tallinn["metadata"]["valid_at"] == "2024-03-01T10:00:00Z"
    assert tallinn["metadata"]["invalid_at"] == "2024-04-03T00:00:00Z"
    assert "invalid_at: 2024-04-03T00:00:00Z" in tallinn["llm_text"]  # the LLM is told the fact ended
    assert g not in tallinn["llm_text"] and "episode_ids" not in tallinn["llm_text"]  # ids stay out of the prompt
    riga = by_relation["move_to"]
    assert "Maren moved to Riga" in riga["text"]
    assert riga["metadata"]["episode_ids"] == [f"{g}-c4"] and riga["metadata"]["invalid_at"] is None

    moved = next(hit for hit in episodes if hit["id"] == f"{g}-c4")
    assert moved["text"] == "Liv: Maren moved to Riga last week." and moved["metadata"]["episode_ids"] == [f"{g}-c4"]

    assert seen["async"] == hits

    in_may = seen["in_may"]
    assert {hit["metadata"]["kind"] for hit in in_may} == {"fact"}
    assert "move_to" in relations(in_may) and "live_in" not in relations(in_may)

    for refused in (seen["hidden"], seen["hidden_async"]):
        assert refused is not None and refused["class"] == "NotFound" and refused["status"] == 404
        assert "Oslo" not in refused["detail"]
    assert seen["k0"] == "k must be between 1 and 100, not 0"
