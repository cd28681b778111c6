"""The websocket's rendering of the error table (memoria/admission/problems.py): error frames."""

from __future__ import annotations

from typing import Any

from explorer import frames
from explorer.frames import ErrorCode
from memoria.admission.problems import problem_of


def is_expected(error: BaseException) -> bool:
    """Whether the client is told about it in its own words (error_frame): no stack trace in the log for these."""
    return problem_of(error) is not None


def error_frame(error: Exception, *, retrieval_id: str | None = None) -> dict[str, Any]:
    """The error frame for an exception, with the REST answer's code and fields (its `detail` is `message`)."""
    found = problem_of(error)
    if found is None:
        return frames.error(ErrorCode.INTERNAL, "The retrieval failed unexpectedly.", retrieval_id=retrieval_id)
    body = found.body(message_key="message")
    return frames.error(body.pop("code"), body.pop("message"), retrieval_id=retrieval_id, **body)
