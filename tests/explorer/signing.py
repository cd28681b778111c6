"""A Django test client signed in through the login form's backend, as a user granted a role on some groups."""

from __future__ import annotations

from django.http import HttpRequest
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant

PASSWORD = "a long test password"


def signed_in(username: str, groups: list[str], *, role: Role = Role.VIEWER) -> Client:
    user_grant(username=username, role=role, groups=groups, password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username=username, password=PASSWORD)
    return client
