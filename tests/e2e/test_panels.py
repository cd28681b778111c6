"""Layouts that fit, in Chromium: at 800 px the graph, live and watch pages put the canvas first at full width
and the panels under it, with nothing scrolling sideways; at desktop width a side panel folds away, the canvas
(and the renderer's own canvases) take its room, the fold survives a reload, and unfolding gives it back. Readable
graphs: 36 communities get 36 colours, and only a small highlight forces every label on."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import sign_in
from tests.e2e.memory import warehouse_memory

PASSWORD = "correct horse battery staple"
BOX = (
    "(selector) => { const r = document.querySelector(selector).getBoundingClientRect(); return [r.width, r.height]; }"
)
RENDERER_WIDTH = "document.querySelector('.stage canvas.sigma-nodes').getBoundingClientRect().width"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = warehouse_memory(group)
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


def _pages(group: str, ids: dict[str, str]) -> list[str]:
    node = quote(ids["forecast"], safe="")
    return [f"/g/{group}/graph/?nodes={node}", f"/g/{group}/live/?seed={node}", f"/g/{group}/watch/"]


def test_at_800_px_the_canvas_comes_first_at_full_width(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    page.set_viewport_size({"width": 800, "height": 900})
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.wait_for_url(f"{daphne_url}/")
    for path in _pages(group, memory):
        page.goto(daphne_url + path)
        page.wait_for_load_state("networkidle")
        width, height = page.evaluate(BOX, ".graph-page .stage")
        assert width >= 780 and height >= 320, (path, width, height)
        stage_top = page.evaluate("document.querySelector('.graph-page .stage').getBoundingClientRect().top")
        controls_top = page.evaluate(
            "document.querySelector('.graph-page > aside.controls').getBoundingClientRect().top"
        )
        assert controls_top > stage_top, path
        assert page.evaluate("document.documentElement.scrollWidth") <= 800, path
        assert page.evaluate(RENDERER_WIDTH) >= 780, path


def test_a_side_panel_folds_the_canvas_grows_and_the_fold_is_remembered(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    graph = daphne_url + _pages(group, memory)[0]
    page.goto(graph)
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    before = page.evaluate(BOX, ".graph-page .stage")[0]
    fold = page.get_by_test_id("fold-controls")
    expect(fold).to_have_attribute("aria-expanded", "true")
    fold.click()
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(fold).to_have_text("Show controls")
    expect(page.get_by_test_id("graph-page").locator("aside.controls fieldset").first).to_be_hidden()
    page.wait_for_function(f"{RENDERER_WIDTH} > {before + 100}")
    wider = page.evaluate(BOX, ".graph-page .stage")[0]
    assert wider > before + 100

    page.reload()
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    expect(page.get_by_test_id("fold-controls")).to_have_attribute("aria-expanded", "false")
    assert page.evaluate(BOX, ".graph-page .stage")[0] == pytest.approx(wider, abs=2)

    page.get_by_test_id("fold-controls").click()
    page.wait_for_function(f"{RENDERER_WIDTH} < {before + 2}")
    assert page.evaluate(BOX, ".graph-page .stage")[0] == pytest.approx(before, abs=2)


COLOURS = """
async (count) => {
  const page = document.querySelector('script[type="module"][src*="graph_page"]').src;
  const { communityColour } = await import(new URL("graph_view.js", page).href);
  return Array.from({ length: count }, (_, n) => communityColour(`community-${n}`));
}
"""
FORCED = """
(count) => {
  const view = memoriaGraph.view;
  const ids = view.nodeIds().slice(0, count);
  view.highlight({ nodes: ids, edges: [] });
  const forced = ids.map((id) => Boolean(view.reduceNode(id, view.graph.getNodeAttributes(id)).forceLabel));
  view.clearHighlight();
  return forced;
}
"""


def test_communities_get_distinct_colours_and_big_highlights_leave_labels_to_the_grid(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.goto(daphne_url + _pages(group, memory)[0])
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    colours = page.evaluate(COLOURS, 36)
    assert len(set(colours)) == 36 and all(len(colour) == 7 and colour.startswith("#") for colour in colours)
    assert page.evaluate(COLOURS, 3) == colours[:3]  # a community keeps its colour
    page.goto(f"{daphne_url}/g/{group}/graph/?nodes={quote(memory['depot'], safe='')}")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    page.evaluate("(id) => memoriaGraph.expand(id)", memory["depot"])
    page.wait_for_function("memoriaGraph.view.counts().nodes > 45", timeout=20_000)
    assert page.evaluate(FORCED, 3) == [True, True, True]  # a path's few nodes all say their names
    assert not any(page.evaluate(FORCED, 45))  # a big highlight leaves labels to the renderer's grid
