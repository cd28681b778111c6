"""Engine errors met outside DRF: JSON problems under /api/, plain pages elsewhere, never a traceback or an address."""

from __future__ import annotations

import json

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from memoria.errors import GraphUnavailable, QueryTooLarge
from memoria.graph import driver
from memoria.graph.embedded import EmbeddedServer
from memoria.middleware import GraphUnavailableMiddleware
from tests.graph.test_retry import OVERSIZED_SORT

middleware = GraphUnavailableMiddleware(lambda request: HttpResponse())


def refusal() -> QueryTooLarge:
    with pytest.raises(QueryTooLarge) as raised:
        driver.read(OVERSIZED_SORT)
    return raised.value


def test_a_query_too_large_answers_422_on_pages_and_under_api(heap_limited_graph_server: EmbeddedServer) -> None:
    """The real refusal of a real server (arcadedb.queryMaxHeapRAM), raised by a view Django (not DRF) serves."""
    error = refusal()

    page = middleware.process_exception(RequestFactory().get("/g/demo/graph/"), error)
    assert page is not None and page.status_code == 422 and "Retry-After" not in page
    assert b"refused this query as too large" in page.content and b"ORDER BY" in page.content

    api = middleware.process_exception(RequestFactory().get("/api/groups/demo/nodes"), error)
    assert api is not None and api.status_code == 422
    problem = json.loads(api.content)
    assert problem["code"] == "query_too_large" and problem["too_large"] == "ORDER BY", problem


def test_an_outage_answers_503_without_the_servers_address(graph_server: EmbeddedServer) -> None:
    error = GraphUnavailable(f"graph read failed: Couldn't connect to {graph_server.host}:{graph_server.bolt_port}")

    for path in ("/g/demo/graph/", "/api/groups/demo/nodes"):
        answer = middleware.process_exception(RequestFactory().get(path), error)
        assert answer is not None and answer.status_code == 503 and answer["Retry-After"] == "5"
        assert graph_server.host.encode() not in answer.content, answer.content
        assert f":{graph_server.bolt_port}".encode() not in answer.content, answer.content
