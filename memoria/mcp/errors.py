"""MCP's rendering of the error table (memoria/admission/problems.py): a tool error whose text is the problem.

A tool error's text is a JSON object with the REST API's `code`, `detail` and fields (`errors`, `retry_after`,
`too_large`, `job`, …), so an agent reads the same problem whichever face it used. A group the caller may not
see is `not_found`, exactly like a missing one: nothing tells the two apart.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from memoria.admission.problems import problem_of
from memoria.errors import MemoriaError

# Every error the engine raises on purpose; one the table does not know answers `error` with its own message.
HANDLED: tuple[type[Exception], ...] = (MemoriaError,)


def problem(error: Exception) -> dict[str, Any]:
    """The JSON problem of an error the engine raises on purpose (HANDLED)."""
    found = problem_of(error)
    if found is None:
        return {"code": "error", "detail": str(error)}
    return found.body()


def tool_error(error: Exception) -> ToolError:
    """A ToolError whose text is the error's JSON problem (the SDK sends it as an `is_error` result)."""
    return ToolError(json.dumps(problem(error), ensure_ascii=False))
