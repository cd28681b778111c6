"""Shared by the commands that add episodes: skip what is stored, a progress bar, one way to report throughput."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from memoria.accounts.roles import check_group_name
from memoria.embeddings import embedder
from memoria.errors import EmbeddingModelError, GraphUnavailable, InvalidInput
from memoria.ingest.episodes import EpisodeInput, episode_prepare
from memoria.ingest.pipeline import DEFAULT_BATCH_SIZE, EpisodeResult, episodes_add, stored_episodes

STORED_CHECK_CHUNK = 1000


def add_ingest_arguments(parser: CommandParser) -> None:
    """The options every episode-adding command takes."""
    parser.add_argument("--group", required=True)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help="episodes per transaction")
    parser.add_argument(
        "--no-episode-vectors",
        dest="episode_vectors",
        action="store_false",
        help="do not embed episode contents now (about half the embedding work); `reindex` fills them later",
    )
    parser.add_argument(
        "--embedding-threads",
        type=int,
        help="threads for the embedding model (default: torch's, one per core); 1 is faster on a machine whose "
        "cores are busy with other work (docs/benchmarks.md)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


@dataclass(frozen=True)
class IngestOptions:
    group: str
    batch_size: int
    episode_vectors: bool
    embedding_threads: int | None
    quiet: bool


def ingest_options(options: dict[str, Any]) -> IngestOptions:
    """The options of add_ingest_arguments, checked: CommandError names a bad one."""
    chosen = IngestOptions(
        group=options["group"],
        batch_size=options["batch_size"],
        episode_vectors=options["episode_vectors"],
        embedding_threads=options["embedding_threads"],
        quiet=options["quiet"],
    )
    if chosen.batch_size < 1:
        raise CommandError("--batch-size must be at least 1")
    if chosen.embedding_threads is not None and chosen.embedding_threads < 1:
        raise CommandError("--embedding-threads must be at least 1")
    try:
        check_group_name(chosen.group)
    except ValueError as error:
        raise CommandError(str(error)) from error
    return chosen


def episodes_read(paths: list[Path], read: Callable[[Path], list[EpisodeInput]]) -> list[EpisodeInput]:
    """Every file is read and checked before anything is written: one bad file, and nothing is."""
    episodes: list[EpisodeInput] = []
    try:
        for path in paths:
            episodes.extend(read(path))
    except InvalidInput as error:
        raise CommandError(str(error)) from error
    return episodes


def episodes_ingest(
    command: BaseCommand, *, episodes: list[EpisodeInput], options: IngestOptions
) -> list[EpisodeResult]:
    """Add the episodes not stored yet; an interrupted run keeps its finished batches and resumes from there."""
    group = options.group
    try:
        ids = [episode_prepare(group=group, episode=episode).id for episode in episodes]
        stored: set[str] = set()
        for start in range(0, len(ids), STORED_CHECK_CHUNK):
            stored |= stored_episodes(group=group, ids=ids[start : start + STORED_CHECK_CHUNK])
        todo = [episode for episode, episode_id in zip(episodes, ids, strict=True) if episode_id not in stored]
        loading = time.perf_counter()
        if todo:
            embedder()  # loaded before the clock starts: throughput counts ingestion only
            if options.embedding_threads:
                import torch  # loaded by the embedder already; the command owns its process's threads

                torch.set_num_threads(options.embedding_threads)
        load_seconds = time.perf_counter() - loading
        started = time.perf_counter()
        with tqdm(
            total=len(todo), unit="episode", desc=f"ingest → {group}", disable=options.quiet, file=command.stderr._out
        ) as bar:
            results = episodes_add(
                group=group,
                episodes=todo,
                batch_size=options.batch_size,
                episode_vectors=options.episode_vectors,
                progress=lambda done: bar.update(len(done)),
            )
        seconds = time.perf_counter() - started
    except (InvalidInput, GraphUnavailable, EmbeddingModelError) as error:
        raise CommandError(str(error)) from error
    added = [result for result in results if result.added]
    rate = len(added) / seconds if seconds > 0 else 0.0
    command.stdout.write(
        f"group {group}: {len(added)} episode(s) added, {len(episodes) - len(added)} already stored; "
        f"{sum(len(r.entities_created) for r in added)} entit(ies) and {sum(len(r.facts_created) for r in added)} "
        f"fact(s) created, {sum(len(r.facts_merged) for r in added)} merged, "
        f"{sum(len(r.facts_invalidated) for r in added)} invalidated; {seconds:.2f} s, {rate:.1f} episodes/s "
        f"(model loaded in {load_seconds:.2f} s)"
    )
    return results
