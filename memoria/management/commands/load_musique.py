"""`load_musique DIR --group G [--no-reindex]`: HippoRAG's MuSiQue slice with its OpenIE triples (docs/datasets.md),
embedded after the import unless told not to (a bulk load may prefer `reindex` later)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.accounts.roles import check_group_name
from memoria.datasets.musique import build_musique
from memoria.errors import InvalidInput
from memoria.interchange.document import parse_graph_document
from memoria.management.commands._document_io import add_document_arguments, write_document


class Command(BaseCommand):
    help = "Load MuSiQue passages as episodes and their OpenIE triples as facts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="folder with corpus.json and openie.json")
        parser.add_argument("--group", required=True)
        add_document_arguments(parser)

    def handle(self, *args: object, directory: Path, group: str, reindex: bool, quiet: bool, **options: object) -> None:
        try:
            check_group_name(group)
            built = build_musique(directory, group=group)
            document = parse_graph_document(built.document, group=group)
        except (InvalidInput, ValueError) as error:
            raise CommandError(str(error)) from error
        stats = built.stats
        self.stdout.write(
            f"MuSiQue: {stats.episodes} passage(s), {stats.entities} entit(ies), {stats.facts} fact(s) from "
            f"{stats.triples_read} triple(s); {stats.skipped_triples} skipped, {stats.duplicate_triples} merged"
        )
        for example in stats.skipped_examples[:5]:
            self.stdout.write(f"  skipped {example}")
        write_document(self, document=document, group=group, reindex=reindex, quiet=quiet)
