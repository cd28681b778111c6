"""Wires neomodel to the shared sync driver; nothing connects until the first query."""

from __future__ import annotations

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "memoria.graph"
    label = "graph"

    def ready(self) -> None:
        from neomodel import db, get_config

        from memoria.graph.driver import database_name, graph_driver

        get_config().database_name = database_name()
        db.set_connection(driver=graph_driver())
