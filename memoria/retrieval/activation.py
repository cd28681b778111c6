"""The Activation Energy retriever (seed 000): level-by-level multi-branch BFS from each seed, as a stream of events.

A level source (memoria/retrieval/levels.py: one batched Cypher round trip, or
the group's in-memory view) reads a whole frontier at once; only candidates above
MIN_ACTIVATION come back, at most `limit` per parent (read again in full for a
parent that ran short, so the result is exactly the seed's). A frontier node
whose best possible energy, R · w_max / √d, cannot exceed MIN_ACTIVATION is not
expanded at all: only whether it has an unvisited neighbour is asked, to tell a
dead end from a branch below threshold. Selection, pruning, budget, events and
paths live here once, for both sources. Seeds run concurrently, one source (on
Cypher, one session) each, and their events are yielded as they happen. One
budget (memoria/retrieval/budget.py) bounds the whole retrieval's wall time and
candidate rows: a level is read only if its parents' degrees fit in the rows
left (a level matches at most that many), and a seed it stops keeps the levels
it finished, and ends "budget_exhausted".
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable, QueryTooLarge, without_addresses
from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.graph.driver import async_driver_for_work
from memoria.graph.rules import MAX_WEIGHT
from memoria.retrieval.budget import STATUS as BUDGET_EXHAUSTED
from memoria.retrieval.budget import TIME, BudgetExhausted, RetrievalBudget, server_limits
from memoria.retrieval.cypher_levels import cypher_level_source
from memoria.retrieval.ended_facts import fact_filter
from memoria.retrieval.energy import sqrt_degree
from memoria.retrieval.engines import CYPHER_ENGINE, EngineChoice
from memoria.retrieval.event_types import (
    Algorithm,
    LevelExpanded,
    PathCompleted,
    RetrievalEvent,
    RetrievalFinished,
    RetrievalStarted,
    SeedFinished,
    SeedStarted,
)
from memoria.retrieval.levels import LevelQuery, LevelRow, LevelSource
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.selection import Candidate, Decision, select_level
from memoria.retrieval.view_levels import ViewLevelSource, ViewReading

logger = logging.getLogger(__name__)
Result = TypeVar("Result")

ROWS_PER_PARENT_FACTOR = 2  # ship MAX_BRANCHES × this per parent first; hubs need not send all their rows
EXPLAIN_LIMIT = 10_000
# Every write path keeps weights in [0.25, 1.0] (memoria.interchange.document), so no edge can carry more than
# R / √d; a missing weight reads as 0.01.
MAX_EDGE_WEIGHT = MAX_WEIGHT


@dataclass(frozen=True)
class Seed:
    id: str
    score: float


def _hop(branch: Branch, candidate: Candidate) -> dict[str, Any]:
    """One step of a path as its frames show it, made once when the step is taken: a path's hops are shared by
    every longer path through it, and were made again for each (the most repeated work of a deep exploration).
    Every factor of T travels with it (R(source) as parent_activation), so displays never recompute one."""
    return {"source": branch.node_id, "target": candidate.neighbor_id, **_energy_terms(candidate, branch.activation)}


def _energy_terms(candidate: Candidate, parent_activation: float) -> dict[str, Any]:
    """The edge and every factor of its transfer energy, as hops and decided candidates both show them."""
    return {
        "edge_id": candidate.edge_id,
        "direction": "out" if candidate.outgoing else "in",  # "out" when the stored edge points parent → neighbour
        "relation": candidate.relation,
        "parent_activation": parent_activation,
        "weight": candidate.weight,
        "degree": candidate.degree,
        "sqrt_degree": sqrt_degree(candidate.degree),
        "tag_similarity": candidate.tag_similarity,
        "shared_tags": list(candidate.shared_tags),
        "transfer_energy": candidate.transfer_energy,
    }


class Branch(NamedTuple):
    """A frontier entry: where a path has got to, with the energy it carries (a named tuple: one per selection)."""

    node_id: str
    activation: float
    degree: int
    hops: tuple[dict[str, Any], ...] = ()  # _hop's, shared with the paths that branch off later

    def can_pass(self, min_activation: float) -> bool:
        """Whether any edge of this node could carry more than the threshold (the pruning bound)."""
        return self.degree > 0 and self.activation * MAX_EDGE_WEIGHT / math.sqrt(float(self.degree)) > min_activation

    def path(self, seed_id: str, end_reason: str) -> dict[str, Any]:
        return {
            "nodes": [seed_id, *(hop["target"] for hop in self.hops)],
            "hops": list(self.hops),
            "depth": len(self.hops),
            "energy": self.activation,
            "end_reason": end_reason,
        }


@dataclass
class SeedStats:
    candidates: int = 0
    levels: int = 0
    started: float = field(default_factory=time.perf_counter)


def _decision_dict(decision: Decision, parent_activation: float) -> dict[str, Any]:
    candidate = decision.candidate
    return {
        "neighbor_id": candidate.neighbor_id,
        "neighbor_name": candidate.neighbor_name,
        "neighbor_labels": list(candidate.neighbor_labels),
        **_energy_terms(candidate, parent_activation),
        "selected": decision.selected,
        "reason": decision.reason,
        "claimed_by": decision.claimed_by,
    }


def _parent_report(
    branch: Branch, level: LevelRow | None, decided: list[Decision], selected: int, end_reason: str | None
) -> dict[str, Any]:
    """One parent's part of a level_expanded event: its counts, every decided candidate, and why it ended."""
    pruned = bool(level and level.pruned)
    unvisited = level.candidates if level else 0
    # Below-threshold rows are shipped only when explaining; otherwise Cypher just counts them,
    # and a pruned parent's are not counted at all.
    below = None
    if not pruned:
        below = sum(d.reason == "below_threshold" for d in decided) + (
            level.candidates - level.above_count if level else 0
        )
    return {
        "parent_id": branch.node_id,
        "activation": branch.activation,
        "degree": level.degree if level else branch.degree,
        "pruned": pruned,
        "unvisited_edges": unvisited,
        "above_threshold": 0 if pruned else (unvisited or 0) - below,
        "below_threshold": below,
        "candidates": [_decision_dict(d, branch.activation) for d in decided],
        "selected": selected,
        "end_reason": end_reason,
    }


