"""Keyboard shortcuts and help, in Chromium: "/" focuses the search box, "?" opens the shortcuts dialog (Esc
closes it), Ctrl+Enter submits the form being typed in and starts the live page's retrieval; the help page lists
the same shortcuts and links the API documentation, and the top bar links the help page."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import sign_in
from tests.e2e.memory import warehouse_memory
from tests.e2e.test_live import wait_finished

PASSWORD = "correct horse battery staple"
SHORTCUT_KEYS = [
    "/",
    "?",
    "Esc",
    "Ctrl+Enter",
    "Ctrl+Z",
    "Ctrl+Shift+Z",
    "Shift+click",
    "← ↑ → ↓",
    "Enter",
    "Shift+F10",
]
FOCUSED_TESTID = "document.activeElement && document.activeElement.dataset.testid"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = warehouse_memory(group)
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


def test_slash_question_mark_and_escape(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/audit/")
    page.wait_for_load_state("networkidle")
    page.keyboard.press("/")
    assert page.evaluate(FOCUSED_TESTID) == "header-search"
    page.keyboard.type("?")  # typed into the box: not a shortcut there
    expect(page.get_by_test_id("header-search")).to_have_value("?")
    expect(page.get_by_test_id("shortcuts-dialog")).to_have_count(0)
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    assert page.evaluate(FOCUSED_TESTID) != "header-search"

    page.keyboard.press("?")
    dialog = page.get_by_test_id("shortcuts-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("kbd")).to_have_text(SHORTCUT_KEYS)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


def test_ctrl_enter_submits_and_runs(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/audit/")
    box = page.get_by_test_id("header-search")
    box.fill("gloves")
    box.press("Control+Enter")
    page.wait_for_url(f"{daphne_url}/search/?q=gloves")

    page.goto(f"{daphne_url}/g/{group}/live/?seed={quote(memory['forecast'], safe='')}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    page.locator("body").click(position={"x": 5, "y": 200})
    page.keyboard.press("Control+Enter")
    wait_finished(page)


def test_the_help_page_lists_the_shortcuts_and_links_the_api_docs(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.get_by_test_id("nav-help").click()
    page.wait_for_url(f"{daphne_url}/help/")
    expect(page.get_by_test_id("help-shortcuts").locator("kbd")).to_have_text(SHORTCUT_KEYS)
    page.get_by_test_id("api-docs-link").click()
    page.wait_for_url(f"{daphne_url}/api/docs/")


def test_the_first_tab_stop_skips_the_header(page: Page, daphne_url: str, group: str, transactional_db: None) -> None:
    """Before (issue 32): no skip link, 13 header stops before a page's own controls."""
    user_grant(username="skipper", role=Role.VIEWER, groups=[group], password=PASSWORD)
    sign_in(page, daphne_url, "skipper", PASSWORD, then=f"/g/{group}/jobs/")  # a page with no autofocus
    # A fresh load, as a reader arriving at the page: Chromium starts sequential focus at the top of a new document.
    page.goto(f"{daphne_url}/g/{group}/jobs/")
    page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-link")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box is not None and box["y"] >= 0  # shown once focused
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    page.keyboard.press("Tab")  # the next stop is the page's own, not the header's
    assert page.evaluate("document.querySelector('header.topbar').contains(document.activeElement)") is False
