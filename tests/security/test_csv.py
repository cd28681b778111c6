"""Formula-safe CSV (issue 33, item 5): text that a spreadsheet would read as a formula arrives as text.

An entity named `=HYPERLINK("http://evil.example","x")` was written to the search page's CSV as it was; opened in
a spreadsheet it became a live link. Both CSVs the explorer makes are held here: the search export (server side)
and the live page's paths (the page's JavaScript, run in Chromium by tests/e2e/test_content_security_policy.py).
"""

from __future__ import annotations

import csv
import io

import pytest
from django.http import HttpRequest
from django.test import Client

from explorer.exports import FORMULA_STARTS, formula_safe
from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.browse.graphs import entity, fact, load

PASSWORD = "a long test password"
# Names as an attacker would store them: each begins with one of the six characters a spreadsheet acts on.
HOSTILE_NAMES = (
    '=HYPERLINK("http://evil.example","x") cargo',
    "+1+cmd|' /C calc'!A0 cargo",
    "-2+3 cargo",
    "@SUM(1+1) cargo",
)
# A name is one line, so tab and carriage return come in a summary (the entity's `text` in the CSV).
HOSTILE_SUMMARIES = ("\t=1+1 cargo tabbed", "\r=1+1 cargo returned")


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_text_starting_like_a_formula_gets_an_apostrophe(start: str) -> None:
    assert formula_safe(f"{start}1") == f"'{start}1"


@pytest.mark.parametrize("value", ["cargo", "", "1=1", "a-b", "é=", None, -2, 0.5])
def test_anything_else_passes_unchanged(value: object) -> None:
    assert formula_safe(value) == value


@pytest.fixture
def reader(db: None, group: str) -> Client:
    ids = [f"{group}-n{index}" for index in range(len(HOSTILE_NAMES) + len(HOSTILE_SUMMARIES))]
    nodes = [entity(node_id, name) for node_id, name in zip(ids, HOSTILE_NAMES, strict=False)]
    nodes += [
        entity(node_id, f"cargo note {index}", summary=summary)
        for index, (node_id, summary) in enumerate(zip(ids[len(HOSTILE_NAMES) :], HOSTILE_SUMMARIES, strict=True))
    ]
    nodes.append(entity(f"{group}-hub", "cargo hub"))
    load(group, nodes=nodes, edges=[fact(f"{group}-hub", node_id, 0.9, "ships") for node_id in ids])
    user_grant(username="reader", role=Role.VIEWER, groups=[group], password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username="reader", password=PASSWORD)
    return client


def test_the_search_csv_guards_every_name_that_starts_like_a_formula(reader: Client) -> None:
    response = reader.get("/search/export", {"q": "cargo", "format": "csv"})
    assert response.status_code == 200, response.content
    rows = list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))
    names = {row["name"] for row in rows if row["scope"] == "entities"}
    texts = {row["text"] for row in rows if row["scope"] == "entities"}
    assert {f"'{name}" for name in HOSTILE_NAMES} <= names, names
    assert {f"'{summary}" for summary in HOSTILE_SUMMARIES} <= texts, texts
    assert "cargo hub" in names  # an ordinary name is left alone
    assert b"'\r=1+1 cargo returned" in response.content.replace(b'"', b"")  # quoted whole, not cut at the \r
    cells = [cell for row in rows for cell in row.values()]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@", "\t", "\r"))], cells
