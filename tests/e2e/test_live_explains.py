"""A live page that explains (issue 32, item 4), on the demo and its question "Why did stockouts hit Lyon?": the
paths ordered by energy, depth or reach (depth puts the causal chain stockout → supplier delay → customs hold →
port strike on top, where energy ranked it 14th of 36); labels that never overlap and a drawing that fits the canvas
after an Activation Energy and a PPR run; a picked path shown as a chain, one hop per step.

The labels are measured as the browser draws them: every fillText on the renderer's label and hover canvases is
recorded (text, place, the font's measured box) since that canvas was last cleared, whatever code drew it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.graph import driver
from memoria.graph.versions import group_stamps_delete
from tests.e2e.browsing import screenshot, sign_in
from tests.e2e.test_accessibility import _blocking

PASSWORD = "correct horse battery staple"
QUESTION = "Why did stockouts hit Lyon?"
CHAIN = ("Stockout of SKU-1042 in Lyon", "Supplier delay: ", "Customs hold on ", "Port strike delays ")
LIVE_ROOT = "document.querySelector('[data-live-root]').dataset"

# Each 2D canvas keeps the boxes of the text drawn on it since its last clear (sigma clears a layer from 0, 0 before
# drawing it again), measured with the context's own font, alignment and transform-free coordinates.
RECORD_TEXT = """
(() => {
  const proto = CanvasRenderingContext2D.prototype;
  const clear = proto.clearRect;
  const fill = proto.fillText;
  proto.clearRect = function (x, y, w, h) {
    if (x === 0 && y === 0) this.canvas.__texts = [];
    return clear.call(this, x, y, w, h);
  };
  proto.fillText = function (text, x, y, ...rest) {
    const m = this.measureText(text);
    (this.canvas.__texts = this.canvas.__texts || []).push({
      text: String(text), left: x - m.actualBoundingBoxLeft, right: x + m.actualBoundingBoxRight,
      top: y - m.actualBoundingBoxAscent, bottom: y + m.actualBoundingBoxDescent,
    });
    return fill.call(this, text, x, y, ...rest);
  };
})();
"""
DRAWN_LABELS = """
() => {
  const box = document.querySelector("[data-testid=live-canvas]");
  const texts = [...box.querySelectorAll("canvas.sigma-labels, canvas.sigma-hovers")].flatMap((c) => c.__texts || []);
  return {texts, width: box.clientWidth, height: box.clientHeight};
}
"""
NODES_ON_SCREEN = """
() => {
  const view = memoriaLive.live.view;
  return view.nodeIds().filter((id) => !view.isNodeHidden(id)).map((id) => ({id, ...view.viewportPosition(id)}));
}
"""
SETTLED = (
    "!memoriaLive.live.view.layoutRunning() && !memoriaLive.live.view.sigma.getCamera().isAnimated()"
    " && !memoriaLive.live.fitPending && !memoriaLive.ppr.fitPending"
)


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    """One embedded demo for the module (loading it takes a minute or more on two cores), deleted afterwards."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    call_command("load_demo", "--group", name, "--quiet", stdout=open("/dev/null", "w"))  # noqa: SIM115
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)
    group_stamps_delete(group=name)


@pytest.fixture
def analyst(transactional_db: None, demo: str) -> str:
    user_grant(username="analyst", role=Role.VIEWER, groups=[demo], password=PASSWORD)
    return demo


