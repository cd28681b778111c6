"""A group opened with nothing asked starts on something (issue 32): before, home → group or the header's Graph
link showed an empty canvas, "0 nodes · 0 links" and "Click a node to expand it" with no node to click."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import sign_in
from tests.e2e.memory import warehouse_memory

PASSWORD = "correct horse battery staple"
FIRST_SEARCH_MS = 120_000  # the first search in a fresh daphne loads the embedding model


@pytest.fixture
def memory(transactional_db: None, group: str) -> Iterator[dict[str, str]]:
    ids = warehouse_memory(group)
    user_grant(username="starter", role=Role.VIEWER, groups=[group], password=PASSWORD)
    yield ids


def ready(page: Page) -> None:
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)


def test_a_group_opens_on_its_most_connected_entities_and_a_question(
    page: Page, daphne_url: str, group: str, memory: dict[str, str]
) -> None:
    sign_in(page, daphne_url, "starter", PASSWORD, then=f"/g/{group}/graph/")
    ready(page)
    card = page.get_by_test_id("start-view")
    expect(card).to_be_visible()
    expect(page.get_by_test_id("node-count")).to_have_text("12")
    assert int(page.get_by_test_id("edge-count").inner_text()) > 0  # the facts among them are drawn too
    expect(page.get_by_test_id("start-what")).to_contain_text(f"the 12 most connected entities of {group}")
    nodes = parse_qs(urlparse(page.url).query)["nodes"][0].split(",")
    assert nodes[0] == memory["depot"]  # 53 bins: the most facts; a reload draws the same view
    question = page.get_by_test_id("start-question")
    expect(question).to_have_text("“What do we know about Rotterdam depot?”")
    assert re.search(r"/live/\?q=What\+do\+we\+know\+about\+Rotterdam\+depot%3F&run=1$", question.get_attribute("href"))

    # A phrase draws the entities it finds best, as Bloom starts from a search.
    box = page.get_by_test_id("start-search")
    box.fill("gloves forecast")
    box.press("Enter")
    expect(page.get_by_test_id("start-what")).to_contain_text(
        "entities “gloves forecast” finds best", timeout=FIRST_SEARCH_MS
    )
    assert page.evaluate("([id]) => memoriaGraph.view.graph.hasNode(id)", [memory["forecast"]])
    assert page.evaluate("memoriaGraph.view.counts().nodes") <= 10

    page.get_by_test_id("start-clear").click()
    expect(page.get_by_test_id("node-count")).to_have_text("0")
    expect(page.locator("[data-hint]")).to_have_text(re.compile("^Nothing drawn yet: search for entities"))
    page.go_back()  # each start action is a step in the history
    ready(page)
    page.wait_for_function("([id]) => memoriaGraph.view.graph.hasNode(id)", arg=[memory["forecast"]])

    # Or closed by hand.
    page.goto(f"{daphne_url}/g/{group}/graph/")
    ready(page)
    expect(card).to_be_visible()
    page.get_by_test_id("start-close").click()
    expect(card).to_be_hidden()
