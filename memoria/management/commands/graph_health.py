"""`graph_health`: exit 0 when the graph server answers, 1 otherwise (for container health checks)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoria.graph.health import graph_health


class Command(BaseCommand):
    help = "Check that the configured graph server answers a query."

    def handle(self, *args: object, **options: object) -> None:
        health = graph_health()
        if not health.up:
            raise CommandError(f"graph server down: {health.detail}")
        self.stdout.write(f"graph server up ({health.dialect}, {health.latency_ms} ms)")