class SeedExploration:
    """Explores one seed level by level through a level source and reports each step through `emit`."""

    def __init__(
        self,
        *,
        retrieval_id: str,
        seed: Seed,
        params: ActivationParams,
        explain: bool,
        emit: Callable[[RetrievalEvent], Awaitable[None]],
        budget: RetrievalBudget,
    ) -> None:
        self.retrieval_id = retrieval_id
        self.seed = seed
        self.params = params
        self.explain = explain
        self.emit = emit
        self.budget = budget
        self.stats = SeedStats()
        self.paths: list[dict[str, Any]] = []
        self.neighbour_degrees: dict[str, int] = {}
        self.source: LevelSource | None = None

    async def run(self, source: LevelSource) -> SeedFinished:
        self.source = source
        started = SeedStarted(retrieval_id=self.retrieval_id, seed_id=self.seed.id, score=self.seed.score)
        await self.emit(started)
        try:
            node = await self._within_budget(lambda: source.seed(self.seed.id))
        except BudgetExhausted:
            return self._finished(BUDGET_EXHAUSTED)
        if node is None:
            return self._finished("seed_not_found")
        frontier = [Branch(self.seed.id, self.seed.score, node.degree)]
        visited = {self.seed.id}
        status = "completed"
        for depth in range(self.params.max_depth):
            if not frontier:
                break
            try:
                frontier = await self._expand(source, depth, frontier, visited)
            except BudgetExhausted:  # the level in progress is dropped whole: what was kept stays exact
                status = BUDGET_EXHAUSTED
                break
        for branch in frontier:  # survivors reached MAX_DEPTH, or the budget's end
            await self._complete(branch, "max_depth" if status == "completed" else BUDGET_EXHAUSTED)
        return self._finished(status, name=node.name, labels=[label for label in node.labels if label != "Memory"])

    async def _within_budget(self, read: Callable[[], Awaitable[Result]]) -> Result:
        """One read within the budget: refused once a limit is passed, cut off when the time runs out (a read that
        waits on nothing cannot be cut off, and arming a timer for it cost more than the read of a small level)."""
        self.budget.check()
        if self.source is not None and self.source.in_memory:
            return await read()
        window = asyncio.timeout(self.budget.remaining_seconds())
        try:
            async with window:
                return await read()
        except TimeoutError:
            if window.expired():  # not a socket's own timeout: the budget's
                raise self.budget.stop(TIME) from None
            raise

    async def _fetch_level(
        self, source: LevelSource, frontier: list[Branch], visited: set[str], limit: int
    ) -> dict[str, LevelRow]:
        """One read (one round trip on Cypher) for the whole frontier, its rows claimed from the budget first."""
        min_threshold = -1.0 if self.explain else self.params.min_activation
        expand: list[Branch] = []
        pruned: list[Branch] = []
        for branch in frontier:
            (expand if self.explain or branch.can_pass(self.params.min_activation) else pruned).append(branch)
        # A level matches at most its expanded parents' edges: claimed first, so no read passes the row limit.
        claim = sum(branch.degree for branch in expand)
        self.budget.reserve(claim)
        read = 0
        try:
            level = await self._within_budget(
                lambda: source.read_level(
                    LevelQuery(
                        expand=tuple((b.node_id, b.activation, b.degree) for b in expand),
                        pruned=tuple(b.node_id for b in pruned),
                        visited=visited,
                        limit=limit,
                        min_threshold=min_threshold,
                    )
                )
            )
            read = sum(row.candidates or 0 for row in level.rows)
        finally:
            self.budget.settle(claim, read)
        self.neighbour_degrees.update(level.neighbour_degrees)
        levels = {row.parent_id: row for row in level.rows}
        for branch in pruned:
            # Nothing can pass; an unvisited neighbour makes it "below threshold", none makes it a dead end.
            if (has_open := level.open_neighbours.get(branch.node_id)) is not None:
                levels[branch.node_id] = LevelRow(
                    branch.node_id, branch.degree, None if has_open else 0, 0, (), pruned=True
                )
        return levels

    async def _expand(self, source: LevelSource, depth: int, frontier: list[Branch], visited: set[str]) -> list[Branch]:
        started = time.perf_counter()
        limit = EXPLAIN_LIMIT if self.explain else self.params.max_branches * ROWS_PER_PARENT_FACTOR
        levels = await self._fetch_level(source, frontier, visited, limit)
        decisions = self._decide(levels)
        if self._ran_short(levels, decisions):
            # A parent lost rows to claims and had more we did not ship: fetch this level in full.
            levels = await self._fetch_level(source, frontier, visited, EXPLAIN_LIMIT)
            decisions = self._decide(levels)
        self.stats.levels += 1
        self.stats.candidates += sum(level.candidates or 0 for level in levels.values())

        by_parent: dict[str, list[Decision]] = {}
        for decision in decisions:
            by_parent.setdefault(decision.candidate.parent_id, []).append(decision)
        next_frontier: list[Branch] = []
        parents_report = []
        for branch in frontier:
            level = levels.get(branch.node_id)
            decided = by_parent.get(branch.node_id, [])
            chosen = [decision.candidate for decision in decided if decision.selected]
            next_frontier.extend(self._step(branch, candidate) for candidate in chosen)
            end_reason = None if chosen else self._end_reason(level, decided)
            parents_report.append(_parent_report(branch, level, decided, len(chosen), end_reason))
        visited.update(branch.node_id for branch in next_frontier)
        await self.emit(
            LevelExpanded(
                retrieval_id=self.retrieval_id,
                seed_id=self.seed.id,
                depth=depth,
                frontier_size=len(frontier),
                parents=parents_report,
                selected=len(next_frontier),
                elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
            )
        )
        for branch, report in zip(frontier, parents_report, strict=True):
            if report["end_reason"]:
                await self._complete(branch, report["end_reason"])
        return next_frontier

    def _step(self, branch: Branch, candidate: Candidate) -> Branch:
        """The branch extended by one selected candidate; its energy becomes the new node's activation."""
        degree = self.neighbour_degrees[candidate.neighbor_id]
        return Branch(candidate.neighbor_id, candidate.transfer_energy, degree, (*branch.hops, _hop(branch, candidate)))

    def _decide(self, levels: dict[str, LevelRow]) -> list[Decision]:
        candidates = [candidate for level in levels.values() for candidate in level.top]
        return select_level(
            candidates, max_branches=self.params.max_branches, min_activation=self.params.min_activation
        )

    def _ran_short(self, levels: dict[str, LevelRow], decisions: list[Decision]) -> bool:
        chosen: dict[str, int] = {}
        for decision in decisions:
            if decision.selected:
                chosen[decision.candidate.parent_id] = chosen.get(decision.candidate.parent_id, 0) + 1
        return any(
            not level.pruned and level.above_count > len(level.top) and chosen.get(parent, 0) < self.params.max_branches
            for parent, level in levels.items()
        )

    @staticmethod
    def _end_reason(level: LevelRow | None, decisions: list[Decision]) -> str:
        if level is None or level.candidates == 0:
            return "dead_end"
        if level.pruned:
            return "below_threshold"
        if level.above_count == 0 or all(d.reason == "below_threshold" for d in decisions):
            return "below_threshold"
        return "claimed"

    async def _complete(self, branch: Branch, end_reason: str) -> None:
        path = branch.path(self.seed.id, end_reason)
        self.paths.append(path)
        await self.emit(PathCompleted(retrieval_id=self.retrieval_id, seed_id=self.seed.id, path=path))

    def _finished(self, status: str, **extra: Any) -> SeedFinished:
        return SeedFinished(
            retrieval_id=self.retrieval_id,
            seed_id=self.seed.id,
            status=status,
            score=self.seed.score,
            paths=self.paths,
            round_trips=self.source.round_trips if self.source else 0,
            levels=self.stats.levels,
            candidates=self.stats.candidates,
            elapsed_ms=round((time.perf_counter() - self.stats.started) * 1000, 3),
            **extra,
        )


