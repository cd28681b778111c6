"""The graph page's view in the URL and saved views, in Chromium against daphne: expanding nodes and filtering
write history entries that back and forward restore; the URL reloaded in a fresh page (another user of the group)
draws the same view; a curator saves a view shared with the group, a viewer opens it from the Views menu, and the
group's default view opens when the URL holds none. The live page keeps its run in the URL and re-runs it."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import sign_in
from tests.e2e.live_memory import QUERY_TAGS, live_memory
from tests.e2e.memory import warehouse_memory
from tests.e2e.test_explorer import open_graph
from tests.e2e.test_live import open_live, wait_finished

PASSWORD = "correct horse battery staple"
VIEW = """() => {
  const state = memoriaGraph.captureState();
  return {nodes: [...state.nodes].sort(), expanded: [...state.expanded].sort(), hidden: state.hidden,
    categories: state.categories, sel: state.sel, shown: memoriaGraph.view.counts().nodes};
}"""


@pytest.fixture
def memory(transactional_db: None, group: str) -> Iterator[dict[str, str]]:
    ids = warehouse_memory(group)
    for name, role in (("cora", Role.CURATOR), ("vic", Role.VIEWER)):
        user_grant(username=name, role=role, groups=[group], password=PASSWORD)
    yield ids


def ready(page: Page) -> None:
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)


def url_state(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query, keep_blank_values=True)


def expand_from_panel(page: Page, node: str) -> None:
    """Open a loaded node's panel and press Expand, as a person does after clicking it."""
    page.evaluate("(id) => memoriaGraph.openNode(id)", node)
    page.get_by_test_id("expand").click()
    page.wait_for_function("(id) => new URL(location.href).searchParams.get('expanded').includes(id)", arg=node)


