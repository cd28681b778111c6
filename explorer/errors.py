"""The one mapping from engine errors to websocket error frames."""

from __future__ import annotations

from typing import Any

from memoria.errors import GraphUnavailable, GroupNotFound, InvalidInput


def error_frame(error: Exception, *, retrieval_id: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error"}
    if isinstance(error, InvalidInput):
        frame.update(code="invalid", message=str(error), errors=error.problems)
    elif isinstance(error, GroupNotFound):
        frame.update(code="not_found", message=str(error))
    elif isinstance(error, GraphUnavailable):
        frame.update(
            code="graph_unavailable", message="The graph server is unavailable; try again shortly.", reason=str(error)
        )
    else:
        frame.update(code="internal", message="The retrieval failed unexpectedly.")
    if retrieval_id:
        frame["retrieval_id"] = retrieval_id
    return frame
