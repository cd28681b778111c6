"""The graph page's view tools in Chromium against daphne: the camera fits the shown nodes after an action that
adds nodes (not after a mere selection); shift+click and the node panel's button build a selection that is hidden,
pinned or expanded at once; Ctrl+Z and Ctrl+Shift+Z (and the buttons) undo and redo what changed the nodes shown.
On the live page a PPR answer is drawn with the facts among its ranked nodes."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.projection.cache import projection_cache
from tests.e2e import test_graph_ppr
from tests.e2e.browsing import sign_in
from tests.e2e.test_explorer import PASSWORD, click_at, open_graph, settle
from tests.e2e.test_live import wait_finished
from tests.projection.graphs import random_memory, store

RATIO = "memoriaGraph.view.sigma.getCamera().ratio"
ZOOMED = "memoriaGraph.view.sigma.getCamera().setState({x: 0.9, y: 0.1, ratio: 0.15, angle: 0})"
SHOWN = "memoriaGraph.view.counts().nodes"
UNDO_DEPTH = "document.body.dataset.undoDepth"

memory = test_graph_ppr.memory  # the warehouse memory and a viewer, the planner


def ready(page: Page) -> None:
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)


def open_forecast(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    settle(page)


def shift_click_node(page: Page, node_id: str) -> None:
    settle(page)
    position = page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", node_id)
    page.keyboard.down("Shift")
    click_at(page, position)
    page.keyboard.up("Shift")


def test_the_camera_fits_after_adding_nodes_not_after_a_selection(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_forecast(page, daphne_url, memory, group)
    page.wait_for_function(f"Math.abs({RATIO} - 1) < 0.01")  # the opened view was fitted

    # A selection (the panel of a node already expanded, or not) leaves the camera where the user put it.
    page.evaluate(ZOOMED)
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["erp"])
    expect(page.get_by_test_id("node-panel")).to_contain_text("ERP sales orders")
    page.wait_for_timeout(700)
    assert page.evaluate(RATIO) == pytest.approx(0.15)

    # Expanding adds nodes: the camera comes back to all the shown nodes, animated.
    before = page.evaluate(SHOWN)
    page.get_by_test_id("expand").click()
    page.wait_for_function(f"{SHOWN} > {before}")
    page.wait_for_function(f"Math.abs({RATIO} - 1) < 0.01", timeout=10_000)

    # With nodes hidden the fit frames the shown ones (their bounding box): every shown node in sight.
    page.evaluate(ZOOMED)
    page.evaluate(
        "(keep) => memoriaGraph.view.hideNodes(memoriaGraph.view.nodeIds().filter((id) => !keep.includes(id)))",
        [memory["forecast"], memory["erp"], memory["aldana"]],
    )
    page.evaluate("(id) => memoriaGraph.expand(id)", memory["aldana"])
    page.wait_for_function(f"{RATIO} > 0.15", timeout=10_000)
    settle(page)  # stopping the layout fits again, animated: measure once that animation has ended
    page.wait_for_function("!memoriaGraph.view.sigma.getCamera().isAnimated()", timeout=10_000)
    box = page.get_by_test_id("graph-canvas").bounding_box()
    for node in page.evaluate("memoriaGraph.view.nodeIds().filter((id) => !memoriaGraph.view.isNodeHidden(id))"):
        spot = page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", node)
        assert 0 <= spot["x"] <= box["width"] and 0 <= spot["y"] <= box["height"], node


def test_a_selection_is_hidden_pinned_and_expanded_at_once_and_undone(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_forecast(page, daphne_url, memory, group)
    selection = page.get_by_test_id("selection")
    expect(page.get_by_test_id("bulk-hide")).to_be_disabled()
    expect(page.get_by_test_id("undo")).to_be_disabled()

    # Shift+click adds to the selection without opening or expanding; the panel's button does it by keyboard.
    shown = page.evaluate(SHOWN)
    shift_click_node(page, memory["erp"])
    shift_click_node(page, memory["stockout"])
    expect(page.get_by_test_id("selection-summary")).to_have_text("2 nodes selected")
    assert page.evaluate(SHOWN) == shown
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["forecast"])
    toggle = page.get_by_test_id("select-toggle")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("selection-summary")).to_have_text("3 nodes selected")
    expect(toggle).to_have_text("Remove from selection")
    expect(selection.get_by_test_id("selection-list").locator("li")).to_have_count(3)
    marked = sorted([memory["erp"], memory["stockout"], memory["forecast"]])
    assert sorted(page.evaluate("[...memoriaGraph.view.marked]")) == marked
    # Drawn clearly: ticked, larger and labelled.
    drawn = page.evaluate(
        "(id) => { const v = memoriaGraph.view; return [v.reduceNode(id, v.graph.getNodeAttributes(id)), "
        "v.graph.getNodeAttribute(id, 'size')]; }",
        memory["erp"],
    )
    assert drawn[0]["label"].startswith("✓") and drawn[0]["forceLabel"] and drawn[0]["size"] > drawn[1]

    # Pin all three: one step that Ctrl+Z undoes.
    page.get_by_test_id("bulk-pin").click()
    page.wait_for_function(f"{UNDO_DEPTH} === '1'")
    assert all(page.evaluate("(id) => memoriaGraph.view.isPinned(id)", node) for node in marked)

    # Hide all three: three fewer nodes shown, and the URL says so.
    page.get_by_test_id("bulk-hide").click()
    page.wait_for_function(f"{SHOWN} === {shown - 3}")
    page.wait_for_function(f"{UNDO_DEPTH} === '2'")
    assert sorted(page.evaluate("memoriaGraph.captureState().hidden")) == marked
    expect(page.get_by_test_id("selection-summary")).to_contain_text("None")

    # Ctrl+Z brings them back (pinned, and selected as before the hiding); Ctrl+Shift+Z hides them again.
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+z")
    page.wait_for_function(f"{SHOWN} === {shown} && document.body.dataset.graphReady === 'true'")
    assert page.evaluate("memoriaGraph.captureState().hidden") == []
    assert "hidden" not in page.url
    assert all(page.evaluate("(id) => memoriaGraph.view.isPinned(id)", node) for node in marked)
    expect(page.get_by_test_id("selection-summary")).to_have_text("3 nodes selected")
    expect(page.get_by_test_id("redo")).to_be_enabled()
    page.keyboard.press("Control+Shift+Z")
    page.wait_for_function(f"{SHOWN} === {shown - 3} && document.body.dataset.graphReady === 'true'")
    # The Undo button twice: back past the hiding and the pinning.
    page.get_by_test_id("undo").click()
    page.wait_for_function(f"{SHOWN} === {shown} && {UNDO_DEPTH} === '1'")
    ready(page)
    page.get_by_test_id("undo").click()
    page.wait_for_function(f"{UNDO_DEPTH} === '0'")
    ready(page)
    assert not any(page.evaluate("(id) => memoriaGraph.view.isPinned(id)", node) for node in marked)
    expect(page.get_by_test_id("undo")).to_be_disabled()

    # Expand all of the selection: the neighbours of each come in; undo takes them away again.
    page.get_by_test_id("bulk-expand").click()
    page.wait_for_function(f"{SHOWN} > {shown} && {UNDO_DEPTH} === '1'")
    expanded = page.evaluate("memoriaGraph.captureState().expanded")
    assert set(marked) <= set(expanded)
    assert page.evaluate("(id) => memoriaGraph.view.hasNode(id)", memory["aldana"])  # the ERP's neighbour
    page.keyboard.press("Control+z")
    page.wait_for_function(f"{SHOWN} === {shown} && {UNDO_DEPTH} === '0'")
    ready(page)


def test_dropping_a_dragged_node_pins_it_and_undo_unpins_it(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_forecast(page, daphne_url, memory, group)
    box = page.get_by_test_id("graph-canvas").bounding_box()
    spot = page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", memory["erp"])
    page.mouse.move(box["x"] + spot["x"], box["y"] + spot["y"])
    page.mouse.down()
    page.mouse.move(box["x"] + spot["x"] + 40, box["y"] + spot["y"] + 30, steps=5)
    page.mouse.up()
    page.wait_for_function(f"{UNDO_DEPTH} === '1'")
    assert page.evaluate("(id) => memoriaGraph.view.isPinned(id)", memory["erp"])
    page.keyboard.press("Control+z")
    page.wait_for_function(f"{UNDO_DEPTH} === '0'")
    ready(page)
    assert not page.evaluate("(id) => memoriaGraph.view.isPinned(id)", memory["erp"])


def test_undo_and_redo_an_expansion_with_the_keyboard(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['lyon'], safe='')}")
    first = sorted(page.evaluate("memoriaGraph.view.nodeIds()"))
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["aldana"])
    page.get_by_test_id("expand").click()
    page.wait_for_function(f"{UNDO_DEPTH} === '1'")
    second = sorted(page.evaluate("memoriaGraph.view.nodeIds()"))
    assert len(second) > len(first)
    page.get_by_test_id("expand-more").press("Control+z")  # the panel redrawn: its "More" button has the focus
    page.wait_for_function(f"{UNDO_DEPTH} === '0'")
    ready(page)
    assert sorted(page.evaluate("memoriaGraph.view.nodeIds()")) == first
    assert memory["aldana"] not in page.url.split("expanded=")[1].split("&")[0].replace("%2F", "/")
    # Typing in a text box, Ctrl+Z is the box's own.
    box = page.locator("[data-add-search] input[name=q]")
    box.fill("x")
    box.press("Control+Shift+Z")
    page.wait_for_timeout(300)
    assert page.evaluate(UNDO_DEPTH) == "0"
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+Shift+Z")
    page.wait_for_function(f"{UNDO_DEPTH} === '1'")
    ready(page)
    assert sorted(page.evaluate("memoriaGraph.view.nodeIds()")) == second


def test_a_live_ppr_answer_is_drawn_with_the_facts_among_its_nodes(
    page: Page, daphne_url: str, group: str, transactional_db: None
) -> None:
    store(group, random_memory(group, entities=30, episodes=4, facts=90, seed=2))
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    sign_in(page, daphne_url, "planner", PASSWORD)
    seed = f"{group}-e1"
    page.goto(f"{daphne_url}/g/{group}/live/?seed={quote(seed, safe='')}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    page.get_by_test_id("algorithm").select_option("ppr")
    page.get_by_test_id("ppr-top-k").fill("12")
    page.get_by_test_id("rerun").uncheck()
    page.get_by_test_id("run").click()
    wait_finished(page)
    page.wait_for_function("document.querySelector('[data-testid=ppr-ranked]').dataset.edges > 0", timeout=20_000)
    drawn = sorted(page.evaluate("memoriaLive.live.view.nodeIds()"))
    ids = ",".join(quote(node, safe="") for node in drawn)
    among = page.evaluate(
        test_graph_ppr.GET_JSON,
        f"/api/groups/{group}/subgraph?ids={ids}",
    )
    assert among["edges"], "the seed's neighbourhood has facts among its best-ranked nodes"
    edges = page.evaluate("memoriaLive.live.view.graph.edges()")
    assert sorted(edges) == sorted(edge["id"] for edge in among["edges"])
    assert page.evaluate("memoriaLive.live.view.counts().edges") == len(edges)
    projection_cache().forget(group)


SIZES = """() => { const v = memoriaGraph.view;
  return Object.fromEntries(v.nodeIds().map((id) => [id, v.reduceNode(id, v.graph.getNodeAttributes(id)).size])); }"""
EDGE_SIZES = """() => { const v = memoriaGraph.view;
  return [...new Set(v.graph.edges().map((id) => v.reduceEdge(id, v.graph.getEdgeAttributes(id)).size))]; }"""


def test_the_style_control_sizes_colours_and_says_so_in_the_legend(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_forecast(page, daphne_url, memory, group)
    size_legend = page.get_by_test_id("style-size")
    expect(size_legend).to_contain_text("PPR score once a run is shown; now how many facts a node has")
    expect(page.get_by_test_id("style-colour")).to_contain_text("kind")
    expect(page.get_by_test_id("style-width")).to_contain_text("wider for a greater fact weight")
    assert len(page.evaluate(EDGE_SIZES)) > 1

    # Uniform: every node one size, the legend and the URL say so; the keyboard reaches the control.
    control = page.get_by_test_id("size-mode")
    control.focus()
    control.select_option("uniform")
    expect(size_legend).to_have_text("Size: the same for every node.")
    assert len(set(page.evaluate(SIZES).values())) == 1
    page.wait_for_function("new URL(location.href).searchParams.get('size') === 'uniform'")

    # Links one width; colour by community.
    page.get_by_test_id("edge-width-weight").uncheck()
    expect(page.get_by_test_id("style-width")).to_contain_text("all one width")
    assert len(page.evaluate(EDGE_SIZES)) == 1
    page.get_by_test_id("colour-community").check()
    expect(page.get_by_test_id("style-colour")).to_contain_text("community")

    # A PPR run: sized by score in the "score" mode (the best the largest), by degree in the "degree" mode.
    control.select_option("score")
    page.get_by_test_id("ppr-seed").click()  # the forecast request, whose panel is open
    page.get_by_test_id("ppr-top-k").fill("6")
    page.get_by_test_id("ppr-run").click()
    page.wait_for_function("document.querySelector('[data-ppr-ranked]').dataset.runs === '1'", timeout=60_000)
    expect(size_legend).to_contain_text("Size: PPR score (log scale")
    scores = page.evaluate("memoriaGraph.ppr.lastAnswer.scores")
    sizes = page.evaluate(SIZES)
    assert max((node["id"] for node in scores), key=sizes.get) == scores[0]["id"]
    control.select_option("degree")
    expect(size_legend).to_contain_text("Size: how many facts a node has")
    degrees = page.evaluate("memoriaGraph.view.nodeIds().map((id) => [id, memoriaGraph.view.node(id).degree])")
    sizes = page.evaluate(SIZES)
    biggest = max(degrees, key=lambda pair: pair[1])
    assert sizes[biggest[0]] == max(sizes.values())

    # The link keeps the style: a fresh page draws it the same way.
    page.wait_for_function("new URL(location.href).searchParams.get('size') === 'degree'")
    fresh = page.context.new_page()
    fresh.goto(page.url)
    ready(fresh)
    expect(fresh.get_by_test_id("size-mode")).to_have_value("degree")
    expect(fresh.get_by_test_id("edge-width-weight")).not_to_be_checked()
    expect(fresh.get_by_test_id("colour-community")).to_be_checked()
    expect(fresh.get_by_test_id("style-width")).to_contain_text("all one width")
    fresh.close()


# What sticks out of the graph page's left column, and the radio or checkbox labels split over two lines.
OVERFLOW = """() => {
  const column = document.querySelector(".graph-page > aside.controls").getBoundingClientRect();
  const out = [...document.querySelectorAll(".graph-page > aside.controls *")]
    .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > column.right + 1)
    .map((el) => el.outerHTML.slice(0, 80));
  const split = [...document.querySelectorAll(".graph-page > aside.controls label.inline")]
    .filter((label) => label.getClientRects().length && label.querySelector("input[type=radio]"))
    .filter((label) => label.getClientRects().length > 1)
    .map((label) => label.textContent.trim());
  return { out, split };
}"""


def test_the_left_column_holds_a_long_view_name_the_style_select_and_its_radios(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before (issue 32): a long view name ran out of the column, the Style select overflowed it, and the "Colour
    by" radios split from their words."""
    user_grant(username="namer", role=Role.CURATOR, groups=[group], password=PASSWORD)
    sign_in(page, daphne_url, "namer", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    page.get_by_test_id("views-menu").locator("summary").click()
    page.get_by_test_id("view-name").fill("Lyon" + "x" * 96)
    page.get_by_test_id("view-save").click()
    expect(page.get_by_test_id("view-open")).to_have_count(1)
    assert page.evaluate(OVERFLOW) == {"out": [], "split": []}


def test_links_shown_are_the_same_after_an_undo_a_redo_and_a_reload(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before (issue 32) a restored view drew every fact among its nodes while an expansion drew only the facts among
    its own page: ERP orders (the forecast's neighbour) → Aldana (Lyon's) appeared only after an undo, a redo or a
    reload (41 nodes / 49 links became 41 / 54 on the demo)."""
    open_forecast(page, daphne_url, memory, group)
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["stockout"])
    page.get_by_test_id("expand").click()  # brings Lyon
    page.wait_for_function(f"{UNDO_DEPTH} === '1'")
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    links_before = page.get_by_test_id("edge-count").inner_text()
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["lyon"])
    page.get_by_test_id("expand").click()  # Lyon's neighbours, Aldana among them
    page.wait_for_function(f"{UNDO_DEPTH} === '2'")
    assert page.evaluate("(id) => memoriaGraph.view.hasNode(id)", memory["aldana"])
    nodes, links = page.get_by_test_id("node-count").inner_text(), page.get_by_test_id("edge-count").inner_text()

    page.locator("body").click(position={"x": 5, "y": 300})  # out of the panel's buttons, redrawn by the undo
    page.keyboard.press("Control+z")
    page.wait_for_function(f"{UNDO_DEPTH} === '1'")
    ready(page)
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    expect(page.get_by_test_id("edge-count")).to_have_text(links_before)
    page.keyboard.press("Control+Shift+Z")
    page.wait_for_function(f"{UNDO_DEPTH} === '2'")
    ready(page)
    expect(page.get_by_test_id("node-count")).to_have_text(nodes)
    expect(page.get_by_test_id("edge-count")).to_have_text(links)
    page.reload()
    ready(page)
    expect(page.get_by_test_id("node-count")).to_have_text(nodes)
    expect(page.get_by_test_id("edge-count")).to_have_text(links)
    lists = "([a, b]) => memoriaGraph.view.edgesOf(a).some((e) => e.source === a && e.target === b)"
    assert page.evaluate(lists, [memory["erp"], memory["aldana"]])  # the fact between two expansions' nodes
