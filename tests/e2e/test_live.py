"""The live retrieval page in Chromium against daphne: events arrive level by level and the paths are drawn; an
edge's energy breakdown shows the server's numbers (the REST answer's, to the bit); a changed MIN_ACTIVATION re-runs
and lists the paths it gained and lost."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import screenshot, sign_in
from tests.e2e.live_memory import QUERY_TAGS, live_memory, retrieval_body

PASSWORD = "correct horse battery staple"

# POST as the signed-in page would: the session cookie and its CSRF token.
POST_JSON = """
async ([url, body]) => {
  const token = document.cookie.split("; ").find((item) => item.startsWith("csrftoken=")).split("=")[1];
  const response = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRFToken": token}, body: JSON.stringify(body),
  });
  return {status: response.status, body: await response.json()};
}
"""
LIVE_ROOT = "document.querySelector('[data-live-root]').dataset"
LIVE_STATE = f"{LIVE_ROOT}.liveState"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = live_memory(group)
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


def rest_answer(page: Page, body: dict) -> dict:
    answer = page.evaluate(POST_JSON, ["/api/retrieval/activation", body])
    assert answer["status"] == 200, answer
    return answer["body"]


def paths_of(answer: dict) -> list[dict]:
    return [path for seed in answer["seeds"] for path in seed["paths"]]


def path_key(path: dict) -> str:
    return "\u2192".join(path["nodes"])


def open_live(page: Page, base: str, group: str, seed: str, *, pace: str) -> None:
    sign_in(page, base, "planner", PASSWORD)
    page.goto(f"{base}/g/{group}/live/?seed={quote(seed, safe='')}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    expect(page.get_by_test_id("seed-list").locator("li")).to_have_count(1)
    page.get_by_test_id("query-tags").fill(", ".join(QUERY_TAGS))
    page.get_by_test_id("pace").select_option(pace)


def wait_finished(page: Page, run_other_than: str | None = None) -> str:
    page.wait_for_function(
        f"{LIVE_STATE} === 'finished' && {LIVE_ROOT}.liveRun !== {json.dumps(run_other_than)}",
        # A first relation-aware run loads the embedding model in daphne: seconds alone, far more on a busy machine.
        timeout=90_000,
    )
    return page.evaluate(f"{LIVE_ROOT}.liveRun")


def test_events_arrive_paths_are_drawn_and_an_edge_explains_its_energy(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_live(page, daphne_url, group, memory["request"], pace="900")
    page.get_by_test_id("run").click()
    # The first level is on screen (the seed's three strongest facts) while later ones are still to come.
    page.wait_for_function(
        f"{LIVE_STATE} === 'running' && memoriaLive.live.counts().selectedEdges === 3"
        " && memoriaLive.live.run.levels.length === 1",
        timeout=20_000,
    )
    wait_finished(page)
    expect(page.get_by_test_id("live-status")).to_contain_text("completed")

    answer = rest_answer(page, retrieval_body(group, memory["request"]))
    paths = paths_of(answer)
    hops = {hop["edge_id"]: hop for path in paths for hop in path["hops"]}
    assert len(paths) >= 3 and len(hops) >= 5
    counts = page.evaluate("memoriaLive.live.counts()")
    assert counts["selectedEdges"] == len(hops)
    ranked = page.get_by_test_id("path-list").locator("li")
    expect(ranked).to_have_count(len(paths))
    expected_order = [path_key(p) for p in sorted(paths, key=lambda p: (-p["energy"], -p["depth"], path_key(p)))]
    assert [item.get_attribute("data-key") for item in ranked.all()] == expected_order
    expect(page.get_by_test_id("live-seeds")).to_contain_text("Forecast gloves demand in Lyon")

    # The plot's first hop spans the seed's selected energies, as the server sent them.
    first_hop = sorted(hop["transfer_energy"] for path in paths for hop in path["hops"][:1])
    band = page.get_by_test_id("depth-plot").locator("g[data-depth='1']")
    assert float(band.get_attribute("data-max")) == first_hop[-1]
    assert float(band.get_attribute("data-min")) == first_hop[0]

    # The weak policy link was met and rejected: hovering the policy says why.
    page.evaluate("memoriaLive.live.view.stopLayout()")
    page.wait_for_timeout(300)
    box = page.get_by_test_id("live-canvas").bounding_box()
    spot = page.evaluate("(id) => memoriaLive.live.view.viewportPosition(id)", memory["policy"])
    page.mouse.move(box["x"] + spot["x"], box["y"] + spot["y"])
    expect(page.get_by_test_id("live-tooltip")).to_contain_text("branch limit")

    # Click the stockout → Lyon edge: its breakdown is the REST answer's hop, number for number.
    edge_id = next(hop["edge_id"] for hop in hops.values() if hop["target"] == memory["lyon"])
    spot = page.evaluate("(id) => memoriaLive.live.view.edgeViewportPosition(id)", edge_id)
    page.mouse.click(box["x"] + spot["x"], box["y"] + spot["y"])
    breakdown = page.get_by_test_id("energy-breakdown")
    expect(breakdown).to_be_visible()
    assert breakdown.get_attribute("data-edge") == edge_id
    record = breakdown.get_by_test_id("breakdown").first
    shown = {
        name: json.loads(record.get_by_test_id(f"breakdown-{testid}").get_attribute("data-value"))
        for name, testid in [
            ("parent_activation", "R"),
            ("weight", "w"),
            ("degree", "d"),
            ("sqrt_degree", "sqrt-d"),
            ("tag_similarity", "tag-sim"),
            ("shared_tags", "shared-tags"),
            ("transfer_energy", "T"),
        ]
    }
    hop = hops[edge_id]
    assert shown == {name: hop[name] for name in shown}
    assert shown["shared_tags"] == ["stockout"]
    expect(record).to_contain_text("selected")
    page.get_by_test_id("open-fact").click()
    expect(page.get_by_test_id("edge-inspector")).to_contain_text("happened_at")


def test_cancel_stops_the_playback_of_a_retrieval_the_server_had_finished(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before: Cancel answered "no retrieval with this id is running" and the animation went on."""
    open_live(page, daphne_url, group, memory["request"], pace="900")
    page.get_by_test_id("run").click()
    page.wait_for_function(
        f"memoriaLive.serverFinished() && {LIVE_STATE} === 'running' && memoriaLive.live.run.levels.length === 1",
        timeout=30_000,
    )
    page.get_by_test_id("cancel").click()
    expect(page.get_by_test_id("live-status")).to_have_text(
        "Playback stopped; the server had already finished this retrieval."
    )
    assert page.evaluate(LIVE_STATE) == "stopped"
    expect(page.get_by_test_id("live-error")).to_have_text("")
    page.wait_for_timeout(2000)  # two more steps at this pace: nothing more is drawn
    assert page.evaluate("memoriaLive.live.run.levels.length") == 1
    expect(page.get_by_test_id("cancel")).to_be_disabled()


