"""`import_graph PATH --group G`: load a graph document (docs/import-format.md); all or nothing."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.accounts.roles import check_group_name
from memoria.errors import InvalidInput
from memoria.interchange.document import load_graph_document
from memoria.management.commands._document_io import write_document


class Command(BaseCommand):
    help = "Import a JSON graph document into a group (nodes and edges upserted by id)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="JSON file, or - for standard input")
        parser.add_argument("--group", required=True)
        parser.add_argument("--quiet", action="store_true", help="no progress bar")

    def handle(self, *args: object, path: Path, group: str, quiet: bool, **options: object) -> None:
        try:
            check_group_name(group)
        except ValueError as error:
            raise CommandError(str(error)) from error
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
        write_document(self, document=document, group=group, quiet=quiet)