def run_question(page: Page, base: str, group: str, *, algorithm: str = "activation") -> None:
    page.goto(f"{base}/g/{group}/live/?q={quote(QUESTION)}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    page.get_by_test_id("pace").select_option("0")
    page.get_by_test_id("algorithm").select_option(algorithm)
    page.get_by_test_id("run").click()
    page.wait_for_function(f"{LIVE_ROOT}.liveState === 'finished'", timeout=120_000)


def listed_keys(page: Page) -> list[str]:
    return [item.get_attribute("data-key") for item in page.get_by_test_id("path-list").locator("li").all()]


def reach(path: dict, walked: set[tuple[str, str]]) -> int:
    """The definition (docs/explorer.md): the path's nodes and every node the run walked to in one hop from one of
    them, counted once."""
    on = set(path["nodes"])
    return len(on | {to for parent, to in walked if parent in on})


def test_paths_are_ordered_by_energy_depth_or_reach(page: Page, daphne_url: str, analyst: str) -> None:
    """Before: one order, the final energy, where the demo's causal chain ranked 14th of 36 under 1-hop trivia."""
    sign_in(page, daphne_url, "analyst", PASSWORD)
    run_question(page, daphne_url, analyst)
    paths = [item["path"] for item in page.evaluate("memoriaLive.live.run.paths")]
    assert len(paths) >= 20
    names = page.evaluate("Object.fromEntries([...memoriaLive.live.run.nodes].map(([id, n]) => [id, n.card.name]))")
    walked = {(path["nodes"][i], path["nodes"][i + 1]) for path in paths for i in range(path["depth"])}

    def key(path: dict) -> str:
        return "\u2192".join(path["nodes"])

    def chain_rank(keys: list[str]) -> int:
        for rank, listed in enumerate(keys):
            said = [names[node] for node in listed.split("\u2192")][: len(CHAIN)]
            if len(said) == len(CHAIN) and all(name.startswith(start) for name, start in zip(said, CHAIN, strict=True)):
                return rank
        raise AssertionError("the causal chain is not listed")

    order = page.get_by_test_id("path-order")
    expect(order).to_have_value("energy")
    by_energy = sorted(paths, key=lambda p: (-p["energy"], -p["depth"], key(p)))
    assert listed_keys(page) == [key(p) for p in by_energy]
    assert chain_rank(listed_keys(page)) > 5  # buried under shorter, stronger paths

    order.select_option("depth")
    by_depth = sorted(paths, key=lambda p: (-p["depth"], -p["energy"], key(p)))
    expect(page.get_by_test_id("path-list").locator("li").first).to_have_attribute("data-key", key(by_depth[0]))
    assert listed_keys(page) == [key(p) for p in by_depth]
    assert chain_rank(listed_keys(page)) == 0
    expect(page.get_by_test_id("path-list").locator("li").first).to_contain_text("4 hops")

    order.select_option("reach")
    by_reach = sorted(paths, key=lambda p: (-reach(p, walked), -p["energy"], key(p)))
    expect(page.get_by_test_id("path-list").locator("li").first).to_have_attribute("data-key", key(by_reach[0]))
    assert listed_keys(page) == [key(p) for p in by_reach]
    shown = [int(item.get_attribute("data-reach")) for item in page.get_by_test_id("path-list").locator("li").all()]
    assert shown == [reach(p, walked) for p in by_reach] and shown[0] > shown[-1]


def settled_labels(page: Page) -> dict:
    page.wait_for_function(SETTLED, timeout=20_000)
    page.wait_for_timeout(400)  # a frame or two after the camera stopped
    page.wait_for_function(SETTLED, timeout=20_000)
    return page.evaluate(DRAWN_LABELS)


def overlapping(texts: list[dict]) -> list[tuple[str, str]]:
    pairs = []
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            if a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]:
                pairs.append((a["text"], b["text"]))
    return pairs


def assert_fitted_without_overlap(page: Page, *, least_labels: int) -> dict:
    drawn = settled_labels(page)
    texts = drawn["texts"]
    assert len(texts) >= least_labels, texts
    assert overlapping(texts) == []
    for text in texts:
        assert text["left"] >= 0 and text["right"] <= drawn["width"], text
        assert text["top"] >= 0 and text["bottom"] <= drawn["height"], text
    nodes = page.evaluate(NODES_ON_SCREEN)
    assert nodes
    for node in nodes:
        assert 0 <= node["x"] <= drawn["width"] and 0 <= node["y"] <= drawn["height"], (node, drawn)
    return drawn


