"""PPR from the graph page in Chromium against daphne: seeds picked on nodes, the ranked list is the REST answer's
for the same request, the ranked nodes are drawn sized by score and a click focuses one; the subgraph around the
seeds is the API's; relation-aware runs show the β chosen for the query as sliders, and releasing one re-runs
with the user's β."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.projection.cache import projection_cache
from tests.e2e.browsing import screenshot, sign_in
from tests.e2e.memory import warehouse_memory
from tests.e2e.test_explorer import PASSWORD, open_graph, settle
from tests.e2e.test_live import POST_JSON

TOP_K = 8
GET_JSON = "async (url) => (await fetch(url, {credentials: 'same-origin'})).json()"
RUNS = "document.querySelector('[data-ppr-ranked]').dataset.runs"


@pytest.fixture
def memory(transactional_db: None, group: str) -> Iterator[dict[str, str]]:
    ids = warehouse_memory(group)
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    yield ids
    projection_cache().forget(group)


def wait_runs(page: Page, runs: int) -> None:
    page.wait_for_function(f"{RUNS} === '{runs}'", timeout=60_000)


def rest_answer(page: Page) -> dict:
    """POST /api/retrieval/ppr with the body the page sent last."""
    body = page.evaluate("memoriaGraph.ppr.lastBody")
    answer = page.evaluate(POST_JSON, ["/api/retrieval/ppr", body])
    assert answer["status"] == 200, answer
    return answer["body"]


def listed(page: Page) -> list[tuple[str, float]]:
    items = page.get_by_test_id("ppr-ranked").locator("li[data-node]").all()
    return [(item.get_attribute("data-node"), float(item.get_attribute("data-score"))) for item in items]


def ranked(nodes: list[dict]) -> list[tuple[str, float]]:
    return [(node["id"], node["score"]) for node in nodes]


def test_ppr_from_the_graph_page_ranks_as_the_api(
    page: Page, daphne_url: str, memory: dict[str, str], group: str
) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['lyon'], safe='')}")
    settle(page)
    expect(page.get_by_test_id("ppr-seeds")).to_contain_text("none picked")
    page.get_by_test_id("ppr-seed").click()  # Lyon, whose panel the page opened
    page.evaluate("(id) => memoriaGraph.view.emit('clickNode', id)", memory["stockout"])
    expect(page.get_by_test_id("node-panel")).to_contain_text("Stockout of safety gloves")
    page.get_by_test_id("ppr-seed").click()
    expect(page.get_by_test_id("ppr-seeds").locator("[data-seed]")).to_have_count(2)
    expect(page.get_by_test_id("ppr-seed")).to_have_text("Not a PPR seed")

    page.get_by_test_id("ppr-top-k").fill(str(TOP_K))
    page.get_by_test_id("ppr-run").click()
    wait_runs(page, 1)
    answer = rest_answer(page)
    assert answer["seed_source"] == "caller" and not answer["relation_aware"]
    assert [seed["id"] for seed in answer["seeds"]] == [memory["lyon"], memory["stockout"]]
    expect(page.get_by_test_id("ppr-ranked").locator("li")).to_have_count(TOP_K)
    assert listed(page) == ranked(answer["scores"])
    expect(page.get_by_test_id("ppr-summary")).to_contain_text(f"{answer['iterations']} iterations")
    # Every ranked node is drawn, styled by its score: the best the largest.
    assert all(page.evaluate("(id) => memoriaGraph.view.hasNode(id)", node["id"]) for node in answer["scores"])
    sizes = dict(page.evaluate("[...memoriaGraph.view.nodeStyles].map(([id, style]) => [id, style.size])"))
    assert set(sizes) == {node["id"] for node in answer["scores"]}
    assert max(sizes, key=sizes.get) == answer["scores"][0]["id"]
    # A click on a ranked node opens and focuses it.
    third = answer["scores"][2]
    page.get_by_test_id("ppr-ranked").locator(f"li[data-node='{third['id']}'] button").click()
    expect(page.get_by_test_id("node-panel").locator("h2")).to_have_text(third["name"])

    # The subgraph around the seeds: the API's nodes within one hop of them, drawn and highlighted.
    page.get_by_test_id("around-show").click()
    expect(page.get_by_test_id("around-result")).to_contain_text("within 1 hop")
    seeds = ",".join(quote(memory[name], safe="") for name in ("lyon", "stockout"))
    around = page.evaluate(GET_JSON, f"/api/groups/{group}/subgraph?ids={seeds}&hops=1")
    around_ids = sorted(node["id"] for node in around["nodes"])
    assert len(around_ids) > 2 and {memory["lyon"], memory["stockout"]} <= set(around_ids)
    assert sorted(page.evaluate("[...memoriaGraph.view.highlighted.nodes]")) == around_ids
    expect(page.get_by_test_id("around-result")).to_contain_text(f"{len(around_ids)} nodes")

    # Relation-aware needs a query (or β): the API's message is shown and nothing is ranked anew.
    page.get_by_test_id("ppr-relation-aware").check()
    page.get_by_test_id("ppr-run").click()
    expect(page.get_by_test_id("ppr-summary")).to_contain_text("relation_aware: give a query")
    assert page.evaluate(RUNS) == "1"

    # With a query, β are chosen for it and shown as sliders; releasing one re-runs with the user's β.
    page.get_by_test_id("ppr-query").fill("When did the stockout happen?")
    page.get_by_test_id("ppr-run").click()
    wait_runs(page, 2)
    chosen = rest_answer(page)
    assert chosen["relation_aware"] and chosen["betas"]["source"] == "offline"
    expect(page.get_by_test_id("ppr-betas-source")).to_contain_text("chosen for the query (offline)")
    assert listed(page) == ranked(chosen["scores"])
    slider = page.locator("[data-beta='entity_entity.TEMPORAL']")
    assert float(slider.input_value()) == pytest.approx(chosen["betas"]["entity_entity"]["TEMPORAL"], abs=0.01)
    settle(page)
    page.evaluate("memoriaGraph.view.fit()")
    page.wait_for_timeout(400)
    screenshot(page, "graph-ppr.png")
    page.locator("[data-beta='entity_entity.CAUSALITY']").fill("1")  # fires input and change
    wait_runs(page, 3)
    expect(page.get_by_test_id("ppr-betas-source")).to_contain_text("yours")
    mine = rest_answer(page)
    assert mine["betas"]["source"] == "caller" and mine["betas"] != chosen["betas"]
    assert page.evaluate("memoriaGraph.ppr.lastBody.betas.entity_entity.CAUSALITY") == 1
    assert listed(page) == ranked(mine["scores"])

    page.get_by_test_id("graph-ppr").get_by_role("button", name="Clear").click()
    expect(page.get_by_test_id("ppr-ranked").locator("li")).to_have_count(0)
    assert page.evaluate("memoriaGraph.view.nodeStyles.size") == 0

    # No seed picked, relation-aware with a query: the server seeds from the facts nearest the query.
    expect(page.get_by_test_id("ppr-seeds")).to_contain_text("none picked")
    page.get_by_test_id("ppr-run").click()
    wait_runs(page, 4)
    assert "seeds" not in page.evaluate("memoriaGraph.ppr.lastBody")
    found = rest_answer(page)
    assert found["seed_source"] in ("facts", "uniform") and found["fact_filter"] == "offline"
    assert listed(page) == ranked(found["scores"])
    expect(page.get_by_test_id("ppr-summary")).to_contain_text("facts kept: offline")
