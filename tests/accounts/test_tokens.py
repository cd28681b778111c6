"""`memoria_token` creates users with roles and prints a token that the API accepts."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import user_groups, user_role


def run_token(*args: str) -> str:
    out = io.StringIO()
    call_command("memoria_token", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def test_token_command_creates_user_and_token(db: None) -> None:
    token = run_token("--user", "agent-7", "--role", "curator", "--group", "demo", "--group", "ops")
    assert len(token) == 40
    assert run_token("--user", "agent-7", "--role", "curator") == token  # stable, not rotated
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = client.get("/api/me").json()
    assert me == {"username": "agent-7", "role": "curator", "groups": ["demo", "ops"]}


def test_role_can_be_changed(db: None) -> None:
    from django.contrib.auth import get_user_model

    run_token("--user", "bob", "--role", "curator")
    run_token("--user", "bob", "--role", "viewer")
    bob = get_user_model().objects.get(username="bob")
    assert user_role(user=bob) == Role.VIEWER
    assert user_groups(user=bob) == []
    run_token("--user", "root-like", "--role", "admin")
    admin = get_user_model().objects.get(username="root-like")
    assert user_groups(user=admin) is None  # admins see every group


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--user", "u", "--role", "god"], "invalid choice"),
        (["--user", "u", "--role", "viewer", "--group", "no spaces"], "must be 1–64 letters"),
        (["--user", "", "--role", "viewer"], "--user must be 1–150 characters"),
    ],
)
def test_bad_arguments(db: None, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("memoria_token", *args, stdout=io.StringIO(), stderr=io.StringIO())
