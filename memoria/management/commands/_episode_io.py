"""Shared by the commands that add episodes: skip what is stored, a progress bar, one way to report throughput.

The steps follow the settings (extractors_for_settings): the LLM's when MEMORIA_LLM_URL and MEMORIA_LLM_MODEL are
set, unless --extractor says otherwise. An LLM that fails mid-run stops the run: the batch it failed in writes
nothing, the batches before it stay, and running the command again resumes with that batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from memoria.accounts.roles import check_group_name
from memoria.embeddings import embedder
from memoria.errors import EmbeddingModelError, GraphUnavailable, InvalidInput, LlmUnavailable, QueryTooLarge
from memoria.ingest.episodes import EpisodeInput, episode_prepare
from memoria.ingest.pipeline import (
    DEFAULT_BATCH_SIZE,
    EpisodeResult,
    Extractors,
    episodes_add,
    extractors_for_settings,
    stored_episodes,
)
from memoria.llm.modes import STEP_MODES, StepMode

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
        help="threads for the embedding model (default: one per core); 1 is faster on a machine whose "
        "cores are busy with other work (docs/benchmarks.md)",
    )
    parser.add_argument(
        "--extractor",
        choices=STEP_MODES,
        default=StepMode.AUTO,
        help="extraction and resolution steps: the LLM's when MEMORIA_LLM_URL and MEMORIA_LLM_MODEL are set (auto), "
        "always offline, or the LLM's (an error when none is configured)",
    )
    parser.add_argument(
        "--no-communities",
        dest="update_communities",
        action="store_false",
        help="do not refresh the group's communities after each batch (build_communities can later)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


@dataclass(frozen=True)
class IngestOptions:
    group: str
    batch_size: int
    episode_vectors: bool
    embedding_threads: int | None
    quiet: bool
    extractor: str = StepMode.AUTO
    update_communities: bool = True


def ingest_options(options: dict[str, Any]) -> IngestOptions:
    """The options of add_ingest_arguments, checked: CommandError names a bad one."""
    chosen = IngestOptions(
        group=options["group"],
        batch_size=options["batch_size"],
        episode_vectors=options["episode_vectors"],
        embedding_threads=options["embedding_threads"],
        quiet=options["quiet"],
        extractor=options["extractor"],
        update_communities=options["update_communities"],
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


def extractors_chosen(options: IngestOptions) -> Extractors:
    """The steps --extractor asks for; CommandError when they need an LLM that is not (or badly) configured."""
    try:
        return extractors_for_settings(choice=options.extractor)
    except (InvalidInput, LlmUnavailable) as error:
        raise CommandError(f"--extractor {options.extractor}: {error}") from error


def _described(extractors: Extractors) -> str:
    if extractors.llm is None:
        return "offline extractor"
    return f"LLM extractor ({extractors.llm.config.model} at {extractors.llm.config.endpoint})"


def episodes_read(
    paths: list[Path], read: Callable[[Path], list[EpisodeInput]], origins: list[str] | None = None
) -> list[EpisodeInput]:
    """Every file is read and checked before anything is written: one bad file, and nothing is.

    `origins`, when given, gains each episode's file and position, for later problems (an id held as an entity).
    """
    episodes: list[EpisodeInput] = []
    try:
        for path in paths:
            found = read(path)
            episodes.extend(found)
            if origins is not None:
                origins.extend(f"{path} episode {number}" for number in range(1, len(found) + 1))
    except InvalidInput as error:
        raise CommandError(str(error)) from error
    return episodes


def _stored_in_group(group: str, ids: list[str], origins: Sequence[str] | None) -> set[str]:
    """The ids the group holds already; an id it holds as an entity is refused, named with the file it came from."""
    stored: set[str] = set()
    for start in range(0, len(ids), STORED_CHECK_CHUNK):
        chunk = ids[start : start + STORED_CHECK_CHUNK]
        try:
            stored |= stored_episodes(group=group, ids=chunk)
        except InvalidInput as error:
            if origins is None:
                raise
            quoted = [(repr(episode_id), origins[start + offset]) for offset, episode_id in enumerate(chunk)]
            named = [next((f"{at}: {text}" for id_, at in quoted if id_ in text), text) for text in error.problems]
            raise InvalidInput(named) from error
    return stored


def _stopped(error: LlmUnavailable | GraphUnavailable | QueryTooLarge, *, stored_now: int) -> str:
    """Why a run stopped mid-way and how to resume it: each batch is stored whole or not at all."""
    if isinstance(error, LlmUnavailable):
        return (
            f"the LLM failed, so the batch it was working on wrote nothing ({stored_now} episode(s) of this run are "
            f"stored; run the command again to resume, or use --extractor offline): {error}"
        )
    if isinstance(error, QueryTooLarge):
        return (
            f"the graph server refused a query of a batch as too large, so that batch wrote nothing ({stored_now} "
            f"episode(s) of this run are stored); run the command again with a smaller --batch-size: {error}"
        )
    return (
        f"the graph server became unavailable; each batch is stored whole or not at all, and {stored_now} "
        f"episode(s) of this run are stored. Once the server is back, run the command again to add the rest: "
        f"{error}"
    )


def episodes_ingest(
    command: BaseCommand,
    *,
    episodes: list[EpisodeInput],
    options: IngestOptions,
    origins: Sequence[str] | None = None,
) -> list[EpisodeResult]:
    """Add the episodes not stored yet; an interrupted run keeps its finished batches and resumes from there."""
    group = options.group
    extractors = extractors_chosen(options)
    done: list[EpisodeResult] = []

    def advance(batch: list[EpisodeResult]) -> None:
        done.extend(batch)
        bar.update(len(batch))

    try:
        ids = [episode_prepare(group=group, episode=episode).id for episode in episodes]
        stored = _stored_in_group(group, ids, origins)
        todo = [episode for episode, episode_id in zip(episodes, ids, strict=True) if episode_id not in stored]
        loading = time.perf_counter()
        if todo:
            model = embedder()  # loaded before the clock starts: throughput counts ingestion only
            if options.embedding_threads:
                model.threads_set(options.embedding_threads)  # the command owns its process's threads
        load_seconds = time.perf_counter() - loading
        started = time.perf_counter()
        with tqdm(
            total=len(todo), unit="episode", desc=f"ingest → {group}", disable=options.quiet, file=command.stderr._out
        ) as bar:
            results = episodes_add(
                group=group,
                episodes=todo,
                extractors=extractors,
                batch_size=options.batch_size,
                episode_vectors=options.episode_vectors,
                update_communities=options.update_communities,
                progress=advance,
            )
        seconds = time.perf_counter() - started
    except (LlmUnavailable, GraphUnavailable, QueryTooLarge) as error:
        raise CommandError(_stopped(error, stored_now=sum(result.added for result in done))) from error
    except (InvalidInput, EmbeddingModelError) as error:
        raise CommandError(str(error)) from error
    added = [result for result in results if result.added]
    rate = len(added) / seconds if seconds > 0 else 0.0
    command.stdout.write(
        f"group {group}: {len(added)} episode(s) added, {len(episodes) - len(added)} already stored; "
        f"{sum(len(r.entities_created) for r in added)} entit(ies) and {sum(len(r.facts_created) for r in added)} "
        f"fact(s) created, {sum(len(r.facts_merged) for r in added)} merged, "
        f"{sum(len(r.facts_invalidated) for r in added)} invalidated; {seconds:.2f} s, {rate:.1f} episodes/s "
        f"with the {_described(extractors)} (model loaded in {load_seconds:.2f} s)"
    )
    _report_communities(command, added, options)
    return results


def _report_communities(command: BaseCommand, added: list[EpisodeResult], options: IngestOptions) -> None:
    if not options.update_communities or not added:
        return
    refreshed = {community for result in added for community in result.communities}
    command.stdout.write(f"communities: {len(refreshed)} refreshed (a group never built has none to refresh)")
    failures = {result.communities_error for result in added if result.communities_error}
    if failures:
        stale = sum(result.communities_error is not None for result in added)
        command.stderr.write(
            f"communities not refreshed after {stale} episode(s) (run build_communities --group {options.group}): "
            + "; ".join(sorted(failures))
        )
