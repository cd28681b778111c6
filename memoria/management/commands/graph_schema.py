"""`graph_schema`: create the graph's constraints and indexes (idempotent)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoria.errors import GraphUnavailable
from memoria.graph.schema import schema_install


class Command(BaseCommand):
    help = (
        "Install the graph schema: (group, id) keys, range, full-text and vector indexes; retire constraints of "
        "earlier schemas (the migration to group-scoped ids). Safe to run again."
    )

    def handle(self, *args: object, **options: object) -> None:
        try:
            report = schema_install()
        except GraphUnavailable as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"schema installed on {report.dialect}: {report.constraints} constraint(s), "
            f"{report.range_indexes} range, {report.fulltext_indexes} full-text and "
            f"{report.vector_indexes} vector index(es)"
        )
        if not report.vector_indexes:
            self.stdout.write(
                "no vector indexes on the server (MEMORIA_GRAPH_VECTOR_INDEXES): a group past the view budget "
                "ranks its own vectors by an exact scan"
            )
        for name in report.retired:
            self.stdout.write(f"retired {name}: ids are unique per group now, keyed by (group_id, id)")
