"""Engine errors reach HTTP clients with the status that tells them what to do next."""

from __future__ import annotations

import pytest

from memoria.api.errors import exception_handler
from memoria.ingest.communities import CommunityConflict
from memoria.ingest.persist import PlanConflict


@pytest.mark.parametrize("error", [PlanConflict("episode 'e1' was stored meanwhile"), CommunityConflict("kept moving")])
def test_write_conflicts_answer_409_with_a_retry_hint(error: Exception) -> None:
    response = exception_handler(error, {})

    assert response is not None
    assert response.status_code == 409
    assert response.data == {"detail": str(error), "code": "conflict"}
    assert response.headers["Retry-After"] == "1"
