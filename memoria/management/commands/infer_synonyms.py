"""`infer_synonyms --group G [--threshold T] [--remove]`: HippoRAG's synonymy edges between entities whose names
embed alike, stored as tagged inferred facts (memoria.linking.synonyms); a rerun changes only what differs."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import MemoriaError
from memoria.linking.synonyms import DEFAULT_THRESHOLD, INFERRED_TAG, synonyms_infer, synonyms_remove


class Command(BaseCommand):
    help = (
        "Add a SYNONYM_OF fact (tagged inferred:synonymy, with the model and threshold) between every two entities "
        "whose name embeddings reach the cosine threshold, and delete the inferred ones no longer found."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument(
            "--threshold",
            type=float,
            default=DEFAULT_THRESHOLD,
            help=f"cosine of two names' embeddings at or above which they are linked (default {DEFAULT_THRESHOLD})",
        )
        parser.add_argument("--remove", action="store_true", help=f"delete every fact tagged {INFERRED_TAG}")

    def handle(self, *args: object, group: str, threshold: float, remove: bool, **options: object) -> None:
        try:
            if remove:
                removed = synonyms_remove(group=group)
                self.stdout.write(f"group {group}: removed {removed} inferred synonymy edge(s)")
                return
            report = synonyms_infer(group=group, threshold=threshold)
        except (ValueError, MemoriaError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"group {group}: {report.pairs} synonymy edge(s) among {report.entities} entities at cosine ≥ "
            f"{report.threshold:g} ({report.model}); {report.written} written, {report.removed} removed, "
            f"{report.seconds:.2f} s"
        )
