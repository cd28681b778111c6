"""Curation in Chromium against daphne: a curator edits an edge in the inspector (a 400 shown by its field, a 409
when it changed meanwhile), other open pages update live without reloading, the audit page lists the change and
undoes it (and shows why an undo is refused); a viewer sees no editing controls and the server refuses them."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import screenshot, sign_in
from tests.e2e.memory import warehouse_memory

PASSWORD = "correct horse battery staple"
LIVE_MS = 10_000
# The memory is loaded without vectors, so the first write embeds its edge after the commit: in a fresh daphne
# that loads the embedding model.
FIRST_WRITE_MS = 120_000

# A write as the signed-in page would send it: the session cookie and its CSRF token.
SEND_JSON = """
async ([method, url, body]) => {
  const token = document.cookie.split("; ").find((item) => item.startsWith("csrftoken=")).split("=")[1];
  const response = await fetch(url, {
    method, credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRFToken": token}, body: JSON.stringify(body),
  });
  return {status: response.status, body: await response.json()};
}
"""
GET_JSON = "async (url) => (await fetch(url, {credentials: 'same-origin'})).json()"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = warehouse_memory(group)
    user_grant(username="carla", role=Role.CURATOR, groups=[group], password=PASSWORD)
    user_grant(username="viktor", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


def edge_url(group: str, edge_id: str) -> str:
    return f"/api/groups/{group}/edges/{quote(edge_id, safe='')}"


def open_graph_on_edge(page: Page, base: str, group: str, memory: dict) -> str:
    """The graph view on the request and its data source, the uses_data fact open in the inspector; its id."""
    page.goto(f"{base}/g/{group}/graph/?nodes={quote(memory['forecast'])},{quote(memory['erp'])}")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    edge_id = page.evaluate("() => memoriaGraph.view.graph.edges()[0]")
    page.evaluate("(id) => memoriaGraph.openEdge(id)", edge_id)
    inspector = page.get_by_test_id("edge-inspector")
    expect(inspector.get_by_test_id("edge-relation")).to_have_text("uses_data")
    page.wait_for_function("document.querySelector('[data-edge-panel]').dataset.loaded === 'server'")
    return edge_id


def wait_live(page: Page) -> None:
    page.wait_for_function("document.body.dataset.curationLive === 'on'", timeout=LIVE_MS)
    page.evaluate("window.__notReloaded = true")


def test_curator_edits_an_edge_others_see_it_live_and_the_audit_undoes_it(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "carla", PASSWORD)
    edge_id = open_graph_on_edge(page, daphne_url, group, memory)
    # Two more pages of the same curator, watching: the graph view with the edge open, and the entity page.
    watcher = page.context.new_page()
    assert open_graph_on_edge(watcher, daphne_url, group, memory) == edge_id
    entity = page.context.new_page()
    entity.goto(f"{daphne_url}/g/{group}/entities/{quote(memory['forecast'])}/")
    expect(entity.locator(f'[data-edge="{edge_id}"]')).to_contain_text("weight 0.8")
    for other in (page, watcher, entity):
        wait_live(other)

    inspector = page.get_by_test_id("edge-inspector")
    weight = inspector.get_by_test_id("edit-weight")
    weight.fill("1.5")
    inspector.get_by_test_id("edit-save").click()
    expect(inspector.get_by_test_id("error-weight")).to_contain_text("1.5")
    weight.fill("0.9")
    inspector.get_by_test_id("edit-save").click()
    expect(inspector.get_by_test_id("curation-status")).to_contain_text("Saved (audit entry #", timeout=FIRST_WRITE_MS)
    expect(inspector.get_by_test_id("edge-weight")).to_have_text("0.9")
    screenshot(page, "curation.png")

    # The other pages change in place: the inspector, the drawn edge, the time line.
    expect(watcher.get_by_test_id("edge-inspector").get_by_test_id("edge-weight")).to_have_text("0.9", timeout=LIVE_MS)
    assert watcher.evaluate("(id) => memoriaGraph.view.edge(id).weight", edge_id) == 0.9
    expect(entity.locator(f'[data-edge="{edge_id}"]')).to_contain_text("weight 0.9", timeout=LIVE_MS)
    expect(entity.get_by_test_id("mini-graph")).to_have_attribute("data-live-update", re.compile(r"^\d+$"))
    assert watcher.evaluate("window.__notReloaded") and entity.evaluate("window.__notReloaded")

    # Someone changes the fact while the curator is typing: the input is kept, saving is refused (409), reloaded.
    weight.fill("0.7")
    answer = watcher.evaluate(SEND_JSON, ["PATCH", edge_url(group, edge_id), {"tags": ["audited"]}])
    assert answer["status"] == 200, answer
    expect(inspector.get_by_test_id("curation-status")).to_contain_text("while you were editing", timeout=LIVE_MS)
    expect(weight).to_have_value("0.7")
    inspector.get_by_test_id("edit-save").click()
    expect(inspector.get_by_test_id("curation-status")).to_contain_text("Not saved")
    expect(inspector.get_by_test_id("curation-status")).to_contain_text("reloaded")
    expect(inspector.get_by_test_id("edit-weight")).to_have_value("0.9")
    expect(inspector).to_contain_text("audited")

    # The audit page: newest first, who/what/before → after; only the item's latest change offers undo.
    page.get_by_test_id("nav-audit").click()
    rows = page.get_by_test_id("audit-entry")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).get_by_test_id("audit-diff")).to_contain_text('tags ["erp", "demand_forecasting"] → ["audited"]')
    expect(rows.nth(1).get_by_test_id("audit-actor")).to_have_text("carla")
    expect(rows.nth(1).get_by_test_id("audit-action")).to_have_text("edge.update")
    expect(rows.nth(1).get_by_test_id("audit-diff")).to_contain_text("weight 0.8 → 0.9")
    expect(rows.nth(1).get_by_test_id("undo")).to_have_count(0)
    screenshot(page, "audit.png")

    # A change lands after the page was drawn: its undo button is now refused, with the reason.
    answer = watcher.evaluate(SEND_JSON, ["PATCH", edge_url(group, edge_id), {"weight": 0.85}])
    assert answer["status"] == 200, answer
    rows.nth(0).get_by_test_id("undo").click()
    expect(page.get_by_test_id("undo-message")).to_contain_text("changed these items later")

    # Undo the latest change: the weight goes back to 0.9, and the watching page shows it without reloading.
    expect(watcher.get_by_test_id("edge-inspector").get_by_test_id("edge-weight")).to_have_text("0.85", timeout=LIVE_MS)
    page.reload()
    expect(rows).to_have_count(3)
    rows.nth(0).get_by_test_id("undo").click()
    expect(rows).to_have_count(4)
    expect(rows.nth(0).get_by_test_id("audit-action")).to_have_text("undo")
    expect(rows.nth(1).get_by_test_id("undone-by")).to_be_visible()
    assert watcher.evaluate(GET_JSON, edge_url(group, edge_id))["weight"] == 0.9
    expect(watcher.get_by_test_id("edge-inspector").get_by_test_id("edge-weight")).to_have_text("0.9", timeout=LIVE_MS)
    assert watcher.evaluate("window.__notReloaded")

    # Filtered to the item: its four entries; paged two at a time.
    page.goto(f"{daphne_url}/g/{group}/audit/?item_id={quote(edge_id, safe='')}&limit=2")
    expect(rows).to_have_count(2)
    page.get_by_test_id("audit-older").click()
    expect(rows).to_have_count(2)
    expect(rows.nth(1).get_by_test_id("audit-diff")).to_contain_text("weight 0.8 → 0.9")


def test_a_viewer_sees_no_editing_controls_and_cannot_write(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "viktor", PASSWORD)
    edge_id = open_graph_on_edge(page, daphne_url, group, memory)
    wait_live(page)
    # A curator, in another browser context, changes the edge: the viewer's inspector follows, still read-only.
    curator = page.context.browser.new_context(bypass_csp=True).new_page()
    sign_in(curator, daphne_url, "carla", PASSWORD)
    answer = curator.evaluate(SEND_JSON, ["PATCH", edge_url(group, edge_id), {"weight": 0.5}])
    assert answer["status"] == 200, answer
    curator.context.close()
    expect(page.get_by_test_id("edge-inspector").get_by_test_id("edge-weight")).to_have_text("0.5", timeout=LIVE_MS)
    expect(page.get_by_test_id("edge-curation")).to_have_count(0)
    expect(page.get_by_test_id("add-edge")).to_have_count(0)
    assert page.evaluate("JSON.parse(document.getElementById('curation-config').textContent).can_curate") is False

    page.goto(f"{daphne_url}/g/{group}/entities/{quote(memory['forecast'])}/")
    expect(page.get_by_test_id("entity-curation")).to_be_attached()
    expect(page.get_by_test_id("merge-query")).to_have_count(0)
    page.get_by_test_id("nav-audit").click()
    expect(page.get_by_test_id("audit-entry")).to_have_count(1)
    expect(page.get_by_test_id("audit-action")).to_have_text("edge.update")
    expect(page.get_by_test_id("undo")).to_have_count(0)

    # The viewer's own session, with a valid CSRF token: the server refuses for the role and writes nothing.
    answer = page.evaluate(SEND_JSON, ["PATCH", edge_url(group, edge_id), {"weight": 0.95}])
    assert answer["status"] == 403, answer
    assert "curator role" in answer["body"]["detail"]
    assert page.evaluate(GET_JSON, edge_url(group, edge_id))["weight"] == 0.5
