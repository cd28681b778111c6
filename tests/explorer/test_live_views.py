"""The live retrieval and watch pages in-process: access, the settings they hand their scripts, links to them."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from django.test import Client

from explorer.consumers import ALGORITHMS
from memoria.retrieval.params import MAX_SEEDS, ActivationParams
from tests.browse.graphs import small_memory
from tests.explorer.signing import signed_in


@pytest.fixture
def browser(db: None, group: str) -> Client:
    return signed_in("reader", [group])


def page_config(html: str, script_id: str) -> dict:
    found = re.search(rf'<script id="{script_id}" type="application/json">(.*?)</script>', html, re.S)
    assert found, f"no {script_id} in the page"
    return json.loads(found.group(1))


def test_live_page_hands_its_script_the_settings_and_the_chosen_seeds(browser: Client, group: str) -> None:
    seeds = [f"{group}/s{i}" for i in range(MAX_SEEDS + 2)]
    query = "&".join(f"seed={quote(seed, safe='')}" for seed in seeds)
    response = browser.get(f"/g/{group}/live/?{query}&q=why%20gloves&run=1")
    assert response.status_code == 200
    config = page_config(response.content.decode(), "live-config")
    assert config["group"] == group
    assert config["algorithms"] == list(ALGORITHMS)
    assert config["defaults"] == ActivationParams().as_dict()
    assert config["bounds"]["min_activation"] == {"low": 0.0, "high": 1.0, "low_allowed": False}
    assert config["bounds"]["max_depth"] == {"low": 1, "high": 10, "low_allowed": True}
    assert config["start"] == {"seeds": seeds[:MAX_SEEDS], "query": "why gloves", "run": True}
    assert page_config(browser.get(f"/g/{group}/live/").content.decode(), "live-config")["start"] == {
        "seeds": [],
        "query": "",
        "run": False,
    }


def test_watch_page_and_access(browser: Client, group: str) -> None:
    response = browser.get(f"/g/{group}/watch/")
    assert response.status_code == 200
    assert page_config(response.content.decode(), "watch-config") == {"group": group}
    for path in ("live", "watch"):
        assert browser.get(f"/g/{group}-not-mine/{path}/").status_code == 404
        anonymous = Client().get(f"/g/{group}/{path}/")
        assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")


def test_header_entity_pages_and_search_results_link_to_a_live_retrieval(browser: Client, group: str) -> None:
    ids = small_memory(group)
    html = browser.get(f"/g/{group}/entities/{quote(ids['req'], safe='/')}/").content.decode()
    assert f'href="/g/{group}/live/"' in html and f'href="/g/{group}/watch/"' in html  # the header
    assert f'href="/g/{group}/live/?seed={quote(ids["req"], safe="")}&amp;run=1"' in html
    episode = browser.get(f"/g/{group}/episodes/{quote(ids['ep1'], safe='/')}/").content.decode()
    assert "retrieve-from-here" not in episode  # episodes have no facts to walk
    found = browser.get("/search/?q=Forecast%20Q3%20demand").content.decode()
    assert f"/g/{group}/live/?seed={quote(ids['req'], safe='')}&amp;run=1" in found
