"""The view level source: each level of a seed's exploration computed with numpy from the group's projection.

It gives the rows the Cypher source's EXPAND_LEVEL and OPEN_NEIGHBOURS give, to the last bit: the same
neighbours (unvisited, in the group — the projection holds the group's nodes only), the same tag similarity
and transfer energy, each an element-wise IEEE operation in the order the Cypher writes them (and energy.py),
the same order (transfer energy descending, neighbour id, edge id; ids compare as the ranks the projection
sorted them into), the same counts and the same `limit` cut. The degree is the server's RELATES count, stored
with each node. No graph round trip is made, so the exploration's cost does not grow with the server's size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from memoria.graphindex.projection import Projection
from memoria.retrieval.energy import MISSING_WEIGHT
from memoria.retrieval.levels import LevelQuery, LevelRead, LevelRow, SeedNode
from memoria.retrieval.selection import Candidate

MEMORY_LABEL = "Memory"  # every node has it; events leave it out, as the Cypher source's rows do


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices of the concatenated ranges starts[i] : starts[i] + counts[i]."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(counts) + counts, counts)
    return offsets + np.arange(total, dtype=np.int64)


class ViewLevelSource:
    """A seed's levels read from a projection of the retrieval's group (one per seed: it keeps the visited mask)."""

    round_trips = 0

    def __init__(self, projection: Projection, *, query_tags: Sequence[str], tag_sim_floor: float) -> None:
        self.projection = projection
        self.incidence = projection.incidence()
        self.facts = projection.facts
        self.query_tags = list(query_tags)
        self.tag_sim_floor = tag_sim_floor
        self.is_query_tag = np.zeros(len(self.facts.tag_vocabulary), dtype=bool)
        known = [self.facts.tag_index[tag] for tag in self.query_tags if tag in self.facts.tag_index]
        self.is_query_tag[known] = True
        self.visited = np.zeros(projection.size, dtype=bool)
        self.marked: set[str] = set()

    async def seed(self, seed_id: str) -> SeedNode | None:
        position = self.projection.position(seed_id)
        if position is None:
            return None
        return SeedNode(
            self.projection.name(position),
            self.projection.labels(position),
            int(self.projection.relates_degrees[position]),
        )

    def _mark(self, visited: set[str]) -> None:
        """Bring the visited mask up to `visited`, which only grows during one seed's exploration."""
        if len(visited) == len(self.marked):
            return
        fresh = visited - self.marked
        positions = [self.projection.position(node_id) for node_id in fresh]
        self.visited[[position for position in positions if position is not None]] = True
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
                around = neighbours[indptr[position] : indptr[position + 1]]
                answers[node_id] = bool((~self.visited[around]).any())
        return answers

    def _expand(
        self, expand: Sequence[tuple[str, float]], limit: int, min_threshold: float
    ) -> tuple[tuple[LevelRow, ...], dict[str, int]]:
        projection, incidence, facts = self.projection, self.incidence, self.facts
        parent_ids = [node_id for node_id, _ in expand]
        parents = np.fromiter((projection.position(node_id) for node_id in parent_ids), np.int64, len(expand))
        degrees = projection.relates_degrees[parents]
        activations = np.fromiter((activation for _, activation in expand), np.float64, len(expand))
        # Cypher's sqrt(toFloat(degree)); math.sqrt and numpy's are both correctly rounded.
        sqrt_degrees = np.fromiter((math.sqrt(float(d)) for d in degrees.tolist()), np.float64, len(expand))

        entries = _ranges(incidence.indptr[parents], incidence.indptr[parents + 1] - incidence.indptr[parents])
        owner = np.repeat(np.arange(len(expand)), incidence.indptr[parents + 1] - incidence.indptr[parents])
        neighbours = incidence.neighbours[entries]
        unvisited = ~self.visited[neighbours]
        entries, owner, neighbours = entries[unvisited], owner[unvisited], neighbours[unvisited]
        edges = incidence.edges[entries]
        candidates = np.bincount(owner, minlength=len(expand))

        weights = np.where(facts.weight_stored[edges], facts.stored_weights[edges], MISSING_WEIGHT)
        tag_sims = self._tag_similarities(edges)
        energies = activations[owner] * weights / sqrt_degrees[owner]
        if tag_sims is not None:
            energies = energies * tag_sims
        above = np.flatnonzero(energies > min_threshold)
        above_counts = np.bincount(owner[above], minlength=len(expand))
        # Selection order within each parent: energy descending, then neighbour id, then edge id.
        order = above[np.lexsort((facts.id_ranks[edges[above]], neighbours[above], -energies[above], owner[above]))]
        group_starts = np.concatenate(([0], np.cumsum(above_counts)[:-1]))
        shipped = order[np.arange(len(order)) - group_starts[owner[order]] < limit]

        tops: list[list[Candidate]] = [[] for _ in expand]
        neighbour_degrees: dict[str, int] = {}
        for row in shipped.tolist():
            parent = int(owner[row])
            edge = int(edges[row])
            neighbour = int(neighbours[row])
            neighbour_id = projection.ids[neighbour]
            neighbour_degrees[neighbour_id] = int(projection.relates_degrees[neighbour])
            tops[parent].append(
                Candidate(
                    parent_id=parent_ids[parent],
                    neighbor_id=neighbour_id,
                    edge_id=facts.ids[edge],
                    outgoing=bool(incidence.outgoing[entries[row]]),
                    relation=facts.relation(edge),
                    weight=facts.weight(edge),
                    degree=int(degrees[parent]),
                    tag_similarity=1.0 if tag_sims is None else float(tag_sims[row]),
                    shared_tags=self._shared_tags(edge),
                    transfer_energy=float(energies[row]),
                    neighbor_name=projection.name(neighbour),
                    neighbor_labels=tuple(label for label in projection.labels(neighbour) if label != MEMORY_LABEL),
                )
            )
        rows = tuple(
            LevelRow(parent_ids[index], int(degrees[index]), int(count), int(above_counts[index]), tuple(tops[index]))
            for index, count in enumerate(candidates.tolist())
            if count  # EXPAND_LEVEL's MATCH gives no row to a parent without an unvisited neighbour
        )
        return rows, neighbour_degrees

    def _tag_similarities(self, edges: np.ndarray) -> np.ndarray | None:
        """Floored Jaccard per edge, as EXPAND_LEVEL's CASE computes it; None without query tags (it is 1.0)."""
        if not self.query_tags:
            return None
        facts = self.facts
        starts, ends = facts.tag_indptr[edges], facts.tag_indptr[edges + 1]
        counts = ends - starts
        codes = facts.tag_codes[_ranges(starts, counts)]
        shared = np.bincount(
            np.repeat(np.arange(len(edges)), counts), weights=self.is_query_tag[codes], minlength=len(edges)
        ).astype(np.int64)
        floor = self.tag_sim_floor
        jaccard_part = (1.0 - floor) * shared.astype(np.float64) / (counts + len(self.query_tags) - shared)
        return np.where(counts == 0, floor, floor + jaccard_part)

    def _shared_tags(self, edge: int) -> tuple[str, ...]:
        if not self.query_tags:
            return ()
        facts = self.facts
        codes = facts.tag_codes[facts.tag_indptr[edge] : facts.tag_indptr[edge + 1]].tolist()
        return tuple(facts.tag_vocabulary[code] for code in codes if self.is_query_tag[code])
