"""The audit page and the curation settings pages render, in-process: who sees undo, filters, paging, 404s."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from django.http import HttpRequest
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.curation.edit import edge_update
from memoria.curation.inputs import edge_patch_parse
from memoria.graph import driver
from tests.browse.graphs import small_memory

PASSWORD = "a long test password"


def signed_in(username: str, role: Role, group: str) -> Client:
    user_grant(username=username, role=role, groups=[group], password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username=username, password=PASSWORD)
    return client


def curation_config(html: str) -> dict:
    found = re.search(r'<script id="curation-config" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page has no curation-config"
    return json.loads(found.group(1))


@pytest.fixture
def edited(db: None, group: str) -> str:
    """The group's request → data source fact, its weight edited twice (two audit entries); its id."""
    ids = small_memory(group)
    edge_id = driver.read(
        "MATCH (a:Memory {id: $a})-[r:RELATES]->(b:Memory {id: $b}) RETURN r.id AS id", a=ids["req"], b=ids["ds"]
    )[0]["id"]
    for weight in (0.55, 0.65):
        edge_update(group=group, edge_id=edge_id, patch=edge_patch_parse({"weight": weight}), actor="carla")
    return edge_id


def test_audit_page_lists_changes_and_offers_undo_to_curators_only(group: str, edited: str) -> None:
    viewer = signed_in("viktor", Role.VIEWER, group).get(f"/g/{group}/audit/")
    curator = signed_in("carla", Role.CURATOR, group).get(f"/g/{group}/audit/")
    assert viewer.status_code == curator.status_code == 200
    for response in (viewer, curator):
        html = response.content.decode()
        assert html.count('data-testid="audit-entry"') == 2
        assert "0.55</span> → <span" in html and '→ <span class="after">0.65</span>' in html
        assert f'href="/g/{group}/audit/"' in html  # the header link
    assert curation_config(viewer.content.decode())["can_curate"] is False
    assert 'data-undo="' not in viewer.content.decode()
    curator_html = curator.content.decode()
    assert curation_config(curator_html)["can_curate"] is True
    assert curator_html.count('data-undo="') == 1  # only the latest change to the edge


def test_audit_page_names_the_item_and_quotes_its_fact(group: str, edited: str) -> None:
    """Before (issue 32): raw ids only, wrapped mid-id, no names and no fact text."""
    html = signed_in("viktor", Role.VIEWER, group).get(f"/g/{group}/audit/").content.decode()
    named = re.findall(r'data-testid="audit-item">([^<]*)</a>', html)
    assert named == ["Forecast Q3 demand for SKU-1 uses_data ERP orders"] * 2
    assert html.count('data-testid="audit-item-text">“The forecast uses ERP orders”') == 2
    assert html.count(f'title="{edited}" data-testid="audit-item-id">{edited}</code>') == 2


def test_audit_page_filters_by_item_and_pages(group: str, edited: str) -> None:
    client = signed_in("viktor", Role.VIEWER, group)
    first = client.get(f"/g/{group}/audit/", {"item_id": edited, "limit": 1}).content.decode()
    assert first.count('data-testid="audit-entry"') == 1 and "0.65" in first
    older = re.search(r'href="\?([^"]+)" data-testid="audit-older"', first)
    assert older, "a second page is offered"
    second = client.get(f"/g/{group}/audit/?{older.group(1).replace('&amp;', '&')}").content.decode()
    assert second.count('data-testid="audit-entry"') == 1 and "0.55" in second
    assert 'data-testid="audit-older"' not in second
    other = client.get(f"/g/{group}/audit/", {"item_id": "no-such-item"}).content.decode()
    assert 'data-testid="audit-entry"' not in other and "No changes to no-such-item" in other
    bad = client.get(f"/g/{group}/audit/", {"item_id": "bad id!"})
    assert bad.status_code == 200 and "item_id: must be an id" in bad.content.decode()


def test_audit_page_of_a_group_not_yours_is_404_and_needs_sign_in(db: None, group: str) -> None:
    client = signed_in("viktor", Role.VIEWER, group)
    assert client.get(f"/g/{group}-other/audit/").status_code == 404
    anonymous = Client().get(f"/g/{group}/audit/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")


def test_graph_and_entity_pages_tell_scripts_the_role(db: None, group: str) -> None:
    ids = small_memory(group)
    entity_url = f"/g/{group}/entities/{quote(ids['req'], safe='/')}/"
    viewer = signed_in("viktor", Role.VIEWER, group)
    curator = signed_in("carla", Role.CURATOR, group)
    for url in (f"/g/{group}/graph/", entity_url):
        assert curation_config(viewer.get(url).content.decode()) == {"group": group, "can_curate": False, "csrf": ""}
        shown = curation_config(curator.get(url).content.decode())
        assert shown["can_curate"] is True and shown["csrf"]
    assert 'data-testid="merge-query"' not in viewer.get(entity_url).content.decode()
    assert 'data-testid="merge-query"' in curator.get(entity_url).content.decode()
