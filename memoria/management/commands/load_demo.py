"""`load_demo [--no-reindex]`: the generated inventory-planning memory, into group `demo` (re-running updates in
place), embedded so search finds it."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from memoria.datasets.demo import demo_document
from memoria.interchange.document import parse_graph_document
from memoria.management.commands._document_io import add_document_arguments, checked_group, write_document


class Command(BaseCommand):
    help = "Load the demo memory (an inventory-planning agent's requests, actions, data sources and events)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", default="demo")
        parser.add_argument("--seed", type=int, default=7)
        add_document_arguments(parser)

    def handle(self, *args: object, group: str, seed: int, reindex: bool, quiet: bool, **options: object) -> None:
        checked_group(group)
        document = parse_graph_document(demo_document(seed=seed), group=group)
        write_document(self, document=document, group=group, reindex=reindex, quiet=quiet)
