"""Background jobs' progress over the group's watch socket, against a real daphne: every change of a job started
through the REST API reaches the group's watchers as a typed `job` frame, and nobody else's."""

from __future__ import annotations

import asyncio

import pytest

from explorer.frames import FrameType
from memoria.accounts.roles import Role
from memoria.jobs.models import JobState
from tests.explorer.test_retrieval_socket import connect, post_json, receive, token_for_role
from tests.jobs.helpers import two_clusters

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["token_for_role"]  # the fixture, shared with the activation socket tests

ENDED = (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED)


async def job_frames(socket, job_id: str) -> list[dict]:
    frames = []
    while not frames or frames[-1]["job"]["state"] not in ENDED:
        frame = await receive(socket)
        if frame["type"] == FrameType.JOB and frame["job"]["id"] == job_id:
            frames.append(frame)
    return frames


async def test_watchers_see_a_job_queued_progress_and_end(daphne_url: str, group: str, token_for_role) -> None:
    await asyncio.to_thread(two_clusters, group)
    curator = await token_for_role("builder", Role.CURATOR, [group])
    viewer = await token_for_role("onlooker", Role.VIEWER, [group])
    async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", viewer) as socket:
        assert (await receive(socket))["type"] == FrameType.WATCHING
        url = f"{daphne_url}/api/groups/{group}/jobs/communities"
        status, job = await asyncio.to_thread(post_json, url, {"algorithm": "label_propagation"}, curator)
        assert status == 202, job
        frames = await job_frames(socket, job["id"])
    states = [frame["job"]["state"] for frame in frames]
    assert states[0] == JobState.QUEUED and states[-1] == JobState.SUCCEEDED and JobState.RUNNING in states
    stages = {frame["job"]["progress"]["stage"] for frame in frames}
    assert {"reading", "summarising", "writing"} <= stages
    last = frames[-1]["job"]
    assert (last["group"], last["kind"], last["result"]["clustered_entities"]) == (group, "communities", 8)
    assert "output" not in last


async def test_another_groups_watchers_hear_nothing_of_it(daphne_url: str, group: str, token_for_role) -> None:
    await asyncio.to_thread(two_clusters, group)
    curator = await token_for_role("builder", Role.CURATOR, [group, "t-other-room"])
    async with connect(daphne_url, "/ws/retrievals/watch/?group=t-other-room", curator) as other:
        assert (await receive(other))["type"] == FrameType.WATCHING
        url = f"{daphne_url}/api/groups/{group}/jobs/export"
        async with connect(daphne_url, f"/ws/retrievals/watch/?group={group}", curator) as mine:
            assert (await receive(mine))["type"] == FrameType.WATCHING
            status, job = await asyncio.to_thread(post_json, url, {}, curator)
            assert status == 202, job
            await job_frames(mine, job["id"])
        with pytest.raises(TimeoutError):
            await receive(other, timeout=1.0)