def test_back_forward_and_a_copied_url_restore_the_view(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "vic", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    first = page.evaluate(VIEW)
    assert url_state(page)["expanded"] == [memory["forecast"]] and first["sel"] == memory["forecast"]
    assert set(url_state(page)["nodes"][0].split(",")) == set(first["nodes"])

    neighbour = next(node for node in first["nodes"] if node in (memory["aldana"], memory["erp"], memory["stockout"]))
    expand_from_panel(page, neighbour)
    second = page.evaluate(VIEW)
    assert len(second["nodes"]) > len(first["nodes"]) and neighbour in second["expanded"]

    page.get_by_test_id("category-CAUSALITY").uncheck()
    page.wait_for_function("new URL(location.href).searchParams.has('cat')")
    third = page.evaluate(VIEW)
    assert "CAUSALITY" not in third["categories"]

    page.go_back()
    ready(page)
    page.wait_for_function("!new URL(location.href).searchParams.has('cat')")
    ready(page)
    assert page.evaluate(VIEW) == second
    expect(page.get_by_test_id("category-CAUSALITY")).to_be_checked()

    page.go_back()
    page.wait_for_function("!new URL(location.href).searchParams.get('expanded').includes(',')")
    ready(page)
    assert page.evaluate(VIEW)["nodes"] == first["nodes"]

    page.go_forward()
    page.wait_for_function("new URL(location.href).searchParams.get('expanded').includes(',')")
    ready(page)
    assert page.evaluate(VIEW) == second
    page.go_forward()
    page.wait_for_function("new URL(location.href).searchParams.has('cat')")
    ready(page)
    assert page.evaluate(VIEW) == third

    # The link, opened by another user of the group in a browser of their own, draws the same view.
    link = page.url
    other = page.context.browser.new_context(bypass_csp=True).new_page()
    sign_in(other, daphne_url, "cora", PASSWORD)
    other.goto(link)
    ready(other)
    assert other.evaluate(VIEW) == third
    expect(other.get_by_test_id("category-CAUSALITY")).not_to_be_checked()
    other.context.close()


def test_a_shared_view_opens_for_another_user_and_the_default_opens_an_empty_url(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "cora", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['lyon'], safe='')}")
    saved = page.evaluate(VIEW)
    page.get_by_test_id("views-menu").locator("summary").click()
    page.get_by_test_id("view-name").fill("Lyon and its suppliers")
    page.get_by_test_id("view-share-new").check()
    page.get_by_test_id("view-save").click()
    expect(page.get_by_test_id("views-status")).to_contain_text("shared with the group")
    expect(page.get_by_test_id("view-item")).to_have_count(1)
    # The same name again is refused, the message names the field, and the typed name stays.
    page.get_by_test_id("view-name").fill("Lyon and its suppliers")
    page.get_by_test_id("view-save").click()
    expect(page.get_by_test_id("views-status")).to_contain_text("name: you already have a view named")
    expect(page.get_by_test_id("view-name")).to_have_value("Lyon and its suppliers")

    viewer = page.context.browser.new_context(bypass_csp=True).new_page()
    sign_in(viewer, daphne_url, "vic", PASSWORD)
    open_graph(viewer, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    viewer.get_by_test_id("views-menu").locator("summary").click()
    item = viewer.get_by_test_id("view-item")
    expect(item).to_contain_text("shared by cora")
    expect(item.get_by_test_id("view-rename")).to_have_count(0)  # not theirs: open only
    expect(item.get_by_test_id("view-set-default")).to_have_count(0)
    item.get_by_test_id("view-open").click()
    expect(viewer.get_by_test_id("views-status")).to_contain_text("Opened")
    ready(viewer)
    assert viewer.evaluate(VIEW) == saved
    viewer.go_back()  # opening a view is a step in the history like any other
    viewer.wait_for_function("new URL(location.href).searchParams.get('sel') !== null")
    ready(viewer)
    assert viewer.evaluate("memoriaGraph.captureState().sel") == memory["forecast"]

    # The curator makes it the group's default: the viewer's bare graph URL opens it.
    page.get_by_test_id("view-set-default").click()
    expect(page.get_by_test_id("view-default")).to_be_visible()
    viewer.goto(f"{daphne_url}/g/{group}/graph/")
    ready(viewer)
    expect(viewer.get_by_test_id("views-status")).to_contain_text("default view “Lyon and its suppliers”")
    assert viewer.evaluate(VIEW) == saved
    assert url_state(viewer)["expanded"] == [memory["lyon"]]

    # The owner renames and deletes it; then the bare URL opens the group's first view (explorer/first_view.py).
    page.get_by_test_id("view-rename").click()
    page.get_by_test_id("view-rename-input").fill("Lyon")
    page.get_by_test_id("view-rename-save").click()
    expect(page.get_by_test_id("view-open")).to_have_text("Lyon")
    page.get_by_test_id("view-delete").click()
    page.get_by_test_id("view-delete").click()  # "Really delete"
    expect(page.get_by_test_id("view-item")).to_have_count(0)
    viewer.goto(f"{daphne_url}/g/{group}/graph/")
    ready(viewer)
    expect(viewer.get_by_test_id("start-view")).to_be_visible()
    assert url_state(viewer)["nodes"][0].split(",")[0] == memory["depot"]
    viewer.context.close()


def test_the_live_page_keeps_its_run_in_the_url_and_a_link_reruns_it(
    page: Page, daphne_url: str, group: str, transactional_db: None
) -> None:
    ids = live_memory(group)
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    open_live(page, daphne_url, group, ids["request"], pace="0")  # signs in as the planner
    page.get_by_test_id("min-activation").fill("0.02")
    page.get_by_test_id("run").click()
    first = wait_finished(page)
    state = url_state(page)
    assert state["seed"] == [ids["request"]] and state["min_activation"] == ["0.02"] and state["run"] == ["1"]
    assert state["tags"] == [", ".join(QUERY_TAGS)] and state["algorithm"] == ["activation"]
    body = page.evaluate("memoriaLive.requestBody()")

    page.get_by_test_id("max-depth").fill("2")
    page.get_by_test_id("run").click()
    wait_finished(page, first)
    assert url_state(page)["max_depth"] == ["2"]

    page.go_back()  # the run before: its settings, run again
    page.wait_for_function("new URL(location.href).searchParams.get('max_depth') !== '2'")
    expect(page.get_by_test_id("max-depth")).not_to_have_value("2")
    wait_finished(page)

    # The link in a fresh page fills the form the same way and runs at once.
    other = page.context.browser.new_context(bypass_csp=True).new_page()
    sign_in(other, daphne_url, "planner", PASSWORD)
    other.goto(page.url)
    other.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    wait_finished(other)
    assert other.evaluate("memoriaLive.requestBody()") == body
    other.context.close()


def test_a_link_redoes_the_last_path_and_long_views_are_cut_with_a_note(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "vic", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    page.evaluate("(id) => memoriaGraph.setPathEnd('to', id)", memory["lyon"])
    page.get_by_test_id("path-from-here").click()  # the open node: the forecast request
    page.get_by_test_id("path-strongest").click()
    expect(page.get_by_test_id("path-summary")).to_contain_text("strongest")
    state = url_state(page)
    assert state["action"] == ["path"] and state["mode"] == ["strongest"]
    assert (state["from"], state["to"]) == ([memory["forecast"]], [memory["lyon"]])
    drawn = page.evaluate("[...memoriaGraph.view.highlighted.nodes]")
    assert drawn == [memory["forecast"], memory["erp"], memory["aldana"], memory["lyon"]]

    fresh = page.context.new_page()
    fresh.goto(page.url)
    ready(fresh)
    assert fresh.evaluate("[...memoriaGraph.view.highlighted.nodes]") == drawn
    expect(fresh.get_by_test_id("path-summary")).to_contain_text("strongest")
    expect(fresh.get_by_test_id("path-to")).to_have_text("Lyon warehouse")

    # Past the caps the link keeps the first 150 nodes and the page says so under the Views menu.
    cut = fresh.evaluate(
        """async () => {
          const {encodeState, decodeState, emptyState, NODE_CAP} = await import('/static/explorer/js/view_state.js');
          const state = {...emptyState(), nodes: Array.from({length: 400}, (_, i) => `${'n'.repeat(10)}-${i}`)};
          const {query, truncated} = encodeState(state);
          const long = encodeState({...state, nodes: state.nodes.map((id) => id.repeat(8))});
          return {truncated, kept: decodeState(query).nodes.length, cap: NODE_CAP,
            longKept: decodeState(long.query).nodes.length, longLength: long.query.length};
        }"""
    )
    assert cut["truncated"] and cut["kept"] == cut["cap"] == 150
    assert cut["longKept"] < 150 and cut["longLength"] <= 7000
    expect(fresh.get_by_test_id("url-cut")).to_be_hidden()
