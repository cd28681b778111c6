"""Engine errors reach HTTP clients with the status that tells them what to do next."""

from __future__ import annotations

import logging

import pytest

from memoria.admission.problems import FINAL_CONFLICT_NOTE
from memoria.api.errors import exception_handler
from memoria.curation.errors import StaleEdit
from memoria.graph.embedded import EmbeddedServer
from memoria.graph.retry import PERMANENT
from memoria.ingest.communities import CommunityConflict
from memoria.ingest.persist import PlanConflict
from tests.graph.test_retry import LOGGER, outcomes
from tests.retrieval.test_activation import load


@pytest.mark.parametrize("error", [PlanConflict("episode 'e1' was stored meanwhile"), CommunityConflict("kept moving")])
def test_write_conflicts_answer_409_with_a_retry_hint(error: Exception) -> None:
    response = exception_handler(error, {})

    assert response is not None
    assert response.status_code == 409
    assert response.data == {"detail": str(error), "code": "conflict", "retry_after": 1}
    assert response.headers["Retry-After"] == "1"


def test_a_stale_edit_answers_409_without_a_retry_hint() -> None:
    """Sent again unchanged it fails the same way: the caller must read the item first."""
    error = StaleEdit("edge 'f1' changed since you read it")
    response = exception_handler(error, {})

    assert response is not None and response.status_code == 409
    assert response.data == {"detail": f"{error} ({FINAL_CONFLICT_NOTE})", "code": "conflict"}
    assert "Retry-After" not in response.headers


# A seed whose edges the activation engine sorts by transfer energy: thousands of rows for the in-heap ORDER BY.
HUB_EDGES = 4000


def test_a_retrieval_over_the_heap_budget_answers_422_query_too_large_after_one_try(
    heap_limited_graph_server: EmbeddedServer, client_for, caplog: pytest.LogCaptureFixture
) -> None:
    """The real refusal of a real server (arcadedb.queryMaxHeapRAM), not an outage: no retry, no 503."""
    group = "hub"  # on a server of its own, removed with it (deleting the hub would meet the budget too)
    spokes = [f"n{index}" for index in range(HUB_EDGES)]
    load(group, ["hub", *spokes], [("hub", spoke, 0.9, []) for spoke in spokes])
    caplog.set_level(logging.INFO, logger=LOGGER)

    body = {"group": group, "seeds": [{"id": f"{group}-hub", "score": 1.0}]}
    response = client_for("viewer", [group]).post("/api/retrieval/activation", body, format="json")

    assert response.status_code == 422, response.json()
    problem = response.json()
    assert problem["code"] == "query_too_large" and problem["too_large"] == "ORDER BY", problem
    assert "ORDER BY" in problem["detail"] and "Retry-After" not in response
    assert outcomes(caplog, "activation read") == [(1, PERMANENT)]