SourceOpener = Callable[[], AbstractAsyncContextManager[LevelSource]]


@asynccontextmanager
async def _level_sources(
    engine: EngineChoice, *, group: str, query_tags: Sequence[str], params: ActivationParams, moment: AsOf
) -> AsyncIterator[SourceOpener]:
    """Opens each seed's level source: a session of the shared driver, or a reader of the engine's projection."""
    tags = sorted(set(query_tags))
    floor = params.tag_sim_floor
    if engine.projection is not None:
        reading = ViewReading.of(engine.projection, query_tags=tags, tag_sim_floor=floor, moment=moment)
        yield lambda: nullcontext(ViewLevelSource(reading))
        return
    async with async_driver_for_work() as driver:
        facts = await fact_filter(driver, group=group, moment=moment)  # once for every seed of the retrieval
        yield lambda: cypher_level_source(
            driver, group=group, query_tags=tags, tag_sim_floor=floor, moment=moment, facts=facts
        )


async def activation_events(
    *,
    group: str,
    seeds: Sequence[Seed],
    query_tags: Sequence[str] = (),
    params: ActivationParams | None = None,
    explain: bool = False,
    retrieval_id: str | None = None,
    context: dict[str, Any] | None = None,
    budget: RetrievalBudget | None = None,
    engine: EngineChoice = CYPHER_ENGINE,
    moment: AsOf = EVERY_FACT,
) -> AsyncIterator[RetrievalEvent]:
    """Run an Activation Energy retrieval and yield its events in the order they happen.

    Seeds explore concurrently; each `seed_finished` is yielded as that seed
    completes. Closing the generator (or cancelling its consumer) cancels the work.
    Without a budget, the server's ceilings apply, counted from this call. The engine (memoria/retrieval/engines.py)
    says where levels are read: over Bolt, or from the projection it carries. Only the facts that count at
    `moment` are walked and counted in degrees (memoria/graph/asof.py); callers' requests default to now, this
    engine to every fact, as before time-aware retrieval.
    """
    params = params or ActivationParams()
    budget = budget or RetrievalBudget(server_limits())
    retrieval_id = retrieval_id or uuid.uuid4().hex
    started = time.perf_counter()
    queue: asyncio.Queue[RetrievalEvent] = asyncio.Queue()
    yield RetrievalStarted(
        retrieval_id=retrieval_id,
        algorithm=Algorithm.ACTIVATION,
        group=group,
        seeds=[{"id": seed.id, "score": seed.score} for seed in seeds],
        query_tags=sorted(set(query_tags)),
        params=params.as_dict(),
        budget=budget.limits.as_dict(),
        engine=engine.as_dict(),
        time=moment.as_dict(),
        **(context or {}),
    )
    finished: list[SeedFinished] = []
    failures: list[str] = []
    outage: list[GraphUnavailable] = []  # the server went away: the answer is incomplete, whatever other seeds found
    refused: list[QueryTooLarge] = []  # the server refused a read as too large: incomplete as well
    async with _level_sources(engine, group=group, query_tags=query_tags, params=params, moment=moment) as level_source:

        async def explore(seed: Seed) -> None:
            exploration = SeedExploration(
                retrieval_id=retrieval_id, seed=seed, params=params, explain=explain, emit=queue.put, budget=budget
            )
            try:
                async with level_source() as source:
                    result = await exploration.run(source)
            except GraphUnavailable as error:
                outage.append(error)
                result = exploration._finished("error", error=str(error))
                # The retrieval fails with the first outage, so the other seeds stop now rather than each at its
                # own read's deadline: one begun just after the server went would hold the error frame up to a
                # whole deadline past the first give-up (docs/operations.md, "How fast an outage shows").
                for task in tasks:
                    if task is not asyncio.current_task():
                        task.cancel()
            except asyncio.CancelledError:
                if not outage:  # the consumer went away, or cancelled the retrieval
                    raise
                result = exploration._finished("error", error=str(outage[0]))
            except QueryTooLarge as error:  # final, not an outage: raised after the stream like one, with its own type
                refused.append(error)
                result = exploration._finished("error", error=str(error))
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as error:
                # Permanent (transient ones end as GraphUnavailable), and logged once already by the retry helper; the
                # driver's text may name the server's address, which a client's frame must not.
                result = exploration._finished(
                    "error", error=f"graph server refused a read: {without_addresses(str(error))}"
                )
            except Exception:  # a bug must end this seed, not leave the stream waiting for it forever
                logger.exception("exploration of seed %s failed", seed.id)
                result = exploration._finished("error", error="internal error while exploring this seed")
            await queue.put(result)

        tasks = [asyncio.create_task(explore(seed)) for seed in seeds]
        try:
            while len(finished) < len(tasks):
                event = await queue.get()
                if isinstance(event, SeedFinished):
                    finished.append(event)
                    if event.status == "error":
                        failures.append(event.error or "")
                yield event
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    status = "completed"
    if outage or refused or (failures and len(failures) == len(tasks)):
        status = "failed"
    elif any(event.status == BUDGET_EXHAUSTED for event in finished):
        status = BUDGET_EXHAUSTED
    yield RetrievalFinished(
        retrieval_id=retrieval_id,
        status=status,
        error=failures[0] if failures else None,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        round_trips=sum(event.round_trips for event in finished),
        paths=sum(len(event.paths) for event in finished),
        seeds={event.seed_id: event.status for event in finished},
        candidates=sum(event.candidates for event in finished),
        budget=budget.report(),
    )
    if outage:  # after the stream's end, so watchers and the journal see it close; the caller maps the error
        raise GraphUnavailable(str(outage[0])) from outage[0]
    if refused:
        raise refused[0]
