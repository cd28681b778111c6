"""A live page that explains (issue 32, item 4), on the demo and its question "Why did stockouts hit Lyon?": the
paths ordered by energy, depth or reach (depth puts the causal chain stockout → supplier delay → customs hold →
port strike on top, where energy ranked it 14th of 36)."""

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
from tests.e2e.browsing import sign_in

PASSWORD = "correct horse battery staple"
QUESTION = "Why did stockouts hit Lyon?"
CHAIN = ("Stockout of SKU-1042 in Lyon", "Supplier delay: ", "Customs hold on ", "Port strike delays ")
LIVE_ROOT = "document.querySelector('[data-live-root]').dataset"


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
