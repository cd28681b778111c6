"""The error table rendered by the three faces: each error answers the same code, fields and retry advice over
REST, the websocket and MCP, and only REST adds its status and Retry-After header."""

from __future__ import annotations

import json

import pytest

from explorer.errors import error_frame, is_expected
from memoria.accounts.roles import Role, RoleRequired
from memoria.admission.problems import FINAL_CONFLICT_NOTE, GRAPH_UNAVAILABLE_DETAIL, problem_of
from memoria.admission.throttles import RateLimited
from memoria.api.errors import problem as rest_problem
from memoria.errors import (
    GraphUnavailable,
    GroupNotFound,
    InvalidInput,
    LlmInvalidAnswer,
    LlmUnavailable,
    NeedsAJob,
    NotAuthenticated,
    ProjectionLoading,
    QueryTooLarge,
    WriteConflict,
)
from memoria.mcp.errors import tool_error


class FinalConflict(WriteConflict):
    retry_after = None


# error, status, code, the fields beside detail and code (retry_after where the caller may retry), header
CASES = [
    (
        RateLimited(scope="search", requests=3, period_seconds=60, wait=12.2),
        429,
        "throttled",
        {"scope": "search", "limit": {"requests": 3, "period_seconds": 60}, "retry_after": 13},
        "13",
    ),
    (ProjectionLoading("the projection of 'g' is loading"), 503, "projection_loading", {"retry_after": 5}, "5"),
    (GraphUnavailable("the graph server refused the connection"), 503, "graph_unavailable", {"retry_after": 5}, "5"),
    (
        NeedsAJob("communities", group="g", size=900, limit=500, what="the group holds"),
        413,
        "use_a_job",
        {"job": "/api/groups/g/jobs/communities"},
        None,
    ),
    (
        QueryTooLarge("ORDER BY", setting="arcadedb.queryMaxHeapRAM"),
        422,
        "query_too_large",
        {"too_large": "ORDER BY"},
        None,
    ),
    (LlmInvalidAnswer("not JSON"), 502, "llm_invalid_answer", {}, None),
    (LlmUnavailable("no LLM is configured"), 503, "llm_unavailable", {}, None),
    (InvalidInput(["a: bad", "b: worse"]), 400, "invalid", {"errors": ["a: bad", "b: worse"]}, None),
    (WriteConflict("writers kept changing it"), 409, "conflict", {"retry_after": 1}, "1"),
    (FinalConflict("the version you read is gone"), 409, "conflict", {}, None),  # no retry_after at all
    (NotAuthenticated("the token is no longer valid"), 401, "not_authenticated", {}, None),
    (RoleRequired(Role.CURATOR), 403, "permission_denied", {}, None),
    (GroupNotFound("no such group"), 404, "not_found", {}, None),
]


@pytest.mark.parametrize(("error", "status", "code", "fields", "header"), CASES, ids=[case[2] for case in CASES])
def test_every_face_renders_the_same_problem(
    error: Exception, status: int, code: str, fields: dict, header: str | None
) -> None:
    found = problem_of(error)
    assert found is not None and found.code == code and found.status == status
    detail = GRAPH_UNAVAILABLE_DETAIL if code == "graph_unavailable" else found.detail
    reason = {"reason": str(error)} if code == "graph_unavailable" else {}
    expected = {"detail": detail, "code": code, **reason, **fields}

    rest_status, body, headers = rest_problem(error)
    assert (rest_status, body) == (status, expected)
    assert headers.get("Retry-After") == header

    frame = error_frame(error, retrieval_id="r")
    assert frame == {"type": "error", "message": detail, "code": code, **reason, **fields, "retrieval_id": "r"}
    assert is_expected(error)

    tool = json.loads(str(tool_error(error)))
    assert tool == expected


def test_only_a_final_conflict_says_a_retry_cannot_succeed() -> None:
    """Both answer `conflict`: the message is what tells an agent not to send the same request again."""
    final = problem_of(FinalConflict("the version you read is gone"))
    passing = problem_of(WriteConflict("writers kept changing it"))
    assert final is not None and passing is not None
    assert final.detail == f"the version you read is gone ({FINAL_CONFLICT_NOTE})" and final.retry_after is None
    assert FINAL_CONFLICT_NOTE not in passing.detail and passing.retry_after == 1


def test_an_error_the_table_does_not_know_is_no_problem_of_its_own() -> None:
    surprise = RuntimeError("boom")
    assert problem_of(surprise) is None and rest_problem(surprise) is None and not is_expected(surprise)
    assert error_frame(surprise)["code"] == "internal"
