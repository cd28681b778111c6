"""`ingest PATH... --group G`: add episodes from JSON Lines, Markdown or text files through the add_episode pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.graph.rules import normalise_timestamp
from memoria.ingest.sources import episodes_from_file
from memoria.management.commands._episode_io import (
    add_ingest_arguments,
    episodes_ingest,
    episodes_read,
    ingest_options,
)


class Command(BaseCommand):
    help = (
        "Add episodes: .jsonl/.ndjson files hold one {id?, name?, content, source?, source_description?, valid_at?} "
        "a line; Markdown files give one episode a section, other text files one a paragraph. Already stored "
        "episodes are skipped, so an interrupted run continues where it stopped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
        parser.add_argument("--valid-at", help="reference time (ISO 8601 with a zone) of episodes that give none")
        add_ingest_arguments(parser)

    def handle(self, *args: object, paths: list[Path], valid_at: str | None, **options: Any) -> None:
        chosen = ingest_options(options)
        try:
            reference = normalise_timestamp(valid_at) if valid_at else None
        except ValueError as error:
            raise CommandError(f"--valid-at {valid_at!r}: {error}") from error
        origins: list[str] = []
        episodes = episodes_read(paths, lambda path: episodes_from_file(path, valid_at=reference), origins)
        self.stdout.write(f"{len(episodes)} episode(s) read from {len(paths)} file(s)")
        episodes_ingest(self, episodes=episodes, options=chosen, origins=origins)
