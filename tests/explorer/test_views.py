"""The explorer's pages in-process: sign-in, the group switcher, entity/episode/community pages, 404s, search tabs,
and the vendored scripts served by whitenoise."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.http import HttpRequest
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.datasets.demo import MARKER_ID, SAMPLE_QUERIES
from memoria.graph import driver
from tests.browse.graphs import entity, load, small_memory

PASSWORD = "a long test password"


@pytest.fixture
def memory(group: str) -> dict[str, str]:
    return small_memory(group)


@pytest.fixture
def other_group(group: str):
    name = f"{group}-o"
    load(name, nodes=[entity(f"{name}/secret", "Secret thing")], edges=[])
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)


@pytest.fixture
def browser(db: None, group: str) -> Client:
    user_grant(username="reader", role=Role.VIEWER, groups=[group, f"{group}-b"], password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username="reader", password=PASSWORD)
    return client


def page(group: str, kind: str, node_id: str) -> str:
    return f"/g/{group}/{kind}/{quote(node_id, safe='/')}/"


def test_pages_need_a_signed_in_user(db: None, group: str, memory: dict) -> None:
    response = Client().get(page(group, "entities", memory["req"]))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Client().get("/search/?q=x").status_code == 302


def test_the_switcher_offers_only_the_users_groups_and_remembers_the_choice(
    browser: Client, group: str, other_group: str
) -> None:
    html = browser.get("/search/").content.decode()
    assert f'<option value="{group}" selected>' in html and f'<option value="{group}-b">' in html
    assert other_group not in html
    switched = browser.post("/group/", {"group": f"{group}-b", "next": "/search/?q=x"})
    assert switched.status_code == 302 and switched["Location"] == "/search/?q=x"
    assert f'<option value="{group}-b" selected>' in browser.get("/search/").content.decode()
    assert browser.post("/group/", {"group": other_group}).status_code == 404
    # Leaving a page of the old group lands on search, not back in the old group.
    back = browser.post("/group/", {"group": group, "next": f"/g/{group}-b/graph/"})
    assert back["Location"] == "/search/"
    offsite = browser.post("/group/", {"group": group, "next": "https://elsewhere.example/"})
    assert offsite["Location"] == "/search/"


def test_entity_page_strikes_invalidated_facts_through(browser: Client, group: str, memory: dict) -> None:
    response = browser.get(page(group, "entities", memory["req"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Forecast Q3 demand for SKU-1" in html and "A planner wants a forecast." in html
    invalidated = html.split(f'data-edge="{_edge_id(memory, "delays")}"')[1].split("</li>")[0]
    assert "<del>" in invalidated and "The strike delays the forecast" in invalidated
    assert "2025-01-10 → 2025-04-01" in invalidated and "invalidated" in invalidated
    kept = html.split(f'data-edge="{_edge_id(memory, "uses_data")}"')[1].split("</li>")[0]
    assert "<del>" not in kept and "2025-03-01 → now" in kept
    assert "message 1" in html and "message 2" in html  # episodes that mention it
    assert page(group, "communities", memory["com"]) in html
    assert 'data-mini-graph data-group="' + group in html


def _edge_id(memory: dict, relation: str) -> str:
    row = driver.read(
        "MATCH (:Memory {id: $id})-[r:RELATES]-() WHERE r.relation = $relation RETURN r.id AS id",
        id=memory["req"],
        relation=relation,
    )
    return row[0]["id"]


def test_episode_and_community_pages(browser: Client, group: str, memory: dict) -> None:
    episode = browser.get(page(group, "episodes", memory["ep1"])).content.decode()
    assert "Reference time: 2025-03-01T09:00:00Z" in episode and "Please forecast Q3 demand" in episode
    assert "The forecast uses ERP orders" in episode and page(group, "entities", memory["ds"]) in episode
    community = browser.get(page(group, "communities", memory["com"])).content.decode()
    assert "Forecast requests and data." in community
    assert all(page(group, "entities", memory[name]) in community for name in ("req", "ds", "ev"))
    assert f'"{memory["req"]}"' in community  # the mini graph's member ids


def test_other_groups_and_wrong_kinds_are_404(browser: Client, group: str, memory: dict, other_group: str) -> None:
    assert browser.get(page(group, "entities", f"{other_group}/secret")).status_code == 404
    assert browser.get(page(other_group, "entities", f"{other_group}/secret")).status_code == 404
    assert browser.get(page(group, "episodes", memory["req"])).status_code == 404
    assert browser.get(page(group, "entities", "nowhere")).status_code == 404
    assert browser.get(f"/g/{other_group}/graph/").status_code == 404


def test_an_unknown_group_is_a_styled_404_that_keeps_the_current_group(
    db: None, group: str, memory: dict, other_group: str
) -> None:
    """An admin may name any group, but one that stores nothing is not there: before, /g/nope/graph/ answered an
    empty page and the session silently moved to another group."""
    user_grant(username="boss", role=Role.ADMIN, groups=[], password=PASSWORD)
    admin = Client()
    assert admin.login(request=HttpRequest(), username="boss", password=PASSWORD)
    assert admin.get(f"/g/{group}/graph/").status_code == 200
    for missing in (f"/g/{group}-nope/graph/", f"/g/{group}-nope/live/", f"/g/{group}-nope/entities/x/"):
        response = admin.get(missing)
        assert response.status_code == 404
        html = response.content.decode()
        assert 'data-testid="not-found"' in html and f"no group &#x27;{group}-nope&#x27; is visible to you" in html
        assert 'class="topbar"' in html  # the site's own page, with its header
    assert f'<option value="{group}" selected>' in admin.get("/search/").content.decode()


def test_unknown_paths_and_nodes_get_the_styled_404(browser: Client, group: str, memory: dict) -> None:
    unmatched = browser.get("/no/such/page/")
    assert unmatched.status_code == 404
    assert "There is nothing at /no/such/page/." in unmatched.content.decode()
    node = browser.get(page(group, "entities", "does-not-exist"))
    assert node.status_code == 404 and 'data-testid="not-found"' in node.content.decode()
    assert browser.get("/api/nowhere").json()["code"] == "not_found"  # the API still answers JSON


def test_pages_link_an_icon_and_favicon_ico_leads_to_it(browser: Client) -> None:
    html = browser.get("/search/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg"' in html
    redirect = Client().get("/favicon.ico")
    assert redirect.status_code == 301 and redirect["Location"] == "/static/favicon.svg"
    icon = Client().get("/static/favicon.svg")
    assert icon.status_code == 200 and icon["Content-Type"].startswith("image/svg+xml")


def test_graph_page_carries_its_start(browser: Client, group: str, memory: dict) -> None:
    start = {"nodes": f"{memory['req']},{memory['ds']}", "edge": "e1"}
    html = browser.get(f"/g/{group}/graph/", start).content.decode()
    assert 'id="graph-config"' in html and memory["ds"] in html and '"edge": "e1"' in html
    assert "explorer/js/graph_page.js" in html and "explorer/vendor/sigma.min.js" in html


def test_search_page_shows_every_scope_with_method_scores(browser: Client, group: str, memory: dict) -> None:
    html = browser.get("/search/", {"q": "forecast ERP orders"}).content.decode()
    for scope in ("facts", "entities", "episodes", "communities"):
        assert f'data-testid="tab-{scope}"' in html
    assert page(group, "entities", memory["ds"]) in html
    assert page(group, "episodes", memory["ep1"]) in html
    assert 'title="bm25 ' in html  # per-method scores on hover
    assert browser.get("/search/", {"q": ""}).status_code == 200


@pytest.mark.parametrize("name", ["sigma.min.js", "graphology.umd.min.js", "graphology-library.min.js"])
def test_vendored_scripts_are_served(browser: Client, name: str) -> None:
    response = browser.get(f"/static/explorer/vendor/{name}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert b"".join(response.streaming_content if response.streaming else [response.content])[:20]


def test_home_lands_on_the_demo_before_the_alphabetically_first_group(db: None) -> None:
    user_grant(username="newcomer", role=Role.VIEWER, groups=["aaa-first", "demo"], password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username="newcomer", password=PASSWORD)
    html = client.get("/").content.decode()
    assert '<span data-testid="landing-group">demo</span>' in html
    assert '<option value="demo" selected>' in html and 'data-group="aaa-first"' in html


def test_home_suggests_the_sample_queries_only_in_a_group_holding_the_demo(browser: Client, group: str) -> None:
    """One indexed lookup of the demo's marker node decides; nothing is counted (the counts are /api/groups')."""
    load(group, nodes=[entity(MARKER_ID, "ERP sales orders (daily extract)", "DataSource")], edges=[])
    html = browser.get("/").content.decode()
    links = [f'/live/?q={quote(query, safe="")}&amp;run=1" data-testid="suggested-query"' for query in SAMPLE_QUERIES]
    assert all(link in html for link in links), html
    assert "<th>Facts</th>" not in html
    browser.post("/group/", {"group": f"{group}-b"})
    html = browser.get("/").content.decode()
    assert f'<span data-testid="landing-group">{group}-b</span>' in html and "suggested-query" not in html
