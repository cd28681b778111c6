"""Group isolation and access over REST and pages: every endpoint, by every kind of caller.

A curator of group A names group B, or names A with the ids of B's nodes, edges, episodes,
communities and audit entries; a viewer tries every write; nobody signed in tries everything;
a browser session writes without its CSRF token. None of them reads or changes anything of B.
The endpoint tables are checked against the URL maps, so a new endpoint fails here until it is
listed (and so tested).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from explorer.models import Perspective
from explorer.perspectives import SHARING_NEEDS_CURATOR
from memoria.accounts.roles import CURATOR_NEEDED, Role
from memoria.accounts.services import user_grant
from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from tests.curation.memory import curation_document, edge_id, graph_snapshot, node_id

SECRET = "bsecret"  # in every text of group B: no answer to anyone outside B may hold it
METHODS = ("get", "post", "put", "patch", "delete")
# POSTs that only read (an export job reads the group in the background)
READ_POSTS = {"api-retrieval-activation", "api-retrieval-ppr", "api-search", "api-context", "api-job-export"}


@dataclass(frozen=True)
class Call:
    """One request of the table: `{g}` is the group named and `{node}`, `{edge}`, ... ids, filled in per test."""

    name: str
    method: str
    path: str
    body: Any = None
    # What a curator of A gets naming A with B's ids: 404, or an answer that shows nothing of B.
    guessed: frozenset[int] = field(default_factory=lambda: frozenset({404}))
    # What a viewer is told when it tries this write on its own group.
    refusal: str = CURATOR_NEEDED

    @property
    def writes(self) -> bool:
        return self.method != "get" and self.name not in READ_POSTS

    def fill(self, ids: dict[str, str]) -> tuple[str, Any]:
        def put(text: str, *, url: bool) -> str:
            for key, value in ids.items():
                text = text.replace("{" + key + "}", quote(value, safe="") if url else value)
            return text

        body = None if self.body is None else json.loads(put(json.dumps(self.body), url=False))
        return put(self.path, url=True), body


SHOWS_NOTHING = frozenset({200})  # answers with B's ids marked missing, or empty lists
REFUSED_INPUT = frozenset({400, 404})
# Ids are keyed by group: B's id written under A makes A's own item of that id, and B's stays as it was.
OWN_ITEM = frozenset({200, 201, 202})

API_CALLS = [
    Call("api-health", "get", "/api/health"),
    Call("api-me", "get", "/api/me"),
    Call("api-groups", "get", "/api/groups"),
    Call("api-schema", "get", "/api/schema/"),
    Call(
        "api-group-import",
        "post",
        "/api/groups/{g}/import",
        {"nodes": [{"id": "{node}", "name": "taken over"}], "edges": []},
        OWN_ITEM,
    ),
    Call("api-group-export", "get", "/api/groups/{g}/export"),
    Call(
        "api-group-episodes",
        "post",
        "/api/groups/{g}/episodes",
        {"id": "{episode}", "content": "Liv moved."},
        OWN_ITEM,
    ),
    Call("api-group-communities", "post", "/api/groups/{g}/communities", {}),
    # Background jobs: {job} is a finished community build of the group, {export} a finished export of it.
    Call("api-group-jobs", "get", "/api/groups/{g}/jobs"),
    Call("api-job-communities", "post", "/api/groups/{g}/jobs/communities", {}),
    Call("api-job-reindex", "post", "/api/groups/{g}/jobs/reindex", {}),
    Call("api-job-import", "post", "/api/groups/{g}/jobs/import", {"nodes": [], "edges": []}),
    Call("api-job-export", "post", "/api/groups/{g}/jobs/export", {}),
    Call("api-job", "get", "/api/groups/{g}/jobs/{job}"),
    Call("api-job-cancel", "post", "/api/groups/{g}/jobs/{job}/cancel", {}),
    Call("api-job-result", "get", "/api/groups/{g}/jobs/{export}/result"),
    Call("api-group-edge-invalidate", "post", "/api/groups/{g}/edges/{edge}/invalidate", {}),
    Call("api-group-edge", "get", "/api/groups/{g}/edges/{edge}"),
    Call("api-group-edge", "patch", "/api/groups/{g}/edges/{edge}", {"weight": 0.11}),
    Call("api-group-edge", "delete", "/api/groups/{g}/edges/{edge}", {}),
    Call(
        "api-group-edges",
        "post",
        "/api/groups/{g}/edges",
        {"source": "{node}", "target": "{node2}", "relation": "knows", "weight": 0.5},
        REFUSED_INPUT,
    ),
    Call(
        "api-group-edges",
        "post",
        "/api/groups/{g}/edges",
        {"source": "{mine}", "target": "{node2}", "relation": "knows", "weight": 0.5},
        REFUSED_INPUT,
    ),
    Call("api-group-entity-merge", "post", "/api/groups/{g}/entities/{node}/merge", {"from": "{node2}"}),
    Call("api-group-entity-merge", "post", "/api/groups/{g}/entities/{mine}/merge", {"from": "{node2}"}, REFUSED_INPUT),
    Call("api-group-audit", "get", "/api/groups/{g}/audit"),
    Call("api-group-audit-undo", "post", "/api/groups/{g}/audit/{entry}/undo", {}),
    Call("api-group-node-neighbours", "get", "/api/groups/{g}/nodes/{node}/neighbours"),
    Call("api-group-node", "get", "/api/groups/{g}/nodes/{node}"),
    Call("api-group-node", "get", "/api/groups/{g}/nodes/{episode}"),
    Call("api-group-node", "get", "/api/groups/{g}/nodes/{community}"),
    Call("api-group-nodes", "get", "/api/groups/{g}/nodes?ids={node},{episode},{community}", guessed=SHOWS_NOTHING),
    Call("api-group-subgraph", "get", "/api/groups/{g}/subgraph?ids={node},{node2}", guessed=SHOWS_NOTHING),
    Call("api-group-subgraph", "get", "/api/groups/{g}/subgraph?ids={mine},{node2}", guessed=SHOWS_NOTHING),
    Call("api-group-paths", "get", "/api/groups/{g}/paths?from={node}&to={node2}", guessed=REFUSED_INPUT),
    Call("api-group-paths", "get", "/api/groups/{g}/paths?from={mine}&to={node2}", guessed=REFUSED_INPUT),
    Call(
        "api-graph-edge-exists",
        "get",
        "/api/graph/{g}/edges/exists?source={node}&target={node2}",
        guessed=SHOWS_NOTHING,
    ),
    Call(
        "api-graph-edges",
        "post",
        "/api/graph/{g}/edges",
        {"source": "{node}", "target": "{node2}", "relation": "knows", "weight": 0.5},
        REFUSED_INPUT,
    ),
    Call(
        "api-graph-edges",
        "post",
        "/api/graph/{g}/edges",
        {"source": "{mine}", "target": "{node2}", "relation": "knows", "weight": 0.5},
        REFUSED_INPUT,
    ),
    Call(
        "api-graph-edge-exists",
        "get",
        "/api/graph/{g}/edges/exists?source={mine}&target={node2}",
        guessed=SHOWS_NOTHING,
    ),
    Call(
        "api-graph-edges",
        "delete",
        "/api/graph/{g}/edges?source={node}&target={node2}&relation=mentioned_with",
    ),
    Call("api-graph-stats", "get", "/api/graph/{g}/stats"),
    Call("api-graph-outgoing", "get", "/api/graph/{g}/nodes/{node}/outgoing"),
    Call("api-graph-incoming", "get", "/api/graph/{g}/nodes/{node2}/incoming"),
    Call("api-graph-related", "get", "/api/graph/{g}/nodes/{node}/related"),
    Call("api-graph-traverse", "get", "/api/graph/{g}/nodes/{node}/traverse?max_depth=3"),
    Call("api-graph-node", "delete", "/api/graph/{g}/nodes/{node}"),
    Call(
        "api-retrieval-activation",
        "post",
        "/api/retrieval/activation",
        {"group": "{g}", "seeds": [{"id": "{node}", "score": 1}]},
        SHOWS_NOTHING | REFUSED_INPUT,
    ),
    Call(
        "api-retrieval-ppr", "post", "/api/retrieval/ppr", {"group": "{g}", "seeds": [{"id": "{node}"}]}, REFUSED_INPUT
    ),
    Call("api-search", "get", "/api/search?q=Liv+Tallinn&group={g}"),
    Call("api-search-suggest", "get", "/api/search/suggest?q=Liv&group={g}"),
    # Saved views: {view} is a view the group's curator shared; sharing and the default need the curator role.
    Call("api-group-views", "get", "/api/groups/{g}/views"),
    Call(
        "api-group-views",
        "post",
        "/api/groups/{g}/views",
        {"name": "team lens", "state": "w=0.5", "shared": True},
        refusal=SHARING_NEEDS_CURATOR,
    ),
    Call("api-group-view-default", "get", "/api/groups/{g}/views/default"),
    Call("api-group-view", "get", "/api/groups/{g}/views/{view}"),
    Call("api-group-view", "patch", "/api/groups/{g}/views/{view}", {"default": True}, refusal=SHARING_NEEDS_CURATOR),
    Call("api-group-view", "delete", "/api/groups/{g}/views/{view}", refusal="Only the view's owner, or a curator"),
    Call(
        "api-search",
        "get",
        "/api/search?q=Liv+Tallinn&group={g}&recipe=facts_node_distance&center={node}",
        guessed=SHOWS_NOTHING,  # the centre is not in the group: A's results, none nearer than another
    ),
    Call(
        "api-search",
        "post",
        "/api/search",
        {"query": "Liv Tallinn", "group": "{g}", "config": {"facts": {"methods": ["bm25"], "reranker": "rrf"}}},
    ),
    Call(
        "api-context",
        "post",
        "/api/context",
        {"query": "Liv Tallinn", "group": "{g}", "budget_tokens": 300},
        guessed=SHOWS_NOTHING,  # names no ids: a curator of A gets A's context
    ),
]
GROUP_FREE = {"api-health", "api-me", "api-groups", "api-schema"}

# Pages: (url name, path); a page naming a group or a node must be 404 for anyone outside that group.
PAGES = [
    ("explorer:home", "/"),
    ("explorer:search", "/search/?q=Liv+Tallinn"),
    ("explorer:help", "/help/"),
    ("explorer:search-export", "/search/export?q=Liv+Tallinn&format=json"),
    ("explorer:entity", "/g/{g}/entities/{node}/"),
    ("explorer:episode", "/g/{g}/episodes/{episode}/"),
    ("explorer:community", "/g/{g}/communities/{community}/"),
    ("explorer:graph", "/g/{g}/graph/?node={node}"),
    ("explorer:live", "/g/{g}/live/?seed={node}"),
    ("explorer:watch", "/g/{g}/watch/"),
    ("explorer:audit", "/g/{g}/audit/"),
    ("explorer:jobs", "/g/{g}/jobs/"),
    ("api-docs", "/api/docs/"),
]
# Answered to anyone, for load balancers: up or down, never a group's data.
PUBLIC = {"healthz": "/healthz"}
POST_PAGES = {"explorer:switch-group": "/group/"}  # form posts: {"group": ...}
# Pages that only draw the group's shell (the browser asks the API for the rest): B's ids may appear in them.
SHELL_PAGES = {"explorer:graph", "explorer:live"}


def named_patterns(resolver: URLResolver | None = None, namespace: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            if entry.app_name != "admin":  # Django's admin guards itself (staff only)
                yield from named_patterns(entry, inner)
        elif entry.name:
            yield f"{namespace}{entry.name}", entry


def served_methods(pattern: URLPattern) -> set[str]:
    view = getattr(pattern.callback, "view_class", None)
    if view is None:
        return {"get"}  # a function view: its methods are the table's
    return {method for method in METHODS if hasattr(view, method)}


def test_every_endpoint_and_method_is_in_the_tables() -> None:
    listed = {(call.name, call.method) for call in API_CALLS}
    pages = {name for name, _ in PAGES} | set(POST_PAGES) | set(PUBLIC)
    untested = []
    for name, pattern in named_patterns():
        if name in ("login", "logout"):
            continue
        if name.startswith("api-") and name != "api-docs":
            untested += [
                f"{name} {method.upper()}" for method in served_methods(pattern) if (name, method) not in listed
            ]
        elif name not in pages:
            untested.append(name)
    assert not untested, f"add these to tests/api/test_isolation.py: {untested}"


def secret_document(group: str) -> dict[str, Any]:
    """The curation memory, every text of it marked SECRET."""

    def mark(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: mark(item) if key in ("name", "summary", "content", "fact", "nodes", "edges") else item
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [mark(item) for item in value]
        return f"{SECRET} {value}" if isinstance(value, str) else value

    document = curation_document(group)
    return {**document, "nodes": mark(document["nodes"]), "edges": mark(document["edges"])}


@dataclass(frozen=True)
class World:
    a: str
    b: str
    a_ids: dict[str, str]
    b_ids: dict[str, str]


IDS = ("node", "node2", "episode", "community", "edge", "entry", "mine", "view", "job", "export")


def ids_of(group: str, entry: int, view: int = 0, jobs: tuple[str, str] = ("", "")) -> dict[str, str]:
    return {
        "view": str(view),
        "job": jobs[0],
        "export": jobs[1],
        "g": group,
        "node": node_id(group, "liv"),
        "mine": node_id(group, "liv"),  # stays the caller's own node when the others are guessed
        "node2": node_id(group, "livdup"),
        "episode": node_id(group, "ep1"),
        "community": node_id(group, "c1"),
        "edge": edge_id(group, "lives"),
        "entry": str(entry),
    }


@pytest.fixture(scope="module")
def memories(graph_server: object) -> Iterator[tuple[str, str]]:
    """A (plain curation memory) and B (the same shape, every text SECRET), shared: only refused calls touch them."""
    a, b = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    graph_document_import(document=parse_graph_document(curation_document(a), group=a), group=a)
    graph_document_import(document=parse_graph_document(secret_document(b), group=b), group=b)
    yield a, b
    driver.write("MATCH (n:Memory) WHERE n.group_id IN $groups DETACH DELETE n", groups=[a, b])


@pytest.fixture
def world(memories: tuple[str, str], client_for: Callable[..., APIClient]) -> World:
    """The two memories, with one audit entry in each (audit entries live in the test's database)."""
    group, other_group = memories
    entries = {}
    for name, target in (("alice-owner", group), ("bob", other_group)):
        owner = client_for("curator", [target], username=name)
        url = f"/api/groups/{target}/edges/{quote(edge_id(target, 'maren-lives'))}"
        weight = 0.41 if owner.get(url).json()["weight"] == 0.42 else 0.42  # a change, whatever the last test left
        edited = owner.patch(url, data=json.dumps({"weight": weight}), content_type="application/json")
        assert edited.status_code == 200, edited.content
        entries[target] = edited.json()["entry"]["id"]
    views = {target: shared_view(name, target) for name, target in (("alice-owner", group), ("bob", other_group))}
    jobs = {group: finished_jobs(group, secret=False), other_group: finished_jobs(other_group, secret=True)}
    return World(
        group,
        other_group,
        ids_of(group, entries[group], views[group], jobs[group]),
        ids_of(other_group, entries[other_group], views[other_group], jobs[other_group]),
    )


def finished_jobs(group: str, *, secret: bool) -> tuple[str, str]:
    """A finished community build and a finished export of the group (job rows live in Django's DB); B's and the
    twin's hold the secret, so a job of theirs answered to a stranger would show it."""
    from memoria.jobs.models import Job

    mark = SECRET if secret else "plain"
    result = {"note": f"{mark} of {group}"}
    build = Job.objects.create(kind="communities", group=group, state="succeeded", requested_by="x", result=result)
    export = Job.objects.create(
        kind="export", group=group, state="succeeded", requested_by="x", result=result, output={"nodes": [mark]}
    )
    return str(build.pk), str(export.pk)


def shared_view(owner: str, group: str) -> int:
    """A view the group's curator shared, named and shaped with the group's secret (saved views live in Django's DB)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username=owner)
    name = f"{SECRET} lens" if owner in ("bob", "tim") else "lens"
    return Perspective.objects.create(owner=user, group=group, name=name, state="w=0.5", shared=True).pk


def send(client: Client, call: Call, ids: dict[str, str]):
    path, body = call.fill(ids)
    data = None if body is None else json.dumps(body)
    return getattr(client, call.method)(path, data=data, content_type="application/json")


def shows_nothing_of_b(response, world: World) -> None:
    text = response.content.decode(errors="replace")
    assert SECRET not in text, (response.status_code, text[:500])


GROUP_CALLS = [call for call in API_CALLS if call.name not in GROUP_FREE]
ID_CALLS = [call for call in GROUP_CALLS if any(f"{{{key}}}" in call.path + json.dumps(call.body) for key in IDS)]


def call_id(call: Call) -> str:
    return f"{call.method.upper()} {call.path}"


@pytest.mark.parametrize("call", API_CALLS, ids=call_id)
def test_nobody_signed_in_gets_401_and_nothing_else(call: Call, world: World) -> None:
    before = graph_snapshot(world.b)
    response = send(APIClient(), call, world.b_ids)
    assert response.status_code == 401, (response.status_code, response.content[:300])
    shows_nothing_of_b(response, world)
    assert graph_snapshot(world.b) == before


def test_a_bad_token_is_401(world: World) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get(f"/api/groups/{world.b}/export").status_code == 401


@pytest.mark.parametrize("call", GROUP_CALLS, ids=call_id)
def test_naming_another_group_is_404_and_changes_nothing(call: Call, world: World, client_for) -> None:
    alice = client_for("curator", [world.a], username="alice")
    before = graph_snapshot(world.b)
    response = send(alice, call, world.b_ids)
    assert response.status_code == 404, (response.status_code, response.content[:300])
    assert response.json()["code"] == "not_found"
    shows_nothing_of_b(response, world)
    assert graph_snapshot(world.b) == before


@pytest.mark.parametrize("call", [call for call in ID_CALLS if call.guessed != OWN_ITEM], ids=call_id)
def test_guessing_the_other_groups_ids_under_ones_own_group_shows_and_changes_nothing(
    call: Call, world: World, client_for
) -> None:
    alice = client_for("curator", [world.a], username="alice")
    before = graph_snapshot(world.b)
    guessed = {**world.b_ids, "g": world.a, "mine": world.a_ids["mine"]}
    response = send(alice, call, guessed)
    assert response.status_code in call.guessed, (response.status_code, response.content[:300])
    shows_nothing_of_b(response, world)
    assert graph_snapshot(world.b) == before


@pytest.mark.parametrize("call", [call for call in ID_CALLS if call.guessed == OWN_ITEM], ids=call_id)
def test_writing_the_other_groups_ids_makes_ones_own_items(call: Call, world: World, client_for) -> None:
    """An id B holds, written under a group of one's own, is a new item there; B's item of that id is untouched."""
    own = f"t-{uuid.uuid4().hex[:12]}"
    graph_document_import(document=parse_graph_document(curation_document(own), group=own), group=own)
    try:
        alice = client_for("curator", [own], username="alice-own")
        before = graph_snapshot(world.b)
        written = {**world.b_ids, "g": own, "mine": node_id(own, "liv")}
        response = send(alice, call, written)
        assert response.status_code in OWN_ITEM, (response.status_code, response.content[:300])
        shows_nothing_of_b(response, world)
        assert graph_snapshot(world.b) == before
        held = driver.read("MATCH (n:Memory {group_id: $g}) RETURN collect(n.id) AS ids", g=own)[0]["ids"]
        assert {written["node"], written["episode"]} & set(held)
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=own)


@pytest.fixture
def twins(graph_server: object, client_for: Callable[..., APIClient]) -> Iterator[World]:
    """A, and a twin group holding the very same ids with every text SECRET; each with an audit entry."""
    a, twin = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    graph_document_import(document=parse_graph_document(curation_document(a), group=a), group=a)
    graph_document_import(document=parse_graph_document(secret_document(a), group=twin), group=twin)
    entries = {}
    for name, target in (("alice-owner", a), ("tim", twin)):
        owner = client_for("curator", [target], username=name)
        url = f"/api/groups/{target}/edges/{quote(edge_id(a, 'maren-lives'))}"
        edited = owner.patch(url, data=json.dumps({"weight": 0.41}), content_type="application/json")
        assert edited.status_code == 200, edited.content
        entries[target] = edited.json()["entry"]["id"]
    views = {target: shared_view(name, target) for name, target in (("alice-owner", a), ("tim", twin))}
    jobs = {a: finished_jobs(a, secret=False), twin: finished_jobs(twin, secret=True)}
    twin_ids = {**ids_of(a, entries[twin], views[twin], jobs[twin]), "g": twin}
    yield World(a, twin, ids_of(a, entries[a], views[a], jobs[a]), twin_ids)
    driver.write("MATCH (n:Memory) WHERE n.group_id IN $groups DETACH DELETE n", groups=[a, twin])


@pytest.mark.parametrize("call", ID_CALLS, ids=call_id)
def test_the_same_ids_in_another_group_are_never_read_or_changed(call: Call, twins: World, client_for) -> None:
    """Every call a curator of A makes with A's ids acts on A alone, though the twin group holds each id too."""
    alice = client_for("curator", [twins.a], username="alice")
    before = graph_snapshot(twins.b)
    response = send(alice, call, twins.a_ids)
    assert response.status_code < 500, (response.status_code, response.content[:300])
    shows_nothing_of_b(response, twins)
    assert graph_snapshot(twins.b) == before


@pytest.mark.parametrize("call", [call for call in GROUP_CALLS if call.writes], ids=call_id)
def test_viewers_cannot_write(call: Call, world: World, client_for) -> None:
    viewer = client_for("viewer", [world.a], username="vera")
    before = graph_snapshot(world.a)
    response = send(viewer, call, world.a_ids)
    assert response.status_code == 403, (response.status_code, response.content[:300])
    assert response.json()["detail"].startswith(call.refusal), response.json()
    assert graph_snapshot(world.a) == before


@pytest.mark.parametrize("call", [call for call in GROUP_CALLS if not call.writes], ids=call_id)
def test_viewers_read_their_own_group(call: Call, world: World, client_for) -> None:
    """The other side of every refusal above: the same call on one's own group is answered (so 404s mean access)."""
    viewer = client_for("viewer", [world.a], username="vera")
    response = send(viewer, call, world.a_ids)
    answered = (200, 202) if call.name == "api-job-export" else (200,)  # 202: the export job started
    assert response.status_code in answered, (response.status_code, response.content[:300])


def test_lists_and_exports_hold_only_ones_own_group(world: World, client_for) -> None:
    alice = client_for("curator", [world.a], username="alice")
    groups = [row["group"] for row in alice.get("/api/groups").json()]
    assert world.a in groups and world.b not in groups
    assert alice.get("/api/me").json()["groups"] == [world.a]
    exported = alice.get(f"/api/groups/{world.a}/export")
    assert exported.status_code == 200 and world.b not in exported.content.decode()
    audit = alice.get(f"/api/groups/{world.a}/audit").json()["entries"]
    assert [entry["id"] for entry in audit] == [int(world.a_ids["entry"])]


@pytest.fixture
def browser(world: World) -> Client:
    """A signed-in browser (session cookie) that a curator of A uses, with CSRF checks on as in production."""
    user = user_grant(username="carol", role=Role.CURATOR, groups=[world.a], password="pw-carol-123")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.mark.parametrize("call", [call for call in GROUP_CALLS if call.method != "get"], ids=call_id)
def test_session_posts_without_a_csrf_token_are_403(call: Call, world: World, browser: Client) -> None:
    before = graph_snapshot(world.a)
    response = send(browser, call, world.a_ids)
    assert response.status_code == 403, (response.status_code, response.content[:300])
    assert "CSRF" in response.json()["detail"]
    assert graph_snapshot(world.a) == before


def test_a_session_post_with_its_csrf_token_is_served(world: World, browser: Client) -> None:
    page = browser.get("/")  # the page sets the CSRF cookie, as a browser's first visit does
    assert page.status_code == 200
    token = browser.cookies["csrftoken"].value
    path, body = Call("api-group-edge", "patch", "/api/groups/{g}/edges/{edge}", {"weight": 0.33}).fill(world.a_ids)
    response = browser.patch(path, data=json.dumps(body), content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200, response.content
    assert response.json()["edge"]["weight"] == 0.33


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[name for name, _ in PAGES])
def test_pages_send_anonymous_visitors_to_sign_in(name: str, path: str, world: World) -> None:
    url = path.format(**world.b_ids)
    response = Client().get(url)
    if response.status_code == 404 and name == "api-docs":
        pytest.skip("no /api/docs/ page in this tree")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), response
    posted = Client().post(POST_PAGES["explorer:switch-group"], {"group": world.b})
    assert posted.status_code == 302 and posted["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize(("name", "path"), [page for page in PAGES if "{g}" in page[1]], ids=lambda p: str(p))
def test_pages_of_another_group_or_its_ids_are_404(name: str, path: str, world: World, browser: Client) -> None:
    assert browser.get(path.format(**world.b_ids)).status_code == 404
    guessed = browser.get(path.format(**{**world.b_ids, "g": world.a}))
    if name in SHELL_PAGES or not any(f"{{{key}}}" in path for key in IDS):
        assert guessed.status_code == 200  # the group's own page: the ids are not read here, or only by the API
    else:
        assert guessed.status_code == 404
    shows_nothing_of_b(guessed, world)
    own = browser.get(path.format(**world.a_ids))
    assert own.status_code == 200


def test_group_free_pages_show_nothing_of_other_groups(world: World, browser: Client) -> None:
    home = browser.get("/")
    assert home.status_code == 200 and world.b not in home.content.decode()
    switched = browser.post("/group/", {"group": world.b, "csrfmiddlewaretoken": browser.cookies["csrftoken"].value})
    assert switched.status_code == 404
    found = browser.get("/search/?q=Liv+Tallinn")
    assert found.status_code == 200
    shows_nothing_of_b(found, world)


@pytest.mark.parametrize(("name", "path"), PUBLIC.items())
def test_public_probes_name_no_group(name: str, path: str, world: World) -> None:
    response = Client().get(path)
    assert response.status_code in (200, 503), response
    text = response.content.decode()
    assert world.a not in text and world.b not in text and SECRET not in text
