"""The graph server goes down for real: pages and APIs answer 503 with a message, then recover by themselves."""

from __future__ import annotations

import time

from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.graph.embedded import EmbeddedServer


def test_health_reports_up(client_for) -> None:
    response = client_for("viewer").get("/api/health")
    assert response.status_code == 200
    graph = response.json()["graph"]
    assert graph["status"] == "up" and graph["dialect"] == "arcadedb" and graph["latency_ms"] >= 0


def test_health_needs_a_user(db: None) -> None:
    assert Client().get("/api/health").status_code == 401


def test_outage_gives_503_and_recovers_without_restart(client_for, graph_server: EmbeddedServer) -> None:
    api = client_for("viewer", ["demo"])
    page = Client()
    page.force_login(user_grant(username="analyst", role=Role.VIEWER, groups=["demo"]))
    assert api.get("/api/groups").status_code == 200
    assert page.get("/").status_code == 200

    graph_server.stop()
    try:
        started = time.perf_counter()
        down = api.get("/api/groups")
        answered_in = time.perf_counter() - started
        assert down.status_code == 503
        assert down.json()["code"] == "graph_unavailable"
        assert "graph server is unavailable" in down.json()["detail"]
        assert down["Retry-After"] == "5"
        assert answered_in < 15, f"503 took {answered_in:.1f} s"
        health = api.get("/api/health")
        assert health.status_code == 503 and health.json()["graph"]["status"] == "down"
        html = page.get("/")
        assert html.status_code == 503
        assert b"The graph server is unavailable" in html.content
        assert b"Traceback" not in html.content
        healthz = Client().get("/healthz")
        assert healthz.status_code == 503
        # The driver's text names the server's host and port: none of it reaches a client, signed in or not.
        for shown in (down, health, html, healthz):
            for address in (graph_server.host, f":{graph_server.bolt_port}", "bolt://"):
                assert address.encode() not in shown.content, (address, shown.content[:2000])
    finally:
        graph_server.start()

    assert api.get("/api/groups").status_code == 200
    assert api.get("/api/health").json()["graph"]["status"] == "up"
    assert page.get("/").status_code == 200
