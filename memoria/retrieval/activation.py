"""The Activation Energy retriever (seed 000): level-by-level multi-branch BFS from each seed, as a stream of events.

One batched Cypher round trip expands a whole frontier; the transfer energy is
computed in Cypher and only candidates above MIN_ACTIVATION come back, at most
`limit` per parent (fetched again in full for a parent that ran short, so the
result is exactly the seed's). A frontier node whose best possible energy,
R · w_max / √d, cannot exceed MIN_ACTIVATION is not expanded at all: only
whether it has an unvisited neighbour is asked, to tell a dead end from a
branch below threshold. Seeds run concurrently, one session each, and their
events are yielded as they happen. One budget (memoria/retrieval/budget.py) bounds the whole retrieval's wall
time and candidate rows: a level is read only if its parents' degrees fit in the rows left (a level matches at
most that many), and a seed it stops keeps the levels it finished, and ends "budget_exhausted".
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import neo4j
from neo4j import exceptions as neo4j_errors

from memoria.errors import GraphUnavailable, QueryTooLarge
from memoria.graph.driver import async_driver_for_work, database_name
from memoria.graph.retry import with_retry_async
from memoria.interchange.document import MAX_WEIGHT
from memoria.observability import cypher_round_trip
from memoria.retrieval.budget import STATUS as BUDGET_EXHAUSTED
from memoria.retrieval.budget import TIME, BudgetExhausted, RetrievalBudget, server_limits
from memoria.retrieval.energy import sqrt_degree
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.selection import Candidate, Decision, select_level

SEED_FETCH = """
MATCH (n:Memory {id: $seed_id})
RETURN n.group_id AS group_id, n.name AS name, labels(n) AS labels, COUNT { (n)-[:RELATES]-() } AS degree
"""

# The seed's section 6.2, with `:Memory` lookups (indexed), neighbours kept inside the group, and rows slimmed:
# one row per parent with its above-threshold candidates in selection order, cut at $limit.
EXPAND_LEVEL = """
UNWIND $frontier AS f
MATCH (current:Memory {id: f.node_id})
WITH current, f, COUNT { (current)-[:RELATES]-() } AS degree
MATCH (current)-[r:RELATES]-(neighbor:Memory)
WHERE NOT neighbor.id IN $visited_ids AND neighbor.group_id = $group
WITH current, f, degree, r, neighbor, coalesce(r.tags, []) AS etags
WITH current, f, degree, r, neighbor, etags, [t IN etags WHERE t IN $query_tags] AS shared
WITH current, f, degree, r, neighbor, shared,
     CASE
         WHEN $query_tags_count = 0 THEN 1.0
         WHEN size(etags) = 0 THEN $tag_sim_floor
         ELSE $tag_sim_floor
              + (1.0 - $tag_sim_floor) * toFloat(size(shared)) / (size(etags) + $query_tags_count - size(shared))
     END AS tag_sim
WITH current, f, degree, r, neighbor, shared, tag_sim,
     (f.activation * coalesce(r.weight, 0.01) / sqrt(toFloat(degree))) * tag_sim AS transfer_energy
ORDER BY transfer_energy DESC, neighbor.id, r.id
WITH f.node_id AS parent_id, degree, count(*) AS candidates,
     collect(CASE WHEN transfer_energy > $min_threshold THEN
         [neighbor.id, r.id, startNode(r) = current, r.relation, r.weight, tag_sim, shared, transfer_energy,
          neighbor.name, labels(neighbor), COUNT { (neighbor)-[:RELATES]-() }]
     END) AS above
