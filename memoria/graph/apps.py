"""Wires neomodel to the shared sync driver; nothing connects until the first query."""

from __future__ import annotations

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "memoria.graph"
    label = "graph"

    def ready(self) -> None:
        from memoria.graph.driver import neomodel_wire

        neomodel_wire()
