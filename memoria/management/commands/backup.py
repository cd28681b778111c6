"""`backup --group G --out FILE`: one group's graph (every property, vectors included) and curation audit trail
in one checked file that `restore` reads (docs/operations.md#backup-and-restore)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.backup.service import group_backup
from memoria.errors import MemoriaError
from memoria.management.commands._document_io import checked_group


class Command(BaseCommand):
    help = "Back up a group (graph and curation audit trail) to one gzip'd, checksummed file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument("--out", required=True, type=Path, help="file to write, e.g. G.memoria-backup.gz")
        parser.add_argument("--force", action="store_true", help="overwrite FILE when it exists")

    def handle(self, *args: object, group: str, out: Path, force: bool, **options: object) -> None:
        checked_group(group)
        if out.exists() and not force:
            raise CommandError(f"{out} exists; pass --force to overwrite it")
        if not out.parent.is_dir():
            raise CommandError(f"{out.parent} is not a folder")
        try:
            report = group_backup(group=group, out=out)
        except MemoriaError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"backed up group {group!r} (version {report.graph_version}): {report.nodes} nodes, {report.edges} "
            f"relationships, {report.audit_entries} audit entries, {report.bytes} bytes to {out} "
            f"in {report.seconds:.2f} s (sha256 {report.sha256})"
        )