RETURN parent_id, degree, candidates, size(above) AS above_count, above[0..$limit] AS top
"""

# For frontier nodes that cannot pass the threshold: is there any unvisited neighbour in the group?
OPEN_NEIGHBOURS = """
UNWIND $node_ids AS node_id
MATCH (current:Memory {id: node_id})
RETURN node_id, EXISTS {
    (current)-[:RELATES]-(neighbor:Memory) WHERE NOT neighbor.id IN $visited_ids AND neighbor.group_id = $group
} AS open
"""

logger = logging.getLogger(__name__)

ROWS_PER_PARENT_FACTOR = 2  # ship MAX_BRANCHES × this per parent first; hubs need not send all their rows
EXPLAIN_LIMIT = 10_000
# Every write path keeps weights in [0.25, 1.0] (memoria.interchange.document), so no edge can carry more than
# R / √d; a missing weight reads as 0.01.
MAX_EDGE_WEIGHT = MAX_WEIGHT


@dataclass(frozen=True)
class Seed:
    id: str
    score: float


@dataclass(frozen=True)
class Hop:
    source: str
    target: str
    edge_id: str
    direction: str  # "out" when the stored edge points source → target
    relation: str | None
    weight: float | None
    degree: int
    tag_similarity: float
    shared_tags: tuple[str, ...]
    transfer_energy: float
    parent_activation: float  # R(source): every factor of T travels with it, so displays never recompute one

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "edge_id": self.edge_id,
            "direction": self.direction,
            "relation": self.relation,
            "parent_activation": self.parent_activation,
            "weight": self.weight,
            "degree": self.degree,
            "sqrt_degree": sqrt_degree(self.degree),
            "tag_similarity": self.tag_similarity,
            "shared_tags": list(self.shared_tags),
            "transfer_energy": self.transfer_energy,
        }


@dataclass(frozen=True)
class Branch:
    """A frontier entry: where a path has got to, with the energy it carries."""

    node_id: str
    activation: float
    degree: int
    hops: tuple[Hop, ...] = ()

    def can_pass(self, min_activation: float) -> bool:
        """Whether any edge of this node could carry more than the threshold (the pruning bound)."""
        return self.degree > 0 and self.activation * MAX_EDGE_WEIGHT / math.sqrt(float(self.degree)) > min_activation

    def path(self, seed_id: str, end_reason: str) -> dict[str, Any]:
        return {
            "nodes": [seed_id, *(hop.target for hop in self.hops)],
            "hops": [hop.as_dict() for hop in self.hops],
            "depth": len(self.hops),
            "energy": self.activation,
            "end_reason": end_reason,
        }


@dataclass
class SeedStats:
    round_trips: int = 0
    candidates: int = 0
    levels: int = 0
    started: float = field(default_factory=time.perf_counter)


@dataclass(frozen=True)
class LevelRow:
    parent_id: str
    degree: int
    candidates: int | None  # unvisited neighbour edges, whatever their energy (None: not counted, pruned)
    above_count: int
    top: tuple[Candidate, ...]
    pruned: bool = False


def _row_to_level(row: list[Any], neighbour_degrees: dict[str, int]) -> LevelRow:
    """A row of EXPAND_LEVEL: parent_id, degree, candidates, above_count, top (neighbours' degrees noted aside)."""
    parent, degree, candidates, above_count, top_rows = row
    for item in top_rows:
        neighbour_degrees[item[0]] = item[10]
    top = tuple(
        Candidate(
            parent_id=parent,
            neighbor_id=item[0],
            edge_id=item[1],
            outgoing=bool(item[2]),
            relation=item[3],
            weight=item[4],
            degree=degree,
            tag_similarity=item[5],
            shared_tags=tuple(item[6]),
            transfer_energy=item[7],
            neighbor_name=item[8],
            neighbor_labels=tuple(label for label in item[9] if label != "Memory"),
        )
        for item in top_rows
    )
    return LevelRow(parent, degree, candidates, above_count, top)


def _decision_dict(decision: Decision, parent_activation: float) -> dict[str, Any]:
    candidate = decision.candidate
    return {
        "neighbor_id": candidate.neighbor_id,
        "neighbor_name": candidate.neighbor_name,
        "neighbor_labels": list(candidate.neighbor_labels),
        "edge_id": candidate.edge_id,
        "direction": "out" if candidate.outgoing else "in",
        "relation": candidate.relation,
        "parent_activation": parent_activation,
        "weight": candidate.weight,
        "degree": candidate.degree,
        "sqrt_degree": sqrt_degree(candidate.degree),
        "tag_similarity": candidate.tag_similarity,
        "shared_tags": list(candidate.shared_tags),
        "transfer_energy": candidate.transfer_energy,
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


async def _read_with_retry(session: neo4j.AsyncSession, *statements: tuple[str, dict[str, Any]]) -> list[list[list]]:
    """Statements in one execute_read, retried on transient failures with the seed's backoff (memoria.graph.retry).

    Permanent errors surface at once; a server still away after the last try is GraphUnavailable. Rows come
    back as plain value lists: `record.data()` would walk every nested list again.
    """

    async def work(tx: neo4j.AsyncManagedTransaction) -> list[list[list]]:
        with cypher_round_trip(statements[0][0], kind="read") as trip:  # one round trip, logged by its first query
            results = [await (await tx.run(query, parameters)).values() for query, parameters in statements]
            trip.rows = sum(len(rows) for rows in results)
        return results

    return await with_retry_async(lambda: session.execute_read(work), what="activation read")


class SeedExploration:
    """Explores one seed level by level and reports each step through `emit`."""

    def __init__(
        self,
        *,
        retrieval_id: str,
        group: str,
        seed: Seed,
        query_tags: Sequence[str],
        params: ActivationParams,
        explain: bool,
        emit: Any,
        budget: RetrievalBudget,
    ) -> None:
        self.retrieval_id = retrieval_id
        self.group = group
        self.seed = seed
        self.query_tags = sorted(set(query_tags))
        self.params = params
        self.explain = explain
        self.emit = emit
        self.budget = budget
        self.stats = SeedStats()
        self.paths: list[dict[str, Any]] = []
        self.neighbour_degrees: dict[str, int] = {}

    def _event(self, kind: str, **body: Any) -> dict[str, Any]:
        return {"type": kind, "retrieval_id": self.retrieval_id, "seed_id": self.seed.id, **body}

    async def run(self, session: neo4j.AsyncSession) -> dict[str, Any]:
        await self.emit(self._event("seed_started", score=self.seed.score))
        try:
            (rows,) = await self._read(session, (SEED_FETCH, {"seed_id": self.seed.id}))
        except BudgetExhausted:
            return self._finished(BUDGET_EXHAUSTED)
        self.stats.round_trips += 1
        if not rows or rows[0][0] != self.group:
            return self._finished("seed_not_found")
        _, seed_name, seed_labels, seed_degree = rows[0]
        frontier = [Branch(self.seed.id, self.seed.score, seed_degree)]
        visited = {self.seed.id}
        status = "completed"
        for depth in range(self.params.max_depth):
            if not frontier:
                break
            try:
                frontier = await self._expand(session, depth, frontier, visited)
            except BudgetExhausted:  # the level in progress is dropped whole: what was kept stays exact
                status = BUDGET_EXHAUSTED
                break
        for branch in frontier:  # survivors reached MAX_DEPTH, or the budget's end
            await self._complete(branch, "max_depth" if status == "completed" else BUDGET_EXHAUSTED)
        return self._finished(status, name=seed_name, labels=[label for label in seed_labels if label != "Memory"])

    async def _read(self, session: neo4j.AsyncSession, *statements: tuple[str, dict[str, Any]]) -> list[list[list]]:
        """One round trip within the budget: refused once a limit is passed, cut off when the time runs out."""
        self.budget.check()
        window = asyncio.timeout(self.budget.remaining_seconds())
        try:
            async with window:
                return await _read_with_retry(session, *statements)
        except TimeoutError:
            if window.expired():  # not a socket's own timeout: the budget's
                raise self.budget.stop(TIME) from None
            raise

    async def _fetch_level(
        self, session: neo4j.AsyncSession, frontier: list[Branch], visited: set[str], limit: int
    ) -> dict[str, LevelRow]:
        """One round trip (two statements when some nodes are pruned) for the whole frontier."""
        min_threshold = -1.0 if self.explain else self.params.min_activation
        expand: list[Branch] = []
        pruned: list[Branch] = []
        for branch in frontier:
            (expand if self.explain or branch.can_pass(self.params.min_activation) else pruned).append(branch)
        visited_ids = sorted(visited)
        statements = []
        if expand:
            statements.append(
                (
                    EXPAND_LEVEL,
                    {
                        "frontier": [{"node_id": b.node_id, "activation": b.activation} for b in expand],
                        "visited_ids": visited_ids,
                        "group": self.group,
                        "query_tags": self.query_tags,
                        "query_tags_count": len(self.query_tags),
                        "tag_sim_floor": self.params.tag_sim_floor,
                        "min_threshold": min_threshold,
                        "limit": limit,
                    },
                )
            )
        if pruned:
            statements.append(
                (
                    OPEN_NEIGHBOURS,
                    {
                        "node_ids": [b.node_id for b in pruned],
                        "visited_ids": visited_ids,
                        "group": self.group,
                    },
                )
            )
        # A level matches at most its expanded parents' edges: claimed first, so no read passes the row limit.
        claim = sum(branch.degree for branch in expand)
        self.budget.reserve(claim)
        read = 0
        try:
            results = await self._read(session, *statements)
            read = sum(row[2] for row in results[0]) if expand else 0
        finally:
            self.budget.settle(claim, read)
        self.stats.round_trips += 1
        levels = {row[0]: _row_to_level(row, self.neighbour_degrees) for row in (results[0] if expand else [])}
        degree_of = {b.node_id: b.degree for b in pruned}
        for node_id, has_open in results[-1] if pruned else []:
            # Nothing can pass; an unvisited neighbour makes it "below threshold", none makes it a dead end.
            levels[node_id] = LevelRow(node_id, degree_of[node_id], None if has_open else 0, 0, (), pruned=True)
        return levels

    async def _expand(
        self, session: neo4j.AsyncSession, depth: int, frontier: list[Branch], visited: set[str]
    ) -> list[Branch]:
        started = time.perf_counter()
        limit = EXPLAIN_LIMIT if self.explain else self.params.max_branches * ROWS_PER_PARENT_FACTOR
        levels = await self._fetch_level(session, frontier, visited, limit)
        decisions = self._decide(levels)
        if self._ran_short(levels, decisions):
            # A parent lost rows to claims and had more we did not ship: fetch this level in full.
            levels = await self._fetch_level(session, frontier, visited, EXPLAIN_LIMIT)
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
            self._event(
                "level_expanded",
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
        hop = Hop(
            source=branch.node_id,
            target=candidate.neighbor_id,
            edge_id=candidate.edge_id,
            direction="out" if candidate.outgoing else "in",
            relation=candidate.relation,
            weight=candidate.weight,
            degree=candidate.degree,
            tag_similarity=candidate.tag_similarity,
            shared_tags=candidate.shared_tags,
            transfer_energy=candidate.transfer_energy,
            parent_activation=branch.activation,
        )
        degree = self.neighbour_degrees[candidate.neighbor_id]
        return Branch(candidate.neighbor_id, candidate.transfer_energy, degree, (*branch.hops, hop))

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
        await self.emit(self._event("path_completed", path=path))

    def _finished(self, status: str, **extra: Any) -> dict[str, Any]:
        return self._event(
            "seed_finished",
            status=status,
            score=self.seed.score,
            paths=self.paths,
            round_trips=self.stats.round_trips,
            levels=self.stats.levels,
            candidates=self.stats.candidates,
            elapsed_ms=round((time.perf_counter() - self.stats.started) * 1000, 3),
            **extra,
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
) -> AsyncIterator[dict[str, Any]]:
    """Run an Activation Energy retrieval and yield its events in the order they happen.

    Seeds explore concurrently; each `seed_finished` is yielded as that seed
    completes. Closing the generator (or cancelling its consumer) cancels the work.
    Without a budget, the server's ceilings apply, counted from this call.
    """
    params = params or ActivationParams()
    budget = budget or RetrievalBudget(server_limits())
    retrieval_id = retrieval_id or uuid.uuid4().hex
    started = time.perf_counter()
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    yield {
        "type": "retrieval_started",
        "retrieval_id": retrieval_id,
        "algorithm": "activation",
        "group": group,
        "seeds": [{"id": seed.id, "score": seed.score} for seed in seeds],
        "query_tags": sorted(set(query_tags)),
        "params": params.as_dict(),
        "budget": budget.limits.as_dict(),
        **(context or {}),
    }
    finished: list[dict[str, Any]] = []
    failures: list[str] = []
    outage: list[GraphUnavailable] = []  # the server went away: the answer is incomplete, whatever other seeds found
    refused: list[QueryTooLarge] = []  # the server refused a read as too large: incomplete as well
    async with async_driver_for_work() as driver:

        async def explore(seed: Seed) -> None:
            exploration = SeedExploration(
                retrieval_id=retrieval_id,
                group=group,
                seed=seed,
                query_tags=query_tags,
                params=params,
                explain=explain,
                emit=queue.put,
                budget=budget,
            )
            try:
                async with driver.session(database=database_name(), default_access_mode=neo4j.READ_ACCESS) as s:
                    result = await exploration.run(s)
            except GraphUnavailable as error:
                outage.append(error)
                result = exploration._finished("error", error=str(error))
            except QueryTooLarge as error:  # final, not an outage: raised after the stream like one, with its own type
                refused.append(error)
                result = exploration._finished("error", error=str(error))
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as error:
                # Permanent (transient ones end as GraphUnavailable), and logged once already by the retry helper.
                result = exploration._finished("error", error=f"graph server refused a read: {error}")
            except Exception:  # a bug must end this seed, not leave the stream waiting for it forever
                logger.exception("exploration of seed %s failed", seed.id)
                result = exploration._finished("error", error="internal error while exploring this seed")
            await queue.put(result)

        tasks = [asyncio.create_task(explore(seed)) for seed in seeds]
        try:
            while len(finished) < len(tasks):
                event = await queue.get()
                if event["type"] == "seed_finished":
                    finished.append(event)
                    if event["status"] == "error":
                        failures.append(event["error"])
                yield event
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    status = "completed"
    if outage or refused or (failures and len(failures) == len(tasks)):
        status = "failed"
    elif any(event["status"] == BUDGET_EXHAUSTED for event in finished):
        status = BUDGET_EXHAUSTED
    yield {
        "type": "retrieval_finished",
        "retrieval_id": retrieval_id,
        "status": status,
        "error": failures[0] if failures else None,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
        "round_trips": sum(event["round_trips"] for event in finished),
        "paths": sum(len(event["paths"]) for event in finished),
        "seeds": {event["seed_id"]: event["status"] for event in finished},
        "candidates": sum(event["candidates"] for event in finished),
        "budget": budget.report(),
    }
    if outage:  # after the stream's end, so watchers and the journal see it close; the caller maps the error
        raise GraphUnavailable(str(outage[0])) from outage[0]
    if refused:
        raise refused[0]
