"""The one mapping from engine errors to MCP tool errors, as memoria/api/errors.py is the one to HTTP answers.

A tool error's text is a JSON object with the REST API's `code` and `detail` (and `errors`, `retry_after`
where REST has them), so an agent reads the same problem whichever face it used. A group the caller may not
see is `not_found`, exactly like a missing one: nothing tells the two apart.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from memoria.accounts.roles import RoleRequired
from memoria.admission.throttles import RateLimited
from memoria.errors import (
    GraphUnavailable,
    GroupNotFound,
    InvalidInput,
    LlmInvalidAnswer,
    LlmUnavailable,
    MemoriaError,
    ProjectionLoading,
    WriteConflict,
)
from memoria.mcp.auth import NotAuthenticated

HANDLED: tuple[type[Exception], ...] = (MemoriaError, RateLimited)


def problem(error: Exception) -> dict[str, Any]:
    """The JSON problem of an error the engine raises on purpose (HANDLED)."""
    if isinstance(error, RateLimited):
        return error.problem()
    if isinstance(error, InvalidInput):
        return {"code": "invalid", "detail": str(error), "errors": error.problems}
    if isinstance(error, NotAuthenticated):
        return {"code": "not_authenticated", "detail": str(error)}
    if isinstance(error, RoleRequired):
        return {"code": "permission_denied", "detail": str(error)}
    if isinstance(error, GroupNotFound):
        return {"code": "not_found", "detail": str(error)}
    if isinstance(error, WriteConflict):
        return {"code": "conflict", "detail": str(error), "retry_after": error.retry_after}
    if isinstance(error, ProjectionLoading):
        return {"code": "projection_loading", "detail": str(error), "retry_after": 5}
    if isinstance(error, GraphUnavailable):
        return {"code": "graph_unavailable", "detail": "The graph server is unavailable; try again shortly."}
    if isinstance(error, LlmUnavailable):
        code = "llm_invalid_answer" if isinstance(error, LlmInvalidAnswer) else "llm_unavailable"
        return {"code": code, "detail": str(error)}
    return {"code": "error", "detail": str(error)}


def tool_error(error: Exception) -> ToolError:
    """A ToolError whose text is the error's JSON problem (the SDK sends it as an `is_error` result)."""
    return ToolError(json.dumps(problem(error), ensure_ascii=False))
