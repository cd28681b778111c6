"""The Content-Security-Policy in Chromium (issue 33, item 4): every page works under the strict policy and the
browser reports no violation, the API docs and the admin included.

Violations are caught twice: the `securitypolicyviolation` events a script added before the page's own records
(Playwright injects it through the DevTools protocol, which the policy does not govern), and Chromium's console
messages ("Refused to ..."). Each page must also do its work: the graph drawn, a live retrieval run over the
websocket, the timeline's bars placed, the group switched, Swagger UI's operations listed. The page's own CSV
rule (export_view.js, formula-safe cells: item 5) is run here too, as the page runs it.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import ConsoleMessage, Page

from memoria.accounts.models import GroupMembership
from tests.e2e.browsing import sign_in
from tests.e2e.test_accessibility import PASSWORD, READY_MS, _pages
from tests.e2e.test_accessibility import memory as memory
from tests.security.test_headers import STRICT, policy

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) =>
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`)
);
"""


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """The policy enforced, as a visitor's browser does (the other browser tests bypass it: tests/e2e/conftest.py).
    Hence no wait_for_function here, which evaluates a string in the page: readiness is read from attributes."""
    return {**browser_context_args, "bypass_csp": False}


# Pages whose readiness the accessibility test reads with wait_for_function, read here from the same attributes.
READY = {
    "graph": lambda page: page.wait_for_selector("body[data-graph-ready='true']", state="attached", timeout=READY_MS),
    "live, after a retrieval": lambda page: _retrieved(page),
}


def _retrieved(page: Page) -> None:
    page.wait_for_selector("body[data-live-ready='true']", state="attached", timeout=READY_MS)
    page.get_by_test_id("run").click()
    page.wait_for_selector("[data-live-root][data-live-state='finished']", state="attached", timeout=90_000)


@pytest.fixture
def watched(page: Page) -> list[str]:
    """The page with violations recorded from the first script on; the console's refusals as they come."""
    refused: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or message.text.startswith("Refused to"):
            refused.append(message.text)

    page.context.add_init_script(RECORD_VIOLATIONS)
    page.on("console", console)
    return refused


def _violations(page: Page, refused: list[str], where: str) -> list[str]:
    return [f"{where}: {text}" for text in [*page.evaluate("window.__cspViolations || []"), *refused]]


def test_every_page_works_under_the_policy_with_no_violation(
    page: Page, watched: list[str], daphne_url: str, memory: dict, group: str
) -> None:
    GroupMembership.objects.create(user=get_user_model().objects.get(username="curator"), group=f"{group}-b")
    answer = page.goto(f"{daphne_url}/accounts/login/")
    assert policy(answer.headers["content-security-policy"]) == policy(STRICT)
    found = _violations(page, watched, "sign-in")
    sign_in(page, daphne_url, "curator", PASSWORD)
    page.wait_for_url(f"{daphne_url}/", timeout=READY_MS)
    for name, (path, ready) in _pages(group, memory).items():
        watched.clear()
        answer = page.goto(daphne_url + path)
        assert policy(answer.headers.get("content-security-policy")) == policy(STRICT), name
        READY.get(name, ready)(page)
        if name == "entity":  # the timeline's bars are placed by timeline.js through the CSSOM
            placed = page.eval_on_selector_all(".track .bar", "(bars) => bars.map((bar) => bar.style.left)")
            assert placed and all(left.endswith("%") for left in placed), placed
        if name == "live, after a retrieval":  # the websocket connected and the run drew its paths
            assert page.get_by_test_id("path-list").locator("li").count() > 0
        found += _violations(page, watched, name)

    watched.clear()
    page.goto(f"{daphne_url}/")
    with page.expect_navigation():
        page.get_by_test_id("group-switcher").select_option(f"{group}-b")  # group_switcher.js submits the form
    assert page.get_by_test_id("group-switcher").input_value() == f"{group}-b"
    found += _violations(page, watched, "group switch")

    for name, path, ready in (
        ("API docs", "/api/docs/", ".opblock"),
        ("admin sign-in", "/admin/login/", "#login-form"),
    ):
        watched.clear()
        answer = page.goto(daphne_url + path)
        assert policy(answer.headers.get("content-security-policy")) == policy(STRICT), name
        page.wait_for_selector(ready, timeout=READY_MS)
        page.wait_for_load_state("networkidle", timeout=READY_MS)
        found += _violations(page, watched, name)
    assert not found, "\n".join(found)


def test_the_pages_csv_cells_are_formula_safe(page: Page, daphne_url: str) -> None:
    """export_view.js's csvCell, imported by the page as its own module: text starting with = + - @ tab or CR gets
    an apostrophe, numbers (a negative energy) stay numbers, and the row parses back as the cells it wrote."""
    page.goto(f"{daphne_url}/accounts/login/")
    cells = [
        '=HYPERLINK("http://evil.example","x")',
        "+1+cmd",
        "-2+3",
        "@SUM(1)",
        "\tx",
        "\rx",
        "plain",
        -0.5,
        3,
    ]
    row = page.evaluate(
        "async (cells) => cells.map((await import('/static/explorer/js/export_view.js')).csvCell).join(',')", cells
    )
    parsed = next(csv.reader(io.StringIO(row, newline="")))
    assert parsed == [
        '\'=HYPERLINK("http://evil.example","x")',
        "'+1+cmd",
        "'-2+3",
        "'@SUM(1)",
        "'\tx",
        "'\rx",
        "plain",
        "-0.5",
        "3",
    ]
