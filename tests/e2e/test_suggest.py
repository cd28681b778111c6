"""Search-as-you-type in Chromium: the header's box and the graph view's add box wait for the typing to pause, list
same-named entities with kind, date and id, and are driven by the keyboard (↓ ↑ Enter, Esc)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import sign_in
from tests.e2e.test_accessibility import _blocking
from tests.search.suggest_memory import SAME_NAME, store_suggest_memory

PASSWORD = "correct horse battery staple"
# The first search in a fresh daphne loads the embedding model for the query vector.
FIRST_SEARCH_MS = 120_000


@pytest.fixture
def memory(transactional_db: None, group: str) -> Iterator[dict[str, str]]:
    ids = store_suggest_memory(group)
    user_grant(username="finder", role=Role.VIEWER, groups=[group], password=PASSWORD)
    yield ids


def suggest_requests(page: Page) -> list[str]:
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if "/api/search/suggest" in request.url else None)
    return sent


def check_twins(rows: Locator, ids: dict[str, str]) -> None:
    """Both same-named actions listed, each with its kind, its date and its id (the only way to tell them apart)."""
    twins = rows.filter(has_text=SAME_NAME)
    expect(twins).to_have_count(2, timeout=FIRST_SEARCH_MS)
    shown = {}
    for index in range(2):
        row = twins.nth(index)
        expect(row.get_by_test_id("suggestion-kind")).to_have_text("AgentAction")
        shown[row.get_by_test_id("suggestion-id").inner_text()] = row.get_by_test_id("suggestion-date").inner_text()
    assert shown == {ids["first"]: "2025-02-03", ids["second"]: "2025-06-20"}
    expect(twins.first.get_by_test_id("suggestion-snippet")).to_contain_text("Asked")
    others = rows.filter(has_not_text=SAME_NAME)
    expect(others.first.get_by_test_id("suggestion-id")).to_have_count(0)  # a name of its own needs no id


def test_header_box_lists_twins_and_opens_the_chosen_one_by_keyboard(
    page: Page, daphne_url: str, memory: dict[str, str], group: str
) -> None:
    sign_in(page, daphne_url, "finder", PASSWORD, then="/search/")
    sent = suggest_requests(page)
    box = page.get_by_test_id("header-search")
    box.press_sequentially("expedite request Nordbalt", delay=25)  # faster than the 200 ms pause
    rows = page.locator(".header-search").get_by_test_id("suggestion")
    check_twins(rows, memory)
    assert len(sent) == 1, sent  # one request for the whole burst of keys
    box.press("ArrowDown")
    box.press("ArrowDown")
    chosen = rows.nth(1)
    expect(chosen).to_have_attribute("aria-selected", "true")
    expect(rows.nth(0)).to_have_attribute("aria-selected", "false")
    assert box.get_attribute("aria-activedescendant") == chosen.get_attribute("id")
    box.press("ArrowUp")
    expect(rows.nth(0)).to_have_attribute("aria-selected", "true")
    box.press("ArrowDown")
    target = chosen.get_attribute("data-id")
    box.press("Enter")
    expect(page).to_have_url(re.compile(rf"/g/{group}/entities/{re.escape(target)}/$"))
    expect(page.locator("h1")).to_contain_text(SAME_NAME)


def test_escape_closes_and_enter_without_a_choice_runs_the_full_search(
    page: Page, daphne_url: str, memory: dict[str, str]
) -> None:
    sign_in(page, daphne_url, "finder", PASSWORD, then="/search/")
    box = page.get_by_test_id("header-search")
    box.press_sequentially("Warehouse Ly", delay=25)
    listing = page.locator(".header-search").get_by_test_id("suggestions")
    expect(listing.get_by_test_id("suggestion").first).to_contain_text("Warehouse Lyon", timeout=FIRST_SEARCH_MS)
    box.press("Escape")
    expect(listing).to_be_hidden()
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=Warehouse\+Ly$"))


def test_graph_add_box_adds_the_chosen_twin(page: Page, daphne_url: str, memory: dict[str, str], group: str) -> None:
    sign_in(page, daphne_url, "finder", PASSWORD, then=f"/g/{group}/graph/")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    page.get_by_test_id("start-clear").click()  # the group's first view drew its most connected entities
    expect(page.get_by_test_id("node-count")).to_have_text("0")
    sent = suggest_requests(page)
    box = page.get_by_label("Add entities by search")
    box.press_sequentially("expedite request Nordbalt", delay=25)
    rows = page.locator("[data-add-search]").get_by_test_id("suggestion")
    check_twins(rows, memory)
    assert len(sent) == 1, sent
    twin = rows.filter(has_text=memory["second"])
    position = [rows.nth(index).get_attribute("data-id") for index in range(rows.count())].index(memory["second"])
    for _ in range(position + 1):
        box.press("ArrowDown")
    expect(twin).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    page.wait_for_function("([id]) => memoriaGraph.view.graph.hasNode(id)", arg=[memory["second"]], timeout=30_000)
    # Added, opened and expanded: its facts' other ends are drawn too, and the other twin is not.
    page.wait_for_function("([id]) => memoriaGraph.view.graph.hasNode(id)", arg=[memory["wh"]], timeout=30_000)
    assert not page.evaluate("([id]) => memoriaGraph.view.graph.hasNode(id)", [memory["first"]])
    expect(page.locator("[data-add-search]").get_by_test_id("suggestions")).to_be_hidden()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_open_list_is_readable_in_both_themes(page: Page, daphne_url: str, memory: dict, scheme: str) -> None:
    """Before: in the light theme the header's list inherited the dark top bar's white text, names white on white
    and kind badges at 1.13:1 (axe: serious colour-contrast on 8 elements)."""
    page.emulate_media(color_scheme=scheme)
    sign_in(page, daphne_url, "finder", PASSWORD, then="/search/")
    box = page.get_by_test_id("header-search")
    box.press_sequentially("Nordbalt", delay=25)
    rows = page.locator(".header-search").get_by_test_id("suggestion")
    expect(rows.first).to_be_visible(timeout=FIRST_SEARCH_MS)
    box.press("ArrowDown")  # one highlighted, as a keyboard user sees it
    assert _blocking(page) == []
    name = rows.first.locator(".suggest-name")
    colour, background = name.evaluate(
        "(el) => [getComputedStyle(el).color, getComputedStyle(el.closest('.suggest-list')).backgroundColor]"
    )
    assert colour != background, (colour, background)


def test_more_letters_narrow_and_nonsense_says_no_good_match(page: Page, daphne_url: str, memory: dict) -> None:
    """Before: "Lyo" found nothing about Lyon and "zzqxv" got eight confident suggestions (issue 32)."""
    sign_in(page, daphne_url, "finder", PASSWORD, then="/search/")
    box = page.get_by_test_id("header-search")
    rows = page.locator(".header-search").get_by_test_id("suggestion")
    box.press_sequentially("Lyo", delay=25)
    expect(rows.first).to_contain_text("Lyons cycle count log", timeout=FIRST_SEARCH_MS)
    expect(rows.nth(1)).to_contain_text("Warehouse Lyon")
    box.fill("")
    box.press_sequentially("zzqxv", delay=25)
    empty = page.locator(".header-search").get_by_test_id("suggest-empty")
    expect(empty).to_have_text("No good match for “zzqxv”. Enter searches everything.", timeout=FIRST_SEARCH_MS)
    expect(rows).to_have_count(0)
    expect(page.locator(".header-search").get_by_test_id("suggest-status")).to_have_text(
        "No good match for “zzqxv”. Enter searches everything."
    )
    box.press("Enter")
    expect(page.get_by_test_id("no-good-match")).to_contain_text("No good match for “zzqxv”.")
