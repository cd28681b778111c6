"""`import_graph PATH --group G [--no-reindex]`: load a graph document (docs/import-format.md), all or nothing,
then embed what it wrote."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import InvalidInput
from memoria.interchange.document import load_graph_document
from memoria.management.commands._document_io import add_document_arguments, checked_group, write_document


class Command(BaseCommand):
    help = "Import a JSON graph document into a group (nodes and edges upserted by id)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="JSON file, or - for standard input")
        parser.add_argument("--group", required=True)
        add_document_arguments(parser)

    def handle(self, *args: object, path: Path, group: str, reindex: bool, quiet: bool, **options: object) -> None:
        checked_group(group)
        if str(path) == "-":
            text = self.stdin.read() if hasattr(self, "stdin") else __import__("sys").stdin.read()
        else:
            try:
                text = path.read_bytes()
            except OSError as error:
                raise CommandError(f"cannot read {path}: {error.strerror}") from error
        try:
            document = load_graph_document(text, group=group)
        except InvalidInput as error:
            raise CommandError(f"{path}: {error}") from error
        write_document(self, document=document, group=group, reindex=reindex, quiet=quiet)
