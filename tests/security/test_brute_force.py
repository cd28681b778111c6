"""Sign-in throttling (issue 33, item 1): django-axes counts failed sign-ins per username and per address.

The probe sent 30 wrong passwords in a row, all answered 200 in 0.3-0.5 s, and the right one then worked. Here the
same run against a real daphne is locked out at MEMORIA_LOGIN_FAILURE_LIMIT (5) with 429, a message and
Retry-After, the right password stays refused, and an admin's unlock (command or admin page) lets it in again.
"""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import get_resolver
from rest_framework.authtoken.views import ObtainAuthToken

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"
LIMIT = settings.AXES_FAILURE_LIMIT
COOL_OFF_SECONDS = int(settings.AXES_COOLOFF_TIME.total_seconds())


@pytest.fixture(autouse=True)
def _unlocked() -> Iterator[None]:
    """Every address and name unlocked afterwards: the suite's other sign-ins all come from 127.0.0.1."""
    yield
    AccessAttempt.objects.all().delete()


class Browser:
    """A client over a real socket with its own cookies, signing in as the form does (CSRF token included)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
        )

    def sign_in(self, username: str, password: str, path: str = "/accounts/login/") -> tuple[int, dict, str]:
        form = self.opener.open(self.base + path, timeout=30).read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        body = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": token, "next": "/"}
        ).encode()
        request = urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + path})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # a 302 after signing in is the answer we want to see


def test_guessing_a_password_is_locked_out_and_an_admin_unlocks_it(daphne_url: str) -> None:
    user_grant(username="target", role=Role.VIEWER, password=PASSWORD)
    browser = Browser(daphne_url)
    answers = [browser.sign_in("target", f"guess-{attempt}") for attempt in range(2 * LIMIT)]
    statuses = [status for status, _, _ in answers]
    assert statuses == [200] * (LIMIT - 1) + [429] * (LIMIT + 1), statuses
    _, headers, page = answers[-1]
    assert headers["Retry-After"] == str(COOL_OFF_SECONDS)
    assert "Too many failed sign-ins for this account or from this address" in page
    assert f"locked for {COOL_OFF_SECONDS // 60} minutes" in page
    # The right password is refused too while locked, and so is the admin's own sign-in page (same backend).
    assert browser.sign_in("target", PASSWORD)[0] == 429
    assert browser.sign_in("target", PASSWORD, "/admin/login/")[0] == 429
    call_command("axes_reset_username", "target", stdout=open("/dev/null", "w"))  # noqa: SIM115
    status, headers, _ = browser.sign_in("target", PASSWORD)
    assert (status, headers["Location"]) == (302, "/")


def _post_sign_in(username: str, password: str, address: str) -> int:
    client = Client(REMOTE_ADDR=address)
    client.get("/accounts/login/")
    return client.post("/accounts/login/", {"username": username, "password": password}).status_code


def test_one_address_is_locked_out_whoever_it_tries() -> None:
    for index in range(LIMIT + 1):
        user_grant(username=f"user-{index}", role=Role.VIEWER, password=PASSWORD)
    assert [_post_sign_in(f"user-{index}", "wrong", "10.9.9.9") for index in range(LIMIT)] == [200] * (LIMIT - 1) + [
        429
    ]
    assert _post_sign_in(f"user-{LIMIT}", PASSWORD, "10.9.9.9") == 429  # a name it never tried
    assert _post_sign_in(f"user-{LIMIT}", PASSWORD, "10.9.9.10") == 302  # that user, from elsewhere


def test_one_user_is_locked_out_from_every_address() -> None:
    user_grant(username="carol", role=Role.VIEWER, password=PASSWORD)
    user_grant(username="dave", role=Role.VIEWER, password=PASSWORD)
    answers = [_post_sign_in("carol", "wrong", f"10.8.0.{index}") for index in range(LIMIT)]
    assert answers == [200] * (LIMIT - 1) + [429]
    assert _post_sign_in("carol", PASSWORD, "10.8.1.1") == 429  # a fresh address changes nothing
    assert _post_sign_in("dave", PASSWORD, "10.8.0.1") == 302  # those addresses are not locked for others


def test_an_admin_unlocks_from_the_admin_pages() -> None:
    user_grant(username="erin", role=Role.VIEWER, password=PASSWORD)
    for index in range(LIMIT):
        _post_sign_in("erin", "wrong", f"10.7.0.{index}")
    assert _post_sign_in("erin", PASSWORD, "10.7.1.1") == 429
    admin = Client()
    admin.force_login(get_user_model().objects.create_superuser("boss", password=PASSWORD))  # as ensure_login makes
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "erin" in listing.content.decode()
    ids = [str(pk) for pk in AccessAttempt.objects.filter(username="erin").values_list("pk", flat=True)]
    deleted = admin.post(
        "/admin/axes/accessattempt/", {"action": "delete_selected", "_selected_action": ids, "post": "yes"}
    )
    assert deleted.status_code == 302
    assert _post_sign_in("erin", PASSWORD, "10.7.1.1") == 302


def test_no_url_mints_a_token() -> None:
    """Tokens come from `manage.py memoria_token` only: no endpoint to guess passwords against for one."""
    views = []

    def walk(patterns: list, prefix: str = "") -> None:
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                views.append((prefix + str(pattern.pattern), getattr(pattern.callback, "cls", pattern.callback)))

    walk(get_resolver().url_patterns)
    assert len(views) > 50
    assert not [path for path, view in views if isinstance(view, type) and issubclass(view, ObtainAuthToken)]
