"""The view level source: each level of a seed's exploration computed from the group's in-memory projection.

It gives the rows the Cypher source's EXPAND_LEVEL and OPEN_NEIGHBOURS give, to the last bit: the same
neighbours (unvisited, in the group — the projection holds the group's nodes only), the same tag similarity and
transfer energy (energy.py's formulas, which compute the Cypher's expressions in its order; the energy is inlined
here in that same order), the same order
(transfer energy descending, neighbour id, edge id; ids compare as the ranks the projection sorted them into),
the same counts and the same `limit` cut. The degree is the server's RELATES count, stored with each node.

A level is small (measured at 100k/500k: 2–5 parents and 20–60 incident facts on average), so each parent's
entries are read as array slices, the facts' columns gathered once a level, and the rows computed in plain
Python: every numpy call costs a microsecond or more whatever its size, and a level gathered with some sixty of
them (fully vectorised tag similarity included) spent 74 µs there alone; now about 17 µs (docs/benchmarks.md).
A fact's tags are read only when its energy before tag similarity could pass the threshold.
No graph round trip is made, so the exploration's cost does not grow with the server's size.

Facts count as the Cypher's do at the retrieval's moment (memoria/graph/asof.py), read from the interval arrays
the projection keeps: a fact that does not count is no candidate and leaves the degree d. A node's degree is the
server's RELATES count less its facts in the group that do not count; a fact whose other end lies outside the
group (no write path makes one) is not in the projection, so it stays counted whatever its times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.projection.incidence import FactIncidence
from memoria.projection.projection import MomentMask, Projection
from memoria.retrieval.energy import MISSING_WEIGHT, floored_jaccard, sqrt_degree
from memoria.retrieval.levels import LevelQuery, LevelRead, LevelRow, SeedNode
from memoria.retrieval.selection import Candidate

MEMORY_LABEL = "Memory"  # every node has it; events leave it out, as the Cypher source's rows do
# A tag similarity is at most 1, give or take the rounding of floor + (1 − floor)·J: an energy this far below the
# threshold before it is multiplied in stays below after, and its tags need not be read.
SIMILARITY_CEILING = 1.0 + 1e-9


@dataclass(frozen=True)
class ViewReading:
    """What every seed of one retrieval reads alike: the projection, its incidence, which facts count at the
    moment, and the query's tags. Made once per retrieval: the moment's mask is a cached lookup, but one a seed
    cost five lookups an exploration."""

    projection: Projection
    incidence: FactIncidence
    at: MomentMask | None  # None: every fact counts at this moment
    query_tags: frozenset[str]
    query_codes: frozenset[int]  # the query tags some fact carries, as tag codes (the others match nothing)
    tag_sim_floor: float

    @classmethod
    def of(
        cls, projection: Projection, *, query_tags: Sequence[str], tag_sim_floor: float, moment: AsOf = EVERY_FACT
    ) -> ViewReading:
        tags = frozenset(query_tags)
        facts = projection.facts
        codes = frozenset(facts.tag_index[tag] for tag in tags if tag in facts.tag_index)
        return cls(projection, projection.incidence(), projection.at(moment), tags, codes, tag_sim_floor)


@dataclass(frozen=True)
class _Gathered:
    """A level's incident facts as Python values, one entry per (parent, fact), parents in frontier order."""

    counts: list[int]  # entries of each parent
    neighbours: list[int]
    edges: list[int]
    outgoing: list[bool]
    weights: list[float]  # as transfer_energy reads them: a missing weight is MISSING_WEIGHT
    ranks: list[int]  # the fact id's rank: Cypher's ORDER BY r.id as integers
    flags: list[bool] | None  # whether the fact counts at the moment; None when every fact does


