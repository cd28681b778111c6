"""An episode batch is admitted by one parser whichever face it comes through: REST and MCP refuse a batch that
gives one id twice with the same problem, and write nothing."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.mcp.client import http_session
from tests.conftest import count_group

pytestmark = pytest.mark.django_db(transaction=True)

REPEATED = [
    {"id": "ep-twice", "content": "Ada ordered spare parts for the Lyon warehouse."},
    {"id": "ep-twice", "content": "Ada cancelled the order for the Lyon warehouse."},
]
PROBLEM = "episodes[1].id: 'ep-twice' repeats episodes[0]"


def curator_token(group: str) -> str:
    return token_for(user=user_grant(username="batch-curator", role=Role.CURATOR, groups=[group]))


async def test_a_repeated_id_is_refused_alike_by_rest_and_mcp_and_nothing_is_written(
    daphne_url: str, group: str
) -> None:
    token = await sync_to_async(curator_token)(group)
    before = await sync_to_async(count_group)(group)

    def rest_post() -> tuple[int, dict]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = client.post(f"/api/groups/{group}/episodes", REPEATED, format="json")
        return response.status_code, response.json()

    status, rest = await sync_to_async(rest_post)()
    assert status == 400 and rest["code"] == "invalid" and rest["errors"] == [PROBLEM], rest
    async with http_session(daphne_url, token) as session:
        result = await session.call_tool("add_memory", {"group": group, "episodes": REPEATED})
    assert result.is_error
    text = result.content[0].text
    mcp = json.loads(text[text.index("{") :])
    assert mcp == {"detail": rest["detail"], "code": "invalid", "errors": [PROBLEM]}
    assert await sync_to_async(count_group)(group) == before
