"""The search page's downloads: CSV and JSON of the same hits the page shows, bad input answered 400 naming the
field, and nothing for anyone not signed in."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.http import HttpRequest
from django.test import Client

from explorer.exports import CSV_COLUMNS, SCOPES
from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.browse.graphs import small_memory

PASSWORD = "a long test password"
QUERY = "forecast ERP orders"


@pytest.fixture
def browser(db: None, group: str) -> Client:
    small_memory(group)
    user_grant(username="reader", role=Role.VIEWER, groups=[group], password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username="reader", password=PASSWORD)
    return client


def test_csv_and_json_hold_the_hits_the_page_shows(browser: Client, group: str) -> None:
    page = browser.get("/search/", {"q": QUERY}).content.decode()
    as_json = browser.get("/search/export", {"q": QUERY, "format": "json"})
    assert as_json.status_code == 200
    assert as_json["Content-Disposition"] == 'attachment; filename="memoria-search.json"'
    answer = json.loads(as_json.content)
    assert (answer["group"], answer["query"]) == (group, QUERY)
    hits = {scope: answer[scope] for scope in SCOPES}
    assert all(hits.values())
    for found in hits.values():
        for hit in found:
            assert f'data-id="{hit["id"]}"' in page  # the page drew every hit the file holds
    as_csv = browser.get("/search/export", {"q": QUERY, "format": "csv"})
    assert as_csv["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(as_csv.content.decode())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [(row["scope"], row["id"]) for row in rows] == [
        (scope, hit["id"]) for scope in SCOPES for hit in hits[scope]
    ]
    first = hits["facts"][0]
    fact_row = rows[[row["scope"] for row in rows].index("facts")]
    assert (fact_row["rank"], fact_row["source"], fact_row["target"]) == ("1", first["source"], first["target"])
    assert float(fact_row["score"]) == pytest.approx(first["score"], rel=1e-5)
    assert set(fact_row["methods"].split()) == {f"{m}={v:.6g}" for m, v in first["scores"].items()}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"q": QUERY, "format": "xlsx"}, "format"),
        ({"format": "csv"}, "q"),
        ({"q": QUERY, "format": "csv", "x": "1"}, "body: unknown field(s) x"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(browser: Client, query: dict, field: str) -> None:
    response = browser.get("/search/export", query)
    assert response.status_code == 400
    assert any(problem.startswith(field) for problem in response.json()["errors"]), response.json()


def test_nothing_for_anyone_not_signed_in(db: None) -> None:
    response = Client().get("/search/export", {"q": QUERY, "format": "csv"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
