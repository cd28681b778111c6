"""`load_locomo FILE... --group G`: LoCoMo conversations through the add_episode pipeline, one episode a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.datasets.locomo import locomo_episodes
from memoria.management.commands._episode_io import (
    add_ingest_arguments,
    episodes_ingest,
    episodes_read,
    ingest_options,
)

CONVERSATIONS = "conversation-*.json"


class Command(BaseCommand):
    help = (
        "Load LoCoMo conversation-*.json files (or folders of them): each turn an episode named by its dia_id, "
        "'speaker: text', at its session's date. Turns already stored are skipped, so a rerun resumes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        add_ingest_arguments(parser)

    def handle(self, *args: object, files: list[Path], **options: Any) -> None:
        chosen = ingest_options(options)
        paths = [found for path in files for found in (sorted(path.glob(CONVERSATIONS)) if path.is_dir() else [path])]
        if not paths:
            raise CommandError(f"no {CONVERSATIONS} files in {', '.join(map(str, files))}")
        origins: list[str] = []
        episodes = episodes_read(paths, lambda path: locomo_episodes(path, group=chosen.group), origins)
        self.stdout.write(f"LoCoMo: {len(episodes)} turn(s) in {len(paths)} conversation(s)")
        episodes_ingest(self, episodes=episodes, options=chosen, origins=origins)
