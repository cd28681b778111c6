"""A server stopped in the middle of an import, against real daphne processes: the import's transaction dies with
it (nothing stored), and the next server marks the job failed as interrupted before it answers about it."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.conftest import count_group, running_daphne
from tests.explorer.test_retrieval_socket import post_json
from tests.jobs.helpers import many_entities

pytestmark = pytest.mark.django_db(transaction=True)


def get_json(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def test_a_server_stopped_mid_import_stores_nothing_and_the_job_is_interrupted(group: str, tmp_path: Path) -> None:
    token = token_for(user=user_grant(username="keeper", role=Role.CURATOR, groups=[group]))
    document = many_entities(group, 30)
    with running_daphne(tmp_path / "first.log", wait_seconds=60, MEMORIA_JOB_STEP_PAUSE_MS="1000") as port:
        jobs = f"http://127.0.0.1:{port}/api/groups/{group}/jobs"
        status, job = post_json(f"{jobs}/import", document, token)
        assert status == 202, job
        deadline = time.monotonic() + 60
        while not (job["progress"]["stage"] == "writing" and job["progress"]["done"] > 0):  # inside its transaction
            assert time.monotonic() < deadline, job
            time.sleep(0.1)
            job = get_json(f"{jobs}/{job['id']}", token)
    # The first server is gone (it does not wait for its jobs).
    assert count_group(group) == {"nodes": 0, "edges": 0}
    with running_daphne(tmp_path / "second.log", wait_seconds=60) as port:
        job = get_json(f"http://127.0.0.1:{port}/api/groups/{group}/jobs/{job['id']}", token)
    assert job["state"] == "failed" and job["finished_at"], job
    assert job["error"].startswith("interrupted: the server process running this job stopped"), job
    assert count_group(group) == {"nodes": 0, "edges": 0}
