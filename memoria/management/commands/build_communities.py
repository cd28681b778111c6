"""`build_communities --group G`: cluster the group's entities and replace its communities in one transaction."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.accounts.roles import check_group_name
from memoria.errors import MemoriaError
from memoria.ingest.communities import (
    ALGORITHMS,
    DEFAULT_RESOLUTION,
    LABEL_PROPAGATION,
    CommunityReport,
    communities_build,
)


class Command(BaseCommand):
    help = "Build a group's communities (label propagation or Leiden), with summaries, names and HAS_MEMBER edges."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", required=True)
        parser.add_argument("--algorithm", choices=ALGORITHMS, default=LABEL_PROPAGATION)
        parser.add_argument(
            "--resolution",
            type=float,
            default=None,
            help=f"Leiden only, greater than 0 (default {DEFAULT_RESOLUTION}): higher gives more, smaller communities",
        )

    def handle(self, *args: object, group: str, algorithm: str, resolution: float | None, **options: object) -> None:
        try:
            check_group_name(group)
            report = communities_build(group=group, algorithm=algorithm, resolution=resolution)
        except (ValueError, MemoriaError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"group {group}: {len(report.communities)} communities of {report.clustered_entities} entities "
            f"({report.unclustered_entities} in none), {report.summaries} summaries, "
            f"{report.removed} old ones replaced, {_rounds(report)}, {report.seconds:.2f} s"
        )


def _rounds(report: CommunityReport) -> str:
    if report.resolution is None:
        return f"{report.iterations} sweeps"
    return f"Leiden at resolution {report.resolution:g}, {report.iterations} cycles"
