"""Concurrent writers on one group: writers (threads and processes) adding overlapping episodes, and curators
editing, invalidating and deleting the same facts, every acknowledgement recorded.

The sentences come from a small cast and a few templates, so writers keep meeting on the same entities and facts
at the same moment: what a lost update needs to show. What each writer was told (the episode results, the audit
entries) is what memoria.loadtest.invariants then holds the graph to. Writers and curators call the services the
REST views call, in this process and in others, so the run needs no web server; a graph server that goes away
meanwhile (`outage`) is met as a client meets it, by trying the same request again.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import TYPE_CHECKING

from memoria.errors import GraphUnavailable, WriteConflict
from memoria.graph import driver, kinds
from memoria.graph.embedded import EmbeddedServer
from memoria.graph.rules import MAX_WEIGHT, MIN_WEIGHT
from memoria.ingest.episodes import EpisodeInput

if TYPE_CHECKING:
    from memoria.ingest.pipeline import EpisodeResult

logger = logging.getLogger(__name__)

PEOPLE = ("Alice Moreau", "Bruno Keller", "Chiara Rossi", "Dmitri Volkov", "Elena Sato", "Farid Haddad")
PLACES = ("Lyon", "Tallinn", "Porto", "Kyoto")
COMPANIES = ("Globex", "Initech")
# Each names two or three of the cast; "lives in" and "works at" are functional, so a new place or employer
# invalidates the old one, and "left" ends an employment: contradictions race as well as merges.
TEMPLATES = (
    "{p} works with {q}.",
    "{p} lives in {l}.",
    "{p} visited {l}.",
    "{p} met {q} in {l}.",
    "{p} works at {c}.",
    "{p} left {c}.",
    "{p} likes {l}.",
)
MAX_SENTENCES = 3
ATTEMPTS = 8  # a batch answered 409 or 503 is sent again, with the same ids, up to this many times
RETRY_PAUSE = 0.2  # seconds, times the attempt number, with jitter
CURATOR_PAUSE = (0.02, 0.2)  # seconds between a curator's read of a fact and its edit: ingest may merge meanwhile
CURATOR_REST = (0.2, 0.6)  # seconds between a curator's changes: a person at a screen, not a bulk job

RECENT_FACTS = f"""
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group}})-[r:{kinds.RELATES}]->(:{kinds.MEMORY_LABEL})
WHERE r.group_id = $group AND r.invalid_at IS NULL
RETURN r.id AS id
LIMIT $limit
"""
ENTITY_IDS = f"MATCH (n:{kinds.ENTITY} {{group_id: $group}}) RETURN n.id AS id LIMIT $limit"
GROUP_NODES_DELETE = f"MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group}}) DETACH DELETE n"


@dataclass(frozen=True)
class WritersPlan:
    group: str
    label: str  # the run's prefix: its episode ids and curator names begin with it
    writers: int  # writer threads in this process
    processes: int  # writer processes, one writer each
    curators: int  # curator threads in this process, editing until the writers are done
    duration: float  # seconds during which writers start new batches
    seed: int
    batches: int | None = None  # batches per writer, if fewer than the duration allows
    max_batch: int = 6
    merges: bool = True  # curators also merge entities now and then (which moves and folds facts)


@dataclass(frozen=True)
class EpisodeAck:
    """An episode's result as its writer received it: what the graph must hold afterwards."""

    id: str
    added: bool
    facts_created: tuple[str, ...]
    facts_merged: tuple[str, ...]
    facts_invalidated: tuple[str, ...]


@dataclass
class WriterLedger:
    sent: list[str] = field(default_factory=list)
    acknowledged: list[EpisodeAck] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # sent, never acknowledged: stored once at most
    conflicts: int = 0  # answers of 409 (WriteConflict), each followed by the same batch again
    outages: int = 0  # answers of 503 (GraphUnavailable), likewise
    errors: list[str] = field(default_factory=list)  # anything else: a failure of the run

    def extend(self, other: WriterLedger) -> None:
        self.sent += other.sent
        self.acknowledged += other.acknowledged
        self.failed += other.failed
        self.conflicts += other.conflicts
        self.outages += other.outages
        self.errors += other.errors


@dataclass(frozen=True)
class CurationAck:
    entry: int  # the audit entry the change answered with
    action: str
    item: str


