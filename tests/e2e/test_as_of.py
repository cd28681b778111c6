"""The as-of control in Chromium against daphne: on the graph page, moving the moment before a fact began hides
its edge, keeps the moment in the URL, and expansions at that moment do not load it; on the live page, a
retrieval at that moment does not walk it (as the REST answer at that moment), and back at now it does; a fact a
curator invalidates is left out of the next run, and moving the moment back before the invalidation brings it."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.graph import driver
from memoria.graph.asof import AsOf
from tests.browse.graphs import entity, fact, load
from tests.e2e.browsing import sign_in
from tests.e2e.live_memory import QUERY_TAGS, live_memory, retrieval_body
from tests.e2e.test_explorer import open_graph
from tests.e2e.test_live import POST_JSON, open_live, paths_of, rest_answer, wait_finished

PASSWORD = "correct horse battery staple"
BEGINS = "2025-06-01T00:00:00Z"  # the recall fact holds from June 2025
BEFORE = "2025-03-01T00:00:00Z"
RELATION_ID = "MATCH ()-[r:RELATES]->() WHERE r.group_id = $group AND r.relation = $relation RETURN r.id AS id"
SHOWN = "(() => { const counts = memoriaGraph.view.counts(); return [counts.nodes, counts.edges]; })()"
EDGE_HIDDEN = "(id) => memoriaGraph.view.isEdgeHidden(id, ...memoriaGraph.view.graph.extremities(id))"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = live_memory(group)
    ids["recall"] = f"{group}/recall"
    load(
        group,
        nodes=[
            entity(ids["request"], "Forecast gloves demand in Lyon", "UserRequest"),
            entity(ids["recall"], "Recall of the glove batch", "Event"),
        ],
        edges=[fact(ids["request"], ids["recall"], 0.95, "triggers", tags=["stockout"], valid_at=BEGINS)],
    )
    ids["edge"] = driver.read(RELATION_ID, group=group, relation="triggers")[0]["id"]
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


def test_the_graph_page_hides_a_fact_before_its_start_and_keeps_the_moment_in_the_url(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"nodes={quote(memory['request'], safe='')}")
    page.wait_for_function("(id) => memoriaGraph.view.hasEdge(id)", arg=memory["edge"], timeout=20_000)
    assert page.evaluate(EDGE_HIDDEN, memory["edge"]) is False

    page.get_by_test_id("as-of").fill(BEFORE.removesuffix("Z"))
    page.get_by_test_id("as-of").dispatch_event("change")
    page.wait_for_function(EDGE_HIDDEN, arg=memory["edge"], timeout=10_000)
    assert f"as_of={quote(BEFORE, safe='')}" in page.url
    expect(page.get_by_test_id("time-label")).to_contain_text("as of")
    shown = page.evaluate(SHOWN)
    assert page.evaluate("(id) => memoriaGraph.view.isNodeHidden(id)", memory["recall"])  # its one fact is hidden

    # The moment comes back with the link, and so does what it shows. Before (issue 32) the nodes were read at the
    # moment, without the facts that hid them: the recall came back as a lone node, one more than before the reload.
    page.reload()
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    assert page.evaluate("memoriaGraph.asOf.value()") == BEFORE
    expect(page.get_by_test_id("node-links")).to_be_visible()
    assert page.evaluate(EDGE_HIDDEN, memory["edge"]) is True
    assert page.evaluate(SHOWN) == shown
    assert shown[1] >= 3  # the request's other facts are there

    # Back to every time: expanding again (a new moment is a new expansion) brings the fact, shown.
    page.get_by_test_id("as-of-clear").click()
    assert "as_of" not in page.url
    page.evaluate("(id) => memoriaGraph.expand(id)", memory["request"])
    page.wait_for_function("(id) => memoriaGraph.view.hasEdge(id)", arg=memory["edge"], timeout=20_000)
    assert page.evaluate(EDGE_HIDDEN, memory["edge"]) is False


def test_a_live_retrieval_at_a_moment_does_not_walk_a_fact_that_had_not_begun(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_live(page, daphne_url, group, memory["request"], pace="0")
    page.get_by_test_id("as-of").fill(BEFORE.removesuffix("Z"))
    page.get_by_test_id("as-of").dispatch_event("change")
    assert f"as_of={quote(BEFORE, safe='')}" in page.url
    page.get_by_test_id("run").click()
    before_run = wait_finished(page)
    walked = set(page.evaluate("memoriaLive.live.run.selectedEdgeIds()"))
    then = rest_answer(page, {**retrieval_body(group, memory["request"]), "as_of": BEFORE})
    assert then["time"]["as_of"] == BEFORE
    assert walked == {hop["edge_id"] for path in paths_of(then) for hop in path["hops"]}
    assert memory["edge"] not in walked

    # Back to now (the re-run follows the moment): the fact has begun and the walk takes it, as REST does now.
    page.get_by_test_id("as-of-clear").click()
    wait_finished(page, run_other_than=before_run)
    walked_now = set(page.evaluate("memoriaLive.live.run.selectedEdgeIds()"))
    now = rest_answer(page, retrieval_body(group, memory["request"]))
    assert walked_now == {hop["edge_id"] for path in paths_of(now) for hop in path["hops"]}
    assert memory["edge"] in walked_now


def test_a_curator_invalidates_a_walked_fact_the_rerun_leaves_it_and_an_earlier_moment_brings_it_back(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    user_grant(username="curie", role=Role.CURATOR, groups=[group], password=PASSWORD)
    sign_in(page, daphne_url, "curie", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/live/?seed={quote(memory['request'], safe='')}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    page.get_by_test_id("query-tags").fill(", ".join(QUERY_TAGS))
    page.get_by_test_id("pace").select_option("0")
    page.get_by_test_id("run").click()
    first = wait_finished(page)
    erp = driver.read(RELATION_ID, group=group, relation="uses_data")[0]["id"]
    assert erp in page.evaluate("memoriaLive.live.run.selectedEdgeIds()")

    # The curator invalidates it (the inspector's call, as this user), and runs again: the walk leaves it out.
    before_invalidation = f"{(datetime.now(UTC) - timedelta(hours=1)).isoformat()[:19]}Z"
    ended = page.evaluate(POST_JSON, [f"/api/groups/{group}/edges/{quote(erp, safe='')}/invalidate", {}])
    assert ended["status"] == 200, ended
    page.get_by_test_id("run").click()
    second = wait_finished(page, run_other_than=first)
    assert erp not in page.evaluate("memoriaLive.live.run.selectedEdgeIds()")

    # Moving the moment back to before the invalidation re-runs there, and the fact is walked again.
    page.get_by_test_id("as-of").fill(before_invalidation.removesuffix("Z"))
    page.get_by_test_id("as-of").dispatch_event("change")
    wait_finished(page, run_other_than=second)
    assert erp in page.evaluate("memoriaLive.live.run.selectedEdgeIds()")


# The drawing's `holdsAt` (graph_view.js) hides loaded facts when the moment moves: a mirror of the definition,
# held here to `AsOf.counts` at known_at = now on random facts, with transaction times on both sides of now.
HOLDS_AT_CASES = """
async (cases) => {
  const page = document.querySelector('script[type="module"][src*="graph_page"]').src;
  const { holdsAt } = await import(new URL("graph_view.js", page).href);
  return cases.map(([edge, at]) => holdsAt(edge, at));
}
"""


def test_the_drawings_holds_at_agrees_with_the_one_definition(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    rng = random.Random(14)
    now = datetime.now(UTC)

    def stamp() -> str | None:
        if rng.random() < 0.3:
            return None
        moment = now + timedelta(days=rng.choice([-1, 1]) * rng.randint(2, 4000))
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    cases = []
    for _ in range(400):
        edge = {name: stamp() for name in ("valid_at", "invalid_at", "created_at", "expired_at")}
        cases.append(({name: value for name, value in edge.items() if value is not None}, stamp()))
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"nodes={quote(memory['request'], safe='')}")
    shown = page.evaluate(HOLDS_AT_CASES, cases)
    stamp_now = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    expected = [
        True
        if at is None
        else AsOf(as_of=at, known_at=stamp_now).counts(
            edge.get("valid_at"), edge.get("invalid_at"), edge.get("created_at"), edge.get("expired_at")
        )
        for edge, at in cases
    ]
    assert shown == expected
    assert 50 < sum(expected) < 350  # both answers are well represented


# Every control of the graph page's left column a reader can reach, in document order, marked so the walk can
# name them: visible, enabled, not taken out of the order nor folded away, one stop per radio group (its checked
# radio).
MARK_STOPS = """() => {
  const stops = [...document.querySelectorAll("aside.controls :is(a[href], button, input, select, textarea, summary)")]
    .filter((el) => !el.disabled && el.tabIndex >= 0 && el.getClientRects().length)
    .filter((el) => el.type !== "radio" || el.checked)
    .filter((el) => {  // a closed <details> keeps its contents laid out in Chromium, but not in the tab order
      const closed = el.closest("details:not([open])");
      return !closed || (el.tagName === "SUMMARY" && el.parentElement === closed);
    });
  stops.forEach((el, index) => { el.dataset.tabStop = String(index); });
  return stops.length;
}"""
FOCUSED_STOP = "document.activeElement.dataset.tabStop ?? document.activeElement.dataset.testid ?? 'other'"


def test_the_as_of_control_is_one_tab_stop_and_the_left_column_is_walked_in_order(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before (issue 32) the as-of box took seven stops (Chromium steps through a datetime-local's fields), eight
    with its button; now one box, then its button, and Tab walks every control once, then the graph."""
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"nodes={quote(memory['request'], safe='')}")
    count = page.evaluate(MARK_STOPS)
    page.locator('aside.controls [data-tab-stop="0"]').focus()
    walked = ["0"]
    for _ in range(count):
        page.keyboard.press("Tab")
        walked.append(page.evaluate(FOCUSED_STOP))
    assert walked == [str(index) for index in range(count)] + ["graph-canvas"]
    box = page.get_by_test_id("as-of")
    box.focus()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("as-of-clear")).to_be_focused()

    # Typed as a reader writes a moment; a day that does not exist is refused in words and changes nothing.
    box.fill("2025-02-30")
    box.dispatch_event("change")
    problem = page.get_by_test_id("as-of-problem")
    expect(problem).to_contain_text("Not a moment: write a UTC date as 2025-02-01")
    expect(box).to_have_attribute("aria-invalid", "true")
    assert page.evaluate("memoriaGraph.asOf.value()") is None
    assert "as_of" not in page.url
    box.fill("2025-03-01")
    box.dispatch_event("change")
    expect(problem).to_be_hidden()
    expect(box).to_have_value(BEFORE.removesuffix("Z"))
    assert page.evaluate("memoriaGraph.asOf.value()") == BEFORE
    assert f"as_of={quote(BEFORE, safe='')}" in page.url
