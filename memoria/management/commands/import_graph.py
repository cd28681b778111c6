"""`import_graph PATH --group G [--format auto|json|maig] [--no-reindex]`: load a graph document or a MAIG file
(docs/import-format.md), all or nothing, then embed what it wrote."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import InvalidInput
from memoria.graphindex.maig import is_maig, load_maig_document
from memoria.interchange.document import load_graph_document
from memoria.interchange.jsontext import file_bytes
from memoria.management.commands._document_io import add_document_arguments, checked_group, write_document


class Command(BaseCommand):
    help = "Import a JSON graph document into a group (nodes and edges upserted by id)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="JSON file, or - for standard input")
        parser.add_argument("--group", required=True)
        parser.add_argument(
            "--format", choices=("auto", "json", "maig"), default="auto", help="auto: MAIG when the file starts MAIG"
        )
        add_document_arguments(parser)

    def handle(
        self, *args: object, path: Path, group: str, format: str, reindex: bool, quiet: bool, **options: object
    ) -> None:
        checked_group(group)
        if str(path) == "-":
            text = self.stdin.read() if hasattr(self, "stdin") else __import__("sys").stdin.buffer.read()
        else:
            try:
                text = file_bytes(path)
            except InvalidInput as error:
                raise CommandError(str(error)) from error
        try:
            if format == "maig" or (format == "auto" and is_maig(text if isinstance(text, bytes) else b"")):
                document = load_maig_document(text if isinstance(text, bytes) else text.encode(), group=group)
            else:
                document = load_graph_document(text, group=group)
        except InvalidInput as error:
            raise CommandError(f"{path}: {error}") from error
        write_document(self, document=document, group=group, reindex=reindex, quiet=quiet, source=str(path))
