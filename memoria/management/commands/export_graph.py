"""`export_graph --group G [--output FILE]`: write a group back as a graph document."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import GraphUnavailable
from memoria.interchange.exporter import graph_document_export


class Command(BaseCommand):
    help = "Export a group as the JSON graph document that import_graph reads."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument("--output", type=Path, help="file to write (default: standard output)")

    def handle(self, *args: object, group: str, output: Path | None, **options: object) -> None:
        try:
            document = graph_document_export(group=group)
        except ValueError as error:
            raise CommandError(str(error)) from error
        except GraphUnavailable as error:
            raise CommandError(str(error)) from error
        text = json.dumps(document, indent=1, ensure_ascii=False)
        if output is None:
            self.stdout.write(text)
            return
        tmp = output.with_name(output.name + ".partial")
        tmp.write_text(text)
        tmp.replace(output)
        self.stderr.write(f"wrote {len(document['nodes'])} node(s) and {len(document['edges'])} edge(s) to {output}")