def keys(diff, test_id: str) -> set[str]:
    return {item.get_attribute("data-key") for item in diff.get_by_test_id(test_id).locator("li").all()}


def test_changing_min_activation_reruns_and_lists_paths_gained_and_lost(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_live(page, daphne_url, group, memory["request"], pace="0")
    page.get_by_test_id("run").click()
    first = wait_finished(page)
    before = rest_answer(page, retrieval_body(group, memory["request"]))

    for threshold in ("0.02", "0.002"):
        page.get_by_test_id("min-activation").fill(threshold)  # re-runs by itself
        first = wait_finished(page, run_other_than=first)
        after = rest_answer(page, retrieval_body(group, memory["request"], min_activation=float(threshold)))
        old = {path_key(p) for p in paths_of(before)}
        new = {path_key(p) for p in paths_of(after)}
        assert new - old and old - new  # the fixture is built so that each change gains and loses
        diff = page.get_by_test_id("diff")
        expect(diff).to_be_visible()
        change = f"min_activation: {before['params']['min_activation']} → {float(threshold)}"
        expect(diff.get_by_test_id("diff-params")).to_have_text(change)
        expect(diff.get_by_test_id("diff-summary")).to_contain_text(f"{len(new & old)} unchanged")
        gained = keys(diff, "diff-gained")
        lost = keys(diff, "diff-lost")
        grew = [
            (item.get_attribute("data-before"), item.get_attribute("data-key"))
            for item in diff.get_by_test_id("diff-grew").locator("li").all()
        ]
        shrank = [
            (item.get_attribute("data-before"), item.get_attribute("data-key"))
            for item in diff.get_by_test_id("diff-shrank").locator("li").all()
        ]
        # A lowered threshold lets paths go on past their old ends: grown, not lost and gained (the old bug).
        # A path that now goes on past its old end grew; one that now stops sooner shrank: neither is lost and
        # gained (the old page said so). The fixture's first change shortens request → ERP → Aldana.
        extended = {was for was in old - new if any(now.startswith(was + "\u2192") for now in new - old)}
        shortened = {now for now in new - old if any(was.startswith(now + "\u2192") for was in old - new)}
        assert {was for was, _ in grew} == extended and {now for _, now in shrank} == shortened
        assert grew or shrank or threshold != "0.02"
        for was, now in grew:
            assert was in old - new and now in new - old and now.startswith(was + "\u2192")
        for was, now in shrank:
            assert was in old - new and now in new - old and was.startswith(now + "\u2192")
        changed = grew + shrank
        assert gained | {now for _, now in changed} == new - old and not gained & {now for _, now in changed}
        assert lost | {was for was, _ in changed} == old - new and not lost & {was for was, _ in changed}
        expect(page.get_by_test_id("path-list").locator("li")).to_have_count(len(new))
        # What was lost stays drawn, in the lost colour, beside the new run.
        lost_edges = {hop["edge_id"] for p in paths_of(before) if path_key(p) in lost for hop in p["hops"]}
        new_edges = {hop["edge_id"] for p in paths_of(after) for hop in p["hops"]}
        for edge_id in lost_edges - new_edges:
            colour = page.evaluate("(id) => memoriaLive.live.view.edgeStyles.get(id).color", edge_id)
            assert colour == "#e74c3c"
        if threshold == "0.02":
            page.wait_for_timeout(1200)  # let the layout settle for the picture
            screenshot(page, "live-retrieval.png")
        before = after


def test_a_refused_setting_is_said_at_once_and_the_old_run_is_marked_not_current(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before (issue 32): with "re-run when a setting changes", MIN_ACTIVATION -5, 5, 0 or empty and MAX_DEPTH 999
    gave no message and no run, the old run on screen as if current; a refused query left "Finding seeds…"."""
    open_live(page, daphne_url, group, memory["request"], pace="0")
    page.get_by_test_id("run").click()
    first = wait_finished(page)
    error = page.get_by_test_id("live-error")
    for field, value, said in [
        ("min-activation", "-5", "MIN_ACTIVATION: -5 is outside"),
        ("min-activation", "5", "MIN_ACTIVATION: 5 is outside"),
        ("min-activation", "0", "MIN_ACTIVATION: 0 is outside"),
        ("min-activation", "", "MIN_ACTIVATION: (empty) is outside"),
    ]:
        page.get_by_test_id(field).fill(value)
        expect(error).to_contain_text(said)
        expect(page.get_by_test_id(field)).to_have_attribute("aria-invalid", "true")
        assert page.evaluate(f"{LIVE_ROOT}.stale") == "true"
        assert page.evaluate("memoriaLive.live.el.status.textContent").startswith("Not re-run")
    page.get_by_test_id("max-depth").fill("999")
    expect(error).to_contain_text("MAX_DEPTH: 999 is outside")
    page.get_by_test_id("min-activation").fill("0.02")
    expect(page.get_by_test_id("min-activation")).to_have_attribute("aria-invalid", "false")
    expect(error).not_to_contain_text("MIN_ACTIVATION")
    page.wait_for_timeout(900)  # past the re-run's 450 ms wait
    assert page.evaluate(f"{LIVE_ROOT}.liveRun") == first  # nothing ran with refused settings
    page.get_by_test_id("max-depth").fill("3")
    wait_finished(page, run_other_than=first)  # good again: the re-run comes, and the mark goes
    expect(error).to_have_text("")
    assert page.evaluate(f"{LIVE_ROOT}.stale") is None

    # A query the server refuses: its message, and a status that says nothing ran.
    page.evaluate("memoriaLive.seeds.length = 0")
    page.get_by_test_id("live-query").fill("x" * 5000)
    page.get_by_test_id("run").click()
    expect(error).not_to_have_text("")
    page.wait_for_function(f"{LIVE_STATE} === 'error'")
    assert "Finding seeds" not in page.evaluate("memoriaLive.live.el.status.textContent")
