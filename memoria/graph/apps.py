"""Wires neomodel to the shared sync driver; nothing connects until the first query."""

from __future__ import annotations

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "memoria.graph"
    label = "graph"

    def ready(self) -> None:
        from neomodel import get_config

        from memoria.graph.driver import database_name, graph_driver

        # Handing neomodel the driver, not calling db.set_connection(): that asks the server for its version
        # at once, and start-up must not need the graph server (pages answer 503 until it is back).
        config = get_config()
        config.database_name = database_name()
        config.driver = graph_driver()
