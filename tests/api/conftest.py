"""API clients for each role, authenticated by real DRF tokens."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant


@pytest.fixture
def client_for(db: None) -> Callable[..., APIClient]:
    def make(role: str, groups: list[str] = (), username: str | None = None) -> APIClient:
        user = user_grant(username=username or f"{role}-user", role=Role(role), groups=list(groups))
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user=user)}")
        return client

    return make