@dataclass
class CuratorLedger:
    acknowledged: list[CurationAck] = field(default_factory=list)
    refused: int = 0  # stale versions and other conflicts: nothing written, no entry
    outages: int = 0
    errors: list[str] = field(default_factory=list)

    def extend(self, other: CuratorLedger) -> None:
        self.acknowledged += other.acknowledged
        self.refused += other.refused
        self.outages += other.outages
        self.errors += other.errors


@dataclass
class WritersOutcome:
    seconds: float = 0.0
    writers: WriterLedger = field(default_factory=WriterLedger)
    curators: CuratorLedger = field(default_factory=CuratorLedger)


def sentence(rng: random.Random) -> str:
    p, q = rng.sample(PEOPLE, 2)
    return rng.choice(TEMPLATES).format(p=p, q=q, l=rng.choice(PLACES), c=rng.choice(COMPANIES))


def episode_content(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(1, MAX_SENTENCES)))


def _ack(result: EpisodeResult) -> EpisodeAck:
    return EpisodeAck(
        id=result.episode_id,
        added=result.added,
        facts_created=result.facts_created,
        facts_merged=result.facts_merged,
        facts_invalidated=result.facts_invalidated,
    )


def _pause(rng: random.Random, attempt: int) -> None:
    time.sleep(RETRY_PAUSE * attempt * (0.5 + rng.random()))


def writer_run(plan: WritersPlan, number: int) -> WriterLedger:
    """One writer until the deadline: batches of 1..max_batch new episodes, each sent until acknowledged."""
    from memoria.ingest.pipeline import episodes_add

    rng = random.Random(plan.seed * 1_000 + number)
    ledger = WriterLedger()
    deadline = time.monotonic() + plan.duration
    count = 0
    batches = 0
    while time.monotonic() < deadline and (plan.batches is None or batches < plan.batches):
        batches += 1
        batch = []
        for _ in range(rng.randint(1, plan.max_batch)):
            count += 1
            day = 1 + count % 28
            batch.append(
                EpisodeInput(
                    episode_content(rng),
                    id=f"{plan.label}-w{number}-{count}",
                    valid_at=f"2024-0{1 + number % 9}-{day:02d}T{count % 24:02d}:00:00Z",
                )
            )
        ids = [episode.id for episode in batch]
        ledger.sent += ids
        for attempt in range(1, ATTEMPTS + 1):
            try:
                results = episodes_add(
                    group=plan.group, episodes=batch, batch_size=len(batch), update_communities=False
                )
            except WriteConflict:
                ledger.conflicts += 1
            except GraphUnavailable:
                ledger.outages += 1
            except Exception as error:  # recorded: any other failure fails the run
                logger.exception("writer %d failed", number)
                ledger.errors.append(f"writer {number}: {type(error).__name__}: {error}")
                ledger.failed += ids
                break
            else:
                ledger.acknowledged += [_ack(result) for result in results]
                break
            _pause(rng, attempt)
        else:
            ledger.failed += ids
    return ledger


def _curate_once(plan: WritersPlan, rng: random.Random, actor: str, ledger: CuratorLedger) -> None:
    from memoria.curation.delete import edge_delete
    from memoria.curation.edit import edge_update
    from memoria.curation.errors import CurationConflict, ItemNotFound
    from memoria.curation.inputs import EdgeInvalidation, EdgePatch, EntityMerge
    from memoria.curation.invalidate import edge_invalidate
    from memoria.curation.merge import entity_merge
    from memoria.curation.selectors import edge_state_get

    roll = rng.random()
    try:
        if plan.merges and roll < 0.04:
            entities = [row["id"] for row in driver.read(ENTITY_IDS, group=plan.group, limit=50)]
            if len(entities) < 2:
                return
            kept, duplicate = rng.sample(entities, 2)
            outcome = entity_merge(
                group=plan.group, entity_id=kept, merge=EntityMerge.model_validate({"from": duplicate}), actor=actor
            )
        else:
            facts = [row["id"] for row in driver.read(RECENT_FACTS, group=plan.group, limit=200)]
            if not facts:
                return
            edge_id = rng.choice(facts)
            version = edge_state_get(group=plan.group, edge_id=edge_id).version()
            time.sleep(rng.uniform(*CURATOR_PAUSE))  # ingest may merge into the fact now: the edit must see it
            if roll < 0.10:
                outcome = edge_delete(group=plan.group, edge_id=edge_id, version=version, actor=actor)
            elif roll < 0.18:
                invalidation = EdgeInvalidation(version=version)
                outcome = edge_invalidate(group=plan.group, edge_id=edge_id, invalidation=invalidation, actor=actor)
            else:
                patch = EdgePatch(weight=round(rng.uniform(MIN_WEIGHT, MAX_WEIGHT), 3), version=version)
                outcome = edge_update(group=plan.group, edge_id=edge_id, patch=patch, actor=actor)
    except (CurationConflict, WriteConflict):
        ledger.refused += 1
        return
    except GraphUnavailable:
        ledger.outages += 1
        return
    except ItemNotFound:  # the fact or entity went meanwhile: nothing to do
        return
    if outcome.entry is not None:
        ledger.acknowledged.append(CurationAck(outcome.entry.pk, outcome.entry.action, outcome.entry.item_id))


