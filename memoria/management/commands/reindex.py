"""`reindex --group G [--all]`: compute the group's missing embeddings (or all of them) so vector search sees them,
and give stored messages the preceding messages search reads with them (memoria.ingest.preceding)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from memoria.accounts.roles import check_group_name
from memoria.errors import EmbeddingModelError, GraphUnavailable
from memoria.ingest.preceding import preceding_backfill
from memoria.reindex import DEFAULT_BATCH_SIZE, group_reindex, reindex_backlog


class Command(BaseCommand):
    help = "Embed a group's entity and community names, episode contents and facts that have no vector yet."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument("--all", dest="recompute", action="store_true", help="recompute every vector")
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help="texts per round trip")
        parser.add_argument("--quiet", action="store_true", help="no progress bar")

    def handle(
        self, *args: object, group: str, recompute: bool, batch_size: int, quiet: bool, **options: object
    ) -> None:
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        try:
            check_group_name(group)
        except ValueError as error:
            raise CommandError(str(error)) from error
        try:
            backlog = reindex_backlog(group=group, only_missing=not recompute)
            with tqdm(total=backlog, unit="text", desc=f"reindex {group}", disable=quiet, file=self.stderr._out) as bar:
                report = group_reindex(
                    group=group, only_missing=not recompute, batch_size=batch_size, progress=bar.update
                )
            messages = preceding_backfill(group=group)
        except (GraphUnavailable, EmbeddingModelError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"group {group}: embedded {report.entities} entity name(s), {report.communities} community name(s), "
            f"{report.episodes} episode(s) and {report.facts} fact(s): {report.texts} text(s) "
            f"in {report.seconds:.2f} s ({report.load_seconds:.2f} s loading the model), "
            f"{report.texts_per_second:.0f} texts/s; {messages} message(s) given their preceding messages"
        )