class ViewLevelSource:
    """A seed's levels read from a projection of the retrieval's group (one per seed: it keeps the visited set)."""

    round_trips = 0
    in_memory = True

    def __init__(self, reading: ViewReading) -> None:
        self.reading = reading
        self.projection = reading.projection
        self.incidence = reading.incidence
        self.facts = reading.projection.facts
        self.visited: set[int] = set()
        self.marked: set[str] = set()

    async def seed(self, seed_id: str) -> SeedNode | None:
        position = self.projection.position(seed_id)
        if position is None:
            return None
        return SeedNode(self.projection.name(position), self.projection.labels(position), self._degree(position))

    def _counting(self, edges: np.ndarray) -> np.ndarray | None:
        """Which of these facts count at the moment; None when all do."""
        at = self.reading.at
        return None if at is None else at.counting[edges]

    def _degree(self, position: int) -> int:
        """The node's RELATES degree at the moment."""
        at = self.reading.at
        return int((self.projection.relates_degrees if at is None else at.degrees)[position])

    def _mark(self, visited: set[str]) -> None:
        """Bring the visited positions up to `visited`, which only grows during one seed's exploration."""
        if len(visited) == len(self.marked):
            return
        fresh = visited - self.marked
        self.visited.update(
            position for node_id in fresh if (position := self.projection.position(node_id)) is not None
        )
        self.marked |= fresh

    async def read_level(self, query: LevelQuery) -> LevelRead:
        self._mark(query.visited)
        rows, neighbour_degrees = (
            self._expand(query.expand, query.limit, query.min_threshold) if query.expand else ((), {})
        )
        return LevelRead(rows, self._open_neighbours(query.pruned), neighbour_degrees)

    def _open_neighbours(self, pruned: Sequence[str]) -> dict[str, bool]:
        indptr, neighbours = self.incidence.indptr, self.incidence.neighbours
        answers = {}
        for node_id in pruned:
            position = self.projection.position(node_id)
            if position is not None:
                start, stop = indptr[position], indptr[position + 1]
                around = neighbours[start:stop].tolist()
                counting = self._counting(self.incidence.edges[start:stop])
                flags = counting.tolist() if counting is not None else [True] * len(around)
                answers[node_id] = any(
                    neighbour not in self.visited and counts for neighbour, counts in zip(around, flags, strict=True)
                )
        return answers

    def _gathered(self, positions: list[int]) -> _Gathered:
        """The parents' incident facts. A level is a few parents with a few dozen facts, where each numpy call's
        overhead outweighs its work: each parent's entries are read as slices, and only the facts' own columns
        are gathered by index, once for the level."""
        incidence, facts = self.incidence, self.facts
        indptr = incidence.indptr
        counts: list[int] = []
        neighbours: list[int] = []
        outgoing: list[bool] = []
        slices = []
        for position in positions:
            start, stop = int(indptr[position]), int(indptr[position + 1])
            counts.append(stop - start)
            neighbours += incidence.neighbours[start:stop].tolist()
            outgoing += incidence.outgoing[start:stop].tolist()
            slices.append(incidence.edges[start:stop])
        edges = np.concatenate(slices) if len(slices) != 1 else slices[0]
        counting = self._counting(edges)
        return _Gathered(
            counts=counts,
            neighbours=neighbours,
            edges=edges.tolist(),
            outgoing=outgoing,
            weights=np.where(facts.weight_stored[edges], facts.stored_weights[edges], MISSING_WEIGHT).tolist(),
            ranks=facts.id_ranks[edges].tolist(),
            flags=None if counting is None else counting.tolist(),
        )

    def _tag_codes(self, edge: int) -> list[int]:
        facts = self.facts
        return facts.tag_codes[facts.tag_indptr[edge] : facts.tag_indptr[edge + 1]].tolist()

    def _tag_similarity(self, edge: int) -> float:
        """energy.tag_similarity of the fact, counted on tag codes. Only asked for facts whose energy could pass
        the threshold (a similarity is at most 1), so most of a level's facts never pay for their tags."""
        codes = self._tag_codes(edge)
        reading = self.reading
        if not codes:
            return reading.tag_sim_floor
        shared = sum(map(reading.query_codes.__contains__, codes))
        return floored_jaccard(shared, len(codes), len(reading.query_tags), reading.tag_sim_floor)

    def _expand(
        self, expand: Sequence[tuple[str, float, int]], limit: int, min_threshold: float
    ) -> tuple[tuple[LevelRow, ...], dict[str, int]]:
        projection = self.projection
        level = self._gathered([projection.position(node_id) for node_id, _, _ in expand])
        neighbours, edges, weights, ranks = level.neighbours, level.edges, level.weights, level.ranks
        flags, visited, tagged = level.flags, self.visited, bool(self.reading.query_tags)
        rows: list[LevelRow] = []
        neighbour_degrees: dict[str, int] = {}
        at = 0
        for (parent_id, activation, degree), count in zip(expand, level.counts, strict=True):
            # transfer_energy inlined, in its order of operations (so the floats are its own, to the last bit):
            # (R · w / √d) · tag_sim; without query tags tag_sim is 1.0, and multiplying by it changes nothing.
            root = sqrt_degree(degree)
            candidates = 0
            above: list[tuple[float, int, int, int, float]] = []
            for entry in range(at, at + count):
                neighbour = neighbours[entry]
                if neighbour in visited or (flags is not None and not flags[entry]):
                    continue
                candidates += 1
                energy = activation * weights[entry] / root
                similarity = 1.0
                if tagged:
                    if energy * SIMILARITY_CEILING <= min_threshold:
                        continue  # no tag similarity can lift it over the threshold
                    similarity = self._tag_similarity(edges[entry])
                    energy *= similarity
                if energy > min_threshold:
                    above.append((-energy, neighbour, ranks[entry], entry, similarity))
            at += count
            if not candidates:
                continue  # EXPAND_LEVEL's MATCH gives no row to a parent without an unvisited neighbour
            above.sort()
            top = []
            for negative_energy, neighbour, _, entry, similarity in above[:limit]:
                neighbour_id = projection.ids[neighbour]
                neighbour_degrees[neighbour_id] = self._degree(neighbour)
                top.append(self._candidate(level, entry, parent_id, degree, -negative_energy, similarity))
            rows.append(LevelRow(parent_id, degree, candidates, len(above), tuple(top)))
        return tuple(rows), neighbour_degrees

    def _candidate(
        self, level: _Gathered, entry: int, parent_id: str, degree: int, energy: float, similarity: float
    ) -> Candidate:
        projection, facts = self.projection, self.facts
        neighbour, edge = level.neighbours[entry], level.edges[entry]
        return Candidate(
            parent_id=parent_id,
            neighbor_id=projection.ids[neighbour],
            edge_id=facts.ids[edge],
            outgoing=level.outgoing[entry],
            relation=facts.relation(edge),
            weight=facts.weight(edge),
            degree=degree,
            tag_similarity=similarity,
            shared_tags=self._shared_tags(edge),
            transfer_energy=energy,
            neighbor_name=projection.name(neighbour),
            neighbor_labels=tuple(label for label in projection.labels(neighbour) if label != MEMORY_LABEL),
        )

    def _shared_tags(self, edge: int) -> tuple[str, ...]:
        """The fact's tags that are query tags, in stored order (repeats kept)."""
        query = self.reading.query_codes
        if not query:
            return ()
        vocabulary = self.facts.tag_vocabulary
        return tuple(vocabulary[code] for code in self._tag_codes(edge) if code in query)
