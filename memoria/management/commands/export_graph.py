"""`export_graph --group G [--output FILE] [--format json|maig]`: write a group back as a graph document, or its
edges as a MAIG file (docs/import-format.md#maig)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import GraphUnavailable, InvalidInput
from memoria.graphindex.maig import maig_export
from memoria.interchange.exporter import graph_document_export


class Command(BaseCommand):
    help = "Export a group as the JSON graph document that import_graph reads."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument("--output", type=Path, help="file to write (default: standard output)")
        parser.add_argument("--format", choices=("json", "maig"), default="json", help="maig: binary, edges only")

    def handle(self, *args: object, group: str, output: Path | None, format: str, **options: object) -> None:
        if format == "maig":
            self.write_maig(group, output)
            return
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

    def write_maig(self, group: str, output: Path | None) -> None:
        if output is None:
            raise CommandError("--format maig writes binary: give --output FILE")
        try:
            data, count = maig_export(group=group)
        except (ValueError, InvalidInput, GraphUnavailable) as error:
            raise CommandError(str(error)) from error
        tmp = output.with_name(output.name + ".partial")
        tmp.write_bytes(data)
        tmp.replace(output)
        self.stderr.write(f"wrote {count} edge(s), {len(data)} bytes of MAIG to {output}")
