"""`restore --group G --in FILE [--replace]`: a backup written by `backup` restored into a group, all or nothing
(docs/operations.md#backup-and-restore)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.backup.service import group_restore
from memoria.errors import MemoriaError
from memoria.management.commands._document_io import checked_group


class Command(BaseCommand):
    help = "Restore a group from a backup file; the group must be empty unless --replace is given."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True, help="the group to restore into (the backed-up one or another)")
        parser.add_argument("--in", dest="source", required=True, type=Path, help="backup file written by `backup`")
        parser.add_argument(
            "--replace", action="store_true", help="delete what the group holds (graph and audit trail) first"
        )

    def handle(self, *args: object, group: str, source: Path, replace: bool, **options: object) -> None:
        checked_group(group)
        try:
            report = group_restore(group=group, source=source, replace=replace)
        except MemoriaError as error:
            raise CommandError(str(error)) from error
        origin = "" if report.source_group == group else f" (backed up as {report.source_group!r})"
        self.stdout.write(
            f"restored group {group!r}{origin}: {report.nodes} nodes, {report.edges} relationships, "
            f"{report.audit_entries} audit entries{', replacing what it held' if replace else ''} "
            f"in {report.seconds:.2f} s"
        )
