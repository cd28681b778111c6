"""A person signs in through Chromium, sees their groups, and the websocket answers with their identity."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.datasets.demo import SAMPLE_QUERIES
from tests.e2e.browsing import screenshot, sign_in

# Opens a websocket from the page, keeps the first frame, closes from our side, and reports the close code
# (1000 when we closed it, the server's code when it closed first).
OPEN_SOCKET = """
([path]) => new Promise((resolve) => {
  const ws = new WebSocket(`ws://${location.host}${path}`);
  let first = null;
  ws.onmessage = (event) => {
    if (first === null) { first = JSON.parse(event.data); setTimeout(() => ws.close(1000), 200); }
  };
  ws.onclose = (event) => resolve({data: first, closed: event.code});
})
"""


@pytest.fixture
def analyst(transactional_db: None, group: str) -> tuple[str, str]:
    call_command("load_demo", "--group", group, "--quiet", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user_grant(username="analyst", role=Role.VIEWER, groups=[group], password="correct horse battery")
    return "analyst", "correct horse battery"


def test_sign_in_lands_on_the_demo_with_questions_to_run_live(
    page: Page, daphne_url: str, analyst: tuple[str, str], group: str
) -> None:
    """The first view is guided: the group holding the demo, and its sample queries, one click from a live run
    whose frontier expands three levels or more (the home page no longer counts every group: /api/groups does)."""
    sign_in(page, daphne_url, *analyst)
    expect(page.get_by_test_id("current-user")).to_contain_text("analyst · viewer")
    expect(page.get_by_test_id("landing-group")).to_have_text(group)
    expect(page.get_by_test_id("groups").locator(f"li[data-group='{group}']")).to_be_visible()
    suggested = page.get_by_test_id("suggested-query")
    expect(suggested).to_have_text(list(SAMPLE_QUERIES))
    screenshot(page, "groups.png")
    suggested.first.click()
    expect(page).to_have_url(re.compile(rf"/g/{group}/live/\?q=stockouts%20in%20Lyon&run=1$"))
    expect(page.get_by_test_id("live-status")).to_contain_text("completed", timeout=120_000)
    expect(page.get_by_test_id("depth-plot").locator("g[data-depth='3']")).to_have_count(1)

    health = page.evaluate(OPEN_SOCKET, ["/ws/health/"])
    assert health["data"]["type"] == "health"
    assert health["data"]["user"] == "analyst"
    assert health["data"]["graph"]["status"] == "up"


def test_wrong_password_is_refused(page: Page, daphne_url: str, analyst: tuple[str, str]) -> None:
    sign_in(page, daphne_url, analyst[0], "wrong password")
    expect(page.get_by_role("alert")).to_contain_text("didn't match")


def test_anonymous_websocket_is_closed(page: Page, daphne_url: str, transactional_db: None) -> None:
    page.goto(daphne_url + "/accounts/login/")
    answer = page.evaluate(OPEN_SOCKET, ["/ws/health/"])
    assert answer == {
        "data": {"type": "error", "code": "unauthenticated", "message": "sign in or send a token"},
        "closed": 4401,
    }


def test_program_connects_with_a_token(page: Page, daphne_url: str, transactional_db: None) -> None:
    token = token_for(user=user_grant(username="agent", role=Role.VIEWER))
    page.goto(daphne_url + "/accounts/login/")
    answer = page.evaluate(OPEN_SOCKET, [f"/ws/health/?token={token}"])
    assert answer["data"]["user"] == "agent"
    assert answer["closed"] == 1000
    assert page.evaluate(OPEN_SOCKET, ["/ws/health/?token=forged"])["closed"] == 4401