def curator_run(plan: WritersPlan, number: int, writers_done: threading.Event) -> CuratorLedger:
    """One curator until the writers are done: read a current fact, wait a moment, edit it with the version it
    read (or now and then merge two entities)."""
    from django.db import close_old_connections

    rng = random.Random(plan.seed * 1_000 + 500 + number)
    ledger = CuratorLedger()
    actor = f"{plan.label}-c{number}"
    try:
        while not writers_done.is_set():
            try:
                _curate_once(plan, rng, actor, ledger)
            except Exception as error:  # recorded: any other failure fails the run
                logger.exception("curator %d failed", number)
                ledger.errors.append(f"curator {number}: {type(error).__name__}: {error}")
            time.sleep(rng.uniform(*CURATOR_REST))
    finally:
        close_old_connections()
    return ledger


def _process_start(settings_module: str) -> None:
    """A writer process's set-up: Django on the parent's settings (the graph server's address is in the
    environment it inherited)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", settings_module)
    import django

    django.setup()


def writers_run(plan: WritersPlan, *, outage: Callable[[threading.Event], None] | None = None) -> WritersOutcome:
    """Run every writer and curator to the deadline; `outage`, if given, runs beside them (it may stop and start
    the graph server) until the event is set, once they are done."""
    outcome = WritersOutcome()
    started = time.monotonic()
    writers_done = threading.Event()
    finished = threading.Event()
    settings_module = os.environ.get("DJANGO_SETTINGS_MODULE", "memoria.settings")
    with (
        ThreadPoolExecutor(max_workers=plan.writers + plan.curators + 1, thread_name_prefix="writers") as threads,
        ProcessPoolExecutor(
            max_workers=max(1, plan.processes),
            mp_context=get_context("spawn"),
            initializer=_process_start,
            initargs=(settings_module,),
        ) as processes,
    ):
        disturbance = threads.submit(outage, finished) if outage is not None else None
        remote = [processes.submit(writer_run, plan, plan.writers + n) for n in range(plan.processes)]
        local = [threads.submit(writer_run, plan, n) for n in range(plan.writers)]
        curators = [threads.submit(curator_run, plan, n, writers_done) for n in range(plan.curators)]
        try:
            for future in [*local, *remote]:
                outcome.writers.extend(future.result())
        finally:
            writers_done.set()
        for future in curators:
            outcome.curators.extend(future.result())
        finished.set()
        if disturbance is not None:
            disturbance.result()
    outcome.seconds = time.monotonic() - started
    return outcome


def server_killer(
    server: EmbeddedServer, moments: Sequence[float], kills: list[float]
) -> Callable[[threading.Event], None]:
    """An `outage` for writers_run: at each moment (seconds from the start; or as soon as the server is back from
    the kill before), kill the graph server (SIGKILL, as a crash would) and start it again at once. Stops early
    once the writers are done. Appends to `kills` the second at which each kill came."""

    def outage(done: threading.Event) -> None:
        started = time.monotonic()
        for moment in moments:
            if done.wait(max(0.0, moment - (time.monotonic() - started))):
                return
            server.kill()
            kills.append(time.monotonic() - started)
            server.start()

    return outage


def run_group_delete(*, group: str) -> None:
    """A run's scratch group gone: its memories, version stamps and audit entries."""
    from memoria.curation.models import AuditEntry
    from memoria.graph.versions import group_stamps_delete

    driver.write(GROUP_NODES_DELETE, group=group)
    group_stamps_delete(group=group)
    AuditEntry.objects.filter(group=group).delete()
