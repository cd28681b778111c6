"""An in-process reference of the Activation Energy algorithm, written plainly, to check the Cypher engine against.

It shares only the two formulas with the engine; the traversal, selection and
termination are its own, so an agreement between the two means something.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.retrieval.energy import tag_similarity, transfer_energy
from memoria.retrieval.params import ActivationParams


@dataclass(frozen=True)
class EdgeData:
    id: str
    source: str
    target: str
    weight: float | None
    tags: tuple[str, ...]
    valid_at: str | None = None
    invalid_at: str | None = None
    created_at: str | None = None
    expired_at: str | None = None

    def counts(self, moment: AsOf) -> bool:
        return moment.counts(self.valid_at, self.invalid_at, self.created_at, self.expired_at)


@dataclass(frozen=True)
class ReferencePath:
    nodes: tuple[str, ...]
    energies: tuple[float, ...]
    end_reason: str


class ReferenceGraph:
    def __init__(self, edges: Iterable[EdgeData], nodes: Iterable[str] = (), moment: AsOf = EVERY_FACT) -> None:
        """The graph of the facts that count at `moment` (its nodes all stay: a seed without facts is a dead end)."""
        self.adjacency: dict[str, list[tuple[EdgeData, str]]] = {node: [] for node in nodes}
        for edge in edges:
            if not edge.counts(moment):
                self.adjacency.setdefault(edge.source, [])
                self.adjacency.setdefault(edge.target, [])
                continue
            self.adjacency.setdefault(edge.source, []).append((edge, edge.target))
            self.adjacency.setdefault(edge.target, []).append((edge, edge.source))

    def explore(
        self, seed_id: str, seed_score: float, query_tags: Sequence[str], params: ActivationParams
    ) -> list[ReferencePath] | None:
        """All completed paths from one seed, or None when the seed is not in the graph."""
        if seed_id not in self.adjacency:
            return None
        tags = set(query_tags)
        frontier: list[tuple[str, float, tuple[str, ...], tuple[float, ...]]] = [(seed_id, seed_score, (seed_id,), ())]
        visited = {seed_id}
        paths: list[ReferencePath] = []
        for _depth in range(params.max_depth):
            if not frontier:
                break
            rows = []
            unvisited: dict[str, int] = defaultdict(int)
            above: dict[str, int] = defaultdict(int)
            for node, activation, _nodes, _energies in frontier:
                degree = len(self.adjacency[node])
                for edge, neighbour in self.adjacency[node]:
                    if neighbour in visited:
                        continue
                    unvisited[node] += 1
                    energy = transfer_energy(
                        activation, edge.weight, degree, tag_similarity(edge.tags, tags, params.tag_sim_floor)
                    )
                    if energy > params.min_activation:
                        above[node] += 1
                    rows.append((-energy, node, neighbour, edge.id, energy))
            rows.sort()
            claimed: set[str] = set()
            chosen: dict[str, list[tuple[str, float]]] = defaultdict(list)
            for _, parent, neighbour, _edge_id, energy in rows:
                takes = energy > params.min_activation and neighbour not in claimed
                if takes and len(chosen[parent]) < params.max_branches:
                    claimed.add(neighbour)
                    chosen[parent].append((neighbour, energy))
            next_frontier = []
            for node, _activation, nodes, energies in frontier:
                if not chosen[node]:
                    reason = "dead_end" if not unvisited[node] else "below_threshold" if not above[node] else "claimed"
                    paths.append(ReferencePath(nodes, energies, reason))
                for neighbour, energy in chosen[node]:
                    next_frontier.append((neighbour, energy, (*nodes, neighbour), (*energies, energy)))
            visited.update(entry[0] for entry in next_frontier)
            frontier = next_frontier
        paths.extend(ReferencePath(nodes, energies, "max_depth") for _, _, nodes, energies in frontier)
        return paths
