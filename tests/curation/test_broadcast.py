"""A committed change reaches the group's open watch sockets on a real daphne; refused changes send nothing."""

from __future__ import annotations

import asyncio
from urllib.parse import quote

import pytest
from asgiref.sync import sync_to_async

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.reindex import group_reindex
from tests.curation.memory import edge_id, store_curation_memory
from tests.explorer.test_retrieval_socket import connect, post_json, receive

pytestmark = pytest.mark.django_db(transaction=True)

# The edge fields an open inspector compares with a curation event's edge (curation_live.js COMPARED).
COMPARED = ("relation", "fact", "weight", "category", "valid_at", "invalid_at", "expired_at", "tags")


@sync_to_async
def prepare(group: str) -> tuple[str, str, str]:
    store_curation_memory(group)
    group_reindex(group=group)  # every vector in place, so the edit below embeds nothing
    curator = token_for(user=user_grant(username="carla", role=Role.CURATOR, groups=[group]))
    viewer = token_for(user=user_grant(username="vera", role=Role.VIEWER, groups=[group]))
    outsider = token_for(user=user_grant(username="otto", role=Role.VIEWER, groups=["elsewhere"]))
    return curator, viewer, outsider


async def test_an_edit_reaches_every_open_view_of_the_group(daphne_url: str, group: str) -> None:
    curator, viewer, outsider = await prepare(group)
    key = edge_id(group, "lives")
    url = f"{daphne_url}/api/groups/{group}/edges/{quote(key)}"
    async with (
        connect(daphne_url, f"/ws/retrievals/watch/?group={group}", viewer) as first,
        connect(daphne_url, f"/ws/retrievals/watch/?group={group}", curator) as second,
        connect(daphne_url, "/ws/retrievals/watch/?group=elsewhere", outsider) as other_group,
    ):
        for socket in (first, second, other_group):
            assert (await receive(socket))["type"] == "watching"
        refused = await asyncio.to_thread(post_json, url, {"weight": 7}, curator, "PATCH")
        assert refused[0] == 400
        forbidden = await asyncio.to_thread(post_json, url, {"weight": 0.2}, viewer, "PATCH")
        assert forbidden[0] == 403
        status, body = await asyncio.to_thread(
            post_json, url, {"weight": 0.95, "tags": ["home", "Old Town"]}, curator, "PATCH"
        )
        assert status == 200, body
        for socket in (first, second):
            event = await receive(socket)  # the first event is the accepted edit: the refused ones sent nothing
            assert event["type"] == "curation" and event["group"] == group
            assert event["entry"]["id"] == body["entry"]["id"] and event["entry"]["actor"] == "carla"
            assert event["entry"]["action"] == "edge.update" and "before" not in event["entry"]
            assert event["edges"][key]["weight"] == 0.95 and event["edges"][key]["tags"] == ["home", "old_town"]
            assert {c["field"] for c in event["entry"]["changes"]} == {"weight", "tags"}
            # An open inspector compares the event's edge with the record the edit answered (curation_live.js
            # sameEdge): the fields it compares must carry the same names and values in both.
            shown = body["edge"]
            assert shown["category"], "the fixture's edge needs a category for this comparison to mean anything"
            assert {name: event["edges"][key].get(name) for name in COMPARED} == {
                name: shown[name] for name in COMPARED
            }
        with pytest.raises(asyncio.TimeoutError):
            await receive(other_group, timeout=1.0)

        status, undone = await asyncio.to_thread(
            post_json, f"{daphne_url}/api/groups/{group}/audit/{body['entry']['id']}/undo", {}, curator
        )
        assert status == 200, undone
        event = await receive(first)
        assert event["entry"]["action"] == "undo" and event["entry"]["undoes"] == body["entry"]["id"]
        assert event["edges"][key]["weight"] == 0.6
