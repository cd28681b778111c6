"""A curator's other actions in Chromium: add a fact between the path ends, invalidate it, delete it, then merge a
duplicate entity from an entity page while the duplicate's own page is open (it says where it went); the audit
page lists the four changes newest first."""

from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

from tests.e2e.browsing import sign_in
from tests.e2e.test_curation import FIRST_WRITE_MS, LIVE_MS, PASSWORD, memory, wait_live

__all__ = ["memory"]  # the fixture, shared with test_curation


def test_curator_adds_invalidates_and_deletes_a_fact_then_merges_entities(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "carla", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/graph/?nodes={quote(memory['expedite'])},{quote(memory['lyon'])}")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    expect(page.get_by_test_id("edge-count")).to_have_text("0")
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["expedite"])
    page.get_by_test_id("path-from-here").click()
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["lyon"])
    page.get_by_test_id("path-to-here").click()

    form = page.get_by_test_id("add-edge")
    form.get_by_test_id("new-relation").fill("ships_to")
    form.get_by_test_id("new-fact").fill("Expediting ships to Lyon")
    form.get_by_test_id("new-weight").fill("0.6")
    form.get_by_test_id("new-edge-save").click()
    expect(form.get_by_test_id("new-edge-status")).to_contain_text("Added (audit entry #", timeout=FIRST_WRITE_MS)
    expect(page.get_by_test_id("edge-count")).to_have_text("1")
    inspector = page.get_by_test_id("edge-inspector")
    expect(inspector.get_by_test_id("edge-relation")).to_have_text("ships_to")
    expect(inspector.get_by_test_id("edge-weight")).to_have_text("0.6")

    inspector.get_by_test_id("edge-invalidate").click()
    expect(inspector.get_by_test_id("curation-status")).to_contain_text("Invalidated (audit entry #")
    expect(inspector.locator(".badge.invalid")).to_be_visible()
    expect(inspector.get_by_test_id("edge-invalidate")).to_have_count(0)

    page.once("dialog", lambda dialog: dialog.accept())
    inspector.get_by_test_id("edge-delete").click()
    expect(inspector.get_by_test_id("edge-deleted")).to_have_text("Deleted.")
    expect(page.get_by_test_id("edge-count")).to_have_text("0")

    # Merge the supplier into Lyon while the supplier's page is open elsewhere.
    duplicate = page.context.new_page()
    duplicate.goto(f"{daphne_url}/g/{group}/entities/{quote(memory['aldana'])}/")
    wait_live(duplicate)
    page.goto(f"{daphne_url}/g/{group}/entities/{quote(memory['lyon'])}/")
    page.get_by_test_id("merge-query").fill("Aldana Safety supplier")
    page.get_by_test_id("merge-query").press("Enter")
    choice = page.get_by_test_id("merge-results").get_by_role("button", name="Merge “Aldana Safety supplier” into this")
    expect(choice).to_be_visible(timeout=FIRST_WRITE_MS)
    page.once("dialog", lambda dialog: dialog.accept())
    choice.click()
    expect(page.get_by_test_id("merge-status")).to_contain_text("Merged “Aldana Safety supplier” into this entity")
    # Its fact to the expediting action now ends at Lyon; the one between the two became a loop and went.
    expect(page.get_by_test_id("timeline")).to_contain_text("Expediting calls Aldana")
    expect(page.get_by_test_id("timeline")).not_to_contain_text("Aldana supplies Lyon")
    notice = duplicate.get_by_test_id("live-notice")
    expect(notice).to_contain_text("carla merged this entity into another", timeout=LIVE_MS)
    expect(notice.get_by_role("link", name="Open it")).to_have_attribute(
        "href", f"/g/{group}/entities/{quote(memory['lyon'], safe='')}/"
    )

    page.get_by_test_id("nav-audit").click()
    expect(page.get_by_test_id("audit-action")).to_have_text(
        ["entity.merge", "edge.delete", "edge.invalidate", "edge.create"]
    )