def test_labels_never_overlap_and_the_drawing_fits_after_a_run(page: Page, daphne_url: str, analyst: str) -> None:
    """Before: the finished drawing of the demo question was a pile of overlapping labels, some off the canvas."""
    page.context.add_init_script(RECORD_TEXT)
    sign_in(page, daphne_url, "analyst", PASSWORD)
    run_question(page, daphne_url, analyst)
    drawn = assert_fitted_without_overlap(page, least_labels=8)

    # Past the density where they would touch, the weaker nodes keep their labels for the pointer: hovering one
    # draws its label.
    shown = {text["text"] for text in drawn["texts"]}
    unlabelled = page.evaluate(
        """(shown) => {
          const view = memoriaLive.live.view;
          const label = (id) => view.sigma.getNodeDisplayData(id).label;
          return view.nodeIds().map((id) => ({id, label: label(id), ...view.viewportPosition(id)}))
            .filter((node) => node.label && !shown.some((text) => text === node.label
              || (text.endsWith("\u2026") && node.label.startsWith(text.slice(0, -1)))));
        }""",
        sorted(shown),
    )
    assert unlabelled, "the demo run is dense enough that some labels wait for the pointer"
    target = unlabelled[0]
    box = page.get_by_test_id("live-canvas").bounding_box()
    page.mouse.move(box["x"] + target["x"], box["y"] + target["y"])
    page.wait_for_function(
        "(label) => [...document.querySelectorAll('[data-testid=live-canvas] canvas.sigma-hovers')]"
        ".some((c) => (c.__texts || []).some((t) => t.text === label))",
        arg=target["label"],
        timeout=5_000,
    )
    page.mouse.move(box["x"] + 4, box["y"] + box["height"] - 4)  # a corner inside the stage's padding: no node
    page.mouse.move(box["x"] - 40, box["y"] + 10)  # and off the canvas

    # A PPR run of the same question: framed and readable too.
    page.get_by_test_id("algorithm").select_option("ppr")
    page.get_by_test_id("run").click()
    page.wait_for_function(
        f"{LIVE_ROOT}.liveState === 'finished'"
        " && /^[0-9]+$/.test(document.querySelector('[data-testid=ppr-ranked]').dataset.edges || '')",
        timeout=120_000,
    )
    assert_fitted_without_overlap(page, least_labels=5)


def test_a_picked_path_is_shown_as_a_chain(page: Page, daphne_url: str, analyst: str) -> None:
    """Before: picking a path only highlighted it in the tangle."""
    page.context.add_init_script(RECORD_TEXT)
    sign_in(page, daphne_url, "analyst", PASSWORD)
    run_question(page, daphne_url, analyst)
    page.get_by_test_id("path-order").select_option("depth")
    first = page.get_by_test_id("path-list").locator("li").first
    key = first.get_attribute("data-key")
    path = page.evaluate(
        "(key) => memoriaLive.live.run.paths.map((item) => item.path).find((p) => p.nodes.join('\u2192') === key)", key
    )
    first.locator("button").first.click()

    chain = page.get_by_test_id("path-chain")
    expect(chain).to_be_visible()
    steps = chain.get_by_test_id("chain-node")
    hops = chain.get_by_test_id("chain-hop")
    expect(steps).to_have_count(path["depth"] + 1)
    expect(hops).to_have_count(path["depth"])
    assert [step.get_attribute("data-node") for step in steps.all()] == path["nodes"]
    for said, start in zip([step.inner_text() for step in steps.all()], CHAIN, strict=False):
        assert said.startswith(start), (said, start)
    for shown, hop in zip(hops.all(), path["hops"], strict=True):
        assert shown.get_attribute("data-relation") == hop["relation"]
        assert float(shown.get_attribute("data-energy")) == hop["transfer_energy"]
        expect(shown).to_contain_text(hop["relation"])
    assert [hop.get_attribute("data-relation") for hop in hops.all()][:3] == ["caused_by"] * 3

    # Left to right, one hop per step: node, hop, node, … each starting past the one before.
    lefts = []
    for index in range(path["depth"] + 1):
        lefts.append(steps.nth(index).evaluate("(e) => e.getBoundingClientRect().left + e.parentElement.scrollLeft"))
        if index < path["depth"]:
            lefts.append(hops.nth(index).evaluate("(e) => e.getBoundingClientRect().left + e.parentElement.scrollLeft"))
    assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts)
    # In the drawing below the chain every node of the path says its name (cut with an ellipsis past 36
    # characters), placed before any other label.
    drawn = settled_labels(page)
    assert overlapping(drawn["texts"]) == []
    names = page.evaluate("(ids) => ids.map((id) => memoriaLive.live.run.name(id))", path["nodes"])
    said = {text["text"] for text in drawn["texts"]}
    for name in names:
        assert name in said or any(
            text.endswith("…") and name.startswith(text[:-1]) and len(text) <= 36 for text in said
        ), (name, said)
    screenshot(page, "live-path-chain.png")
    for scheme in ("dark", "light"):  # axe: nothing serious or critical with the chain open, in either theme
        page.emulate_media(color_scheme=scheme)
        assert _blocking(page) == [], scheme
    # The chain is the picked path highlighted in the drawing too; closing it clears both.
    assert page.evaluate("[...memoriaLive.live.view.highlighted.nodes]") == path["nodes"]
    chain.get_by_role("button", name="close").click()
    expect(chain).to_be_hidden()
    assert page.evaluate("memoriaLive.live.view.highlighted") is None
