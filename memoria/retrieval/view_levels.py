"""The view level source: each level of a seed's exploration computed from the group's in-memory projection.

It gives the rows the Cypher source's EXPAND_LEVEL and OPEN_NEIGHBOURS give, to the last bit: the same
neighbours (unvisited, in the group — the projection holds the group's nodes only), the same tag similarity and
transfer energy (energy.py's functions, which compute the Cypher's expressions in its order), the same order
(transfer energy descending, neighbour id, edge id; ids compare as the ranks the projection sorted them into),
the same counts and the same `limit` cut. The degree is the server's RELATES count, stored with each node.

A level is small (measured at 100k/500k: 2–5 parents and 20–60 incident facts on average), so the frontier's
slices are gathered with numpy in a few calls and the rows computed in plain Python: per-call overheads of a
fully vectorised level cost more than the arithmetic (0.35 ms against the reference's 0.1 ms per level).
No graph round trip is made, so the exploration's cost does not grow with the server's size.

Facts count as the Cypher's do at the retrieval's moment (memoria/graph/asof.py), read from the interval arrays
the projection keeps: a fact that does not count is no candidate and leaves the degree d. A node's degree is the
server's RELATES count less its facts in the group that do not count; a fact whose other end lies outside the
group (no write path makes one) is not in the projection, so it stays counted whatever its times.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.graphindex.projection import Projection
from memoria.retrieval.energy import tag_similarity, transfer_energy
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
    """A seed's levels read from a projection of the retrieval's group (one per seed: it keeps the visited set)."""

    round_trips = 0

    def __init__(
        self, projection: Projection, *, query_tags: Sequence[str], tag_sim_floor: float, moment: AsOf = EVERY_FACT
    ) -> None:
        self.projection = projection
        self.incidence = projection.incidence()
        self.facts = projection.facts
        self.at = projection.at(moment)  # None: every fact counts at this moment, as before
        self.query_tags = frozenset(query_tags)
        self.tag_sim_floor = tag_sim_floor
        self.visited: set[int] = set()
        self.marked: set[str] = set()

    async def seed(self, seed_id: str) -> SeedNode | None:
        position = self.projection.position(seed_id)
        if position is None:
            return None
        return SeedNode(self.projection.name(position), self.projection.labels(position), self._degree(position))

    def _counting(self, edges: np.ndarray) -> np.ndarray | None:
        """Which of these facts count at the moment; None when all do."""
        return None if self.at is None else self.at.counting[edges]

    def _degree(self, position: int) -> int:
        """The node's RELATES degree at the moment."""
        return int((self.projection.relates_degrees if self.at is None else self.at.degrees)[position])

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

    def _expand(
        self, expand: Sequence[tuple[str, float, int]], limit: int, min_threshold: float
    ) -> tuple[tuple[LevelRow, ...], dict[str, int]]:
        projection, incidence, facts = self.projection, self.incidence, self.facts
        parents = [projection.position(node_id) for node_id, _, _ in expand]
        starts = incidence.indptr[parents]
        counts = incidence.indptr[np.asarray(parents, dtype=np.int64) + 1] - starts
        entries = _ranges(starts, counts)
        # The frontier's incident facts, gathered once and read as Python values.
        neighbours = incidence.neighbours[entries].tolist()
        edges_array = incidence.edges[entries]
        edges = edges_array.tolist()
        stored = facts.weight_stored[edges_array].tolist()
        weights = [
            w if has else None for w, has in zip(facts.stored_weights[edges_array].tolist(), stored, strict=True)
        ]
        ranks = facts.id_ranks[edges_array].tolist()
        tag_lists = self._tags(edges_array)
        counting = self._counting(edges_array)
        flags = None if counting is None else counting.tolist()

        rows: list[LevelRow] = []
        neighbour_degrees: dict[str, int] = {}
        at = 0
        for (parent_id, activation, degree), count in zip(expand, counts.tolist(), strict=True):
            candidates = 0
            above: list[tuple[float, int, int, int, float]] = []
            for entry in range(at, at + count):
                neighbour = neighbours[entry]
                if neighbour in self.visited or (flags is not None and not flags[entry]):
                    continue
                candidates += 1
                tag_sim = tag_similarity(tag_lists[entry] if tag_lists else (), self.query_tags, self.tag_sim_floor)
                energy = transfer_energy(activation, weights[entry], degree, tag_sim)
                if energy > min_threshold:
                    above.append((-energy, neighbour, ranks[entry], entry, tag_sim))
            at += count
            if not candidates:
                continue  # EXPAND_LEVEL's MATCH gives no row to a parent without an unvisited neighbour
            above.sort()
            top = []
            for negative_energy, neighbour, _, entry, tag_sim in above[:limit]:
                neighbour_id = projection.ids[neighbour]
                neighbour_degrees[neighbour_id] = self._degree(neighbour)
                edge = edges[entry]
                top.append(
                    Candidate(
                        parent_id=parent_id,
                        neighbor_id=neighbour_id,
                        edge_id=facts.ids[edge],
                        outgoing=bool(incidence.outgoing[entries[entry]]),
                        relation=facts.relation(edge),
                        weight=facts.weight(edge),
                        degree=degree,
                        tag_similarity=tag_sim,
                        shared_tags=tuple(tag for tag in tag_lists[entry] if tag in self.query_tags)
                        if tag_lists
                        else (),
                        transfer_energy=-negative_energy,
                        neighbor_name=projection.name(neighbour),
                        neighbor_labels=tuple(label for label in projection.labels(neighbour) if label != MEMORY_LABEL),
                    )
                )
            rows.append(LevelRow(parent_id, degree, candidates, len(above), tuple(top)))
        return tuple(rows), neighbour_degrees

    def _tags(self, edges: np.ndarray) -> list[tuple[str, ...]] | None:
        """Each gathered fact's tags, in stored order; None without query tags (tag similarity is then 1.0)."""
        if not self.query_tags:
            return None
        facts = self.facts
        starts = facts.tag_indptr[edges]
        counts = facts.tag_indptr[edges + 1] - starts
        vocabulary = facts.tag_vocabulary
        flat = [vocabulary[code] for code in facts.tag_codes[_ranges(starts, counts)].tolist()]
        tags = []
        at = 0
        for count in counts.tolist():
            tags.append(tuple(flat[at : at + count]))
            at += count
        return tags
