"""The search page in-process: a full tab says it is a cap ("20+"), and nonsense reads "no good match" rather than
sixty confident results (issue 32); the weak ones stay one click away."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client

from memoria.graph import driver
from memoria.reindex import group_reindex
from tests.browse.graphs import entity, load
from tests.explorer.signing import signed_in
from tests.search.suggest_memory import store_suggest_memory

BINS = 24  # more than the page's 20 a scope


@pytest.fixture(scope="module")
def searched_group(graph_server: object) -> Iterator[str]:
    group = "search-tabs-memory"
    store_suggest_memory(group)
    load(group, nodes=[entity(f"{group}-bin{i}", f"Bin {i} of the Lyon warehouse") for i in range(BINS)], edges=[])
    group_reindex(group=group)
    yield group
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


@pytest.fixture
def browser(db: None, searched_group: str) -> Client:
    return signed_in("reader", [searched_group])


def test_a_full_tab_says_it_is_a_cap(browser: Client) -> None:
    html = browser.get("/search/", {"q": "bin"}).content.decode()
    assert '<span class="count" data-testid="tab-count" title="the first 20; there may be more">20+</span>' in html
    assert 'data-testid="no-good-match"' not in html


def test_nonsense_is_no_good_match_and_the_nearest_are_one_click_away(browser: Client) -> None:
    html = browser.get("/search/", {"q": "zzqxv"}).content.decode()
    assert "No good match for “zzqxv”." in html and 'data-testid="tab-entities"' not in html
    assert 'href="?q=zzqxv&amp;weak=1" data-testid="show-weak"' in html
    weak = browser.get("/search/", {"q": "zzqxv", "weak": "1"}).content.decode()
    assert 'data-testid="tab-entities"' in weak and 'class="result"' in weak
