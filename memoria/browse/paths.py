"""Paths between two memories over RELATES facts (either direction): the shortest, or the strongest.

Shortest is a bidirectional breadth-first search; strongest maximises the product of the weights, i.e. Dijkstra
on -log(w), exact among paths of at most `max_hops` hops. Both pull neighbourhoods a level at a time with one
parameterised query per level, and stop at `max_hops` or after `max_visited` nodes, saying which bound cut them.
"""

from __future__ import annotations

import enum
import heapq
import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from memoria.browse.filters import FACT_PASSES, EdgeFilter
from memoria.errors import InvalidInput, NodeNotFound
from memoria.graph import driver

DEFAULT_MAX_HOPS = 6
MAX_HOPS = 10
DEFAULT_MAX_VISITED = 20_000
MAX_VISITED = 100_000
# A level reads at most this many rows, so one hub cannot make a level ship the whole group.
MAX_LEVEL_ROWS = 50_000

EXPAND_LEVEL = f"""
UNWIND $ids AS id
MATCH (a:Memory {{group_id: $group, id: id}})-[r:RELATES]-(b:Memory)
WHERE r.group_id = $group AND {FACT_PASSES}
RETURN a.id AS node, b.id AS neighbour, r.id AS edge, r.weight AS weight, startNode(r).id AS source
LIMIT $row_limit
"""
ENDS_IN_GROUP = """
UNWIND $ids AS id
MATCH (n:Memory {group_id: $group, id: id})
RETURN n.id AS id
"""


class PathMode(enum.StrEnum):
    SHORTEST = "shortest"
    STRONGEST = "strongest"


@dataclass(frozen=True)
class Step:
    """One traversed fact: from `node` to `neighbour`; `source` says which end the fact leaves."""

    node: str
    neighbour: str
    edge: str
    weight: float
    source: str

    @property
    def target(self) -> str:
        return self.neighbour if self.source == self.node else self.node

    @property
    def cost(self) -> float:
        return -math.log(self.weight)


@dataclass(frozen=True)
class PathQuery:
    """Between which memories of which group, over which facts, within which bounds; checked when made."""

    group: str
    source: str
    target: str
    max_hops: int = DEFAULT_MAX_HOPS
    edge_filter: EdgeFilter = field(default_factory=EdgeFilter)
    max_visited: int = DEFAULT_MAX_VISITED

    def __post_init__(self) -> None:
        problems = []
        if not 1 <= self.max_hops <= MAX_HOPS:
            problems.append(f"max_hops: must be 1–{MAX_HOPS}")
        if not 1 <= self.max_visited <= MAX_VISITED:
            problems.append(f"max_visited: must be 1–{MAX_VISITED}")
        if not self.source or not self.target:
            problems.append("from, to: both ends are required")
        if problems:
            raise InvalidInput(problems)


@dataclass(frozen=True)
class PathResult:
    """`nodes` from start to end and the `steps` between them; `strength` is the product of their weights.

    `visited` counts the nodes whose neighbourhoods were reached, `levels` the queries; `cut` names the bound
    that stopped the search (`max_hops`, `max_visited`) when no path was found or, for strongest, when the
    search could not see everything within max_hops.
    """

    mode: PathMode
    found: bool
    nodes: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    visited: int = 0
    levels: int = 0
    cut: str | None = None

    @property
    def hops(self) -> int:
        return len(self.steps)

    @property
    def strength(self) -> float | None:
        return math.prod(step.weight for step in self.steps) if self.found else None


@dataclass
class _Side:
    """One end's breadth-first tree: depth and best (strongest) parent step of every reached node."""

    origin: str
    depth: int = 0
    frontier: list[str] = field(default_factory=list)
    reached: dict[str, int] = field(default_factory=dict)
    parent: dict[str, Step | None] = field(default_factory=dict)
    strength: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.frontier = [self.origin]
        self.reached[self.origin] = 0
        self.parent[self.origin] = None
        self.strength[self.origin] = 1.0

    def trail(self, node: str) -> list[Step]:
        """Steps from the origin to `node`."""
        steps: list[Step] = []
        while (step := self.parent[node]) is not None:
            steps.append(step)
            node = step.node
        return steps[::-1]


def _expand(query: PathQuery, ids: list[str]) -> tuple[list[Step], bool]:
    """Every fact the query's filter lets through at the nodes `ids`; the flag says the level hit MAX_LEVEL_ROWS."""
    rows = driver.read(
        EXPAND_LEVEL, ids=ids, group=query.group, row_limit=MAX_LEVEL_ROWS, **query.edge_filter.parameters()
    )
    steps = [Step(row["node"], row["neighbour"], row["edge"], row["weight"], row["source"]) for row in rows]
    steps.sort(key=lambda step: (step.node, step.edge, step.neighbour))  # the server's row order is not ours
    return steps, len(rows) >= MAX_LEVEL_ROWS


def _reverse(step: Step) -> Step:
    return Step(step.neighbour, step.node, step.edge, step.weight, step.source)


def _joined(start: _Side, end: _Side, meeting: Step) -> tuple[tuple[str, ...], tuple[Step, ...]]:
    """The path start → meeting.node → meeting.neighbour → end, where `meeting` was taken from `start`'s side."""
    steps = [*start.trail(meeting.node), meeting, *(_reverse(s) for s in reversed(end.trail(meeting.neighbour)))]
    return (start.origin, *(step.neighbour for step in steps)), tuple(steps)


def shortest_path(*, query: PathQuery) -> PathResult:
    """Fewest hops; among equally short paths, the strongest. Expands the smaller frontier each level."""
    if query.source == query.target:
        return PathResult(PathMode.SHORTEST, True, nodes=(query.source,), visited=1)
    sides = (_Side(query.source), _Side(query.target))
    levels = 0
    while sides[0].depth + sides[1].depth < query.max_hops:
        near, far = sorted(sides, key=lambda side: len(side.frontier))
        if not near.frontier:
            return PathResult(PathMode.SHORTEST, False, visited=_visited(sides), levels=levels)
        steps, full = _expand(query, near.frontier)
        levels += 1
        near.depth += 1
        best: tuple[float, Step] | None = None
        next_frontier: list[str] = []
        for step in steps:
            strength = near.strength[step.node] * step.weight
            seen = near.reached.get(step.neighbour)
            if seen is None:
                near.reached[step.neighbour] = near.depth
                next_frontier.append(step.neighbour)
            if near.reached[step.neighbour] == near.depth and strength > near.strength.get(step.neighbour, 0.0):
                near.parent[step.neighbour] = step
                near.strength[step.neighbour] = strength
            if step.neighbour in far.reached:
                # Every meeting of the first level that has one is a shortest path (the balls were disjoint before).
                whole = strength * far.strength[step.neighbour]
                if best is None or whole > best[0]:
                    best = (whole, step)
        near.frontier = next_frontier
        if best is not None:
            start, end = (near, far) if near is sides[0] else (far, near)
            meeting = best[1] if near is sides[0] else _reverse(best[1])
            nodes, path = _joined(start, end, meeting)
            return PathResult(PathMode.SHORTEST, True, nodes=nodes, steps=path, visited=_visited(sides), levels=levels)
        if full or _visited(sides) > query.max_visited:
            return PathResult(PathMode.SHORTEST, False, visited=_visited(sides), levels=levels, cut="max_visited")
    return PathResult(PathMode.SHORTEST, False, visited=_visited(sides), levels=levels, cut="max_hops")


def _visited(sides: Iterable[_Side]) -> int:
    return len(set().union(*(side.reached for side in sides)))


def _strongest_within(
    adjacency: dict[str, list[Step]], source: str, target: str, max_hops: int
) -> tuple[tuple[str, ...], tuple[Step, ...]] | None:
    """Dijkstra over (node, hops) states on -log(w): exact among paths of at most max_hops hops.

    A plain Dijkstra could settle a node by a cheap long path and lose a dearer short one that alone fits in
    max_hops; a state is skipped only when the node was settled before with no more hops (it costs no more).
    """
    counter = 0
    queue: list[tuple[float, int, int, str, tuple[Step, ...]]] = [(0.0, 0, counter, source, ())]
    fewest_hops_settled: dict[str, int] = {}
    while queue:
        cost, hops, _, node, steps = heapq.heappop(queue)
        if fewest_hops_settled.get(node, max_hops + 1) <= hops:
            continue
        fewest_hops_settled[node] = hops
        if node == target:
            return (source, *(step.neighbour for step in steps)), steps
        if hops == max_hops:
            continue
        for step in adjacency.get(node, ()):
            if fewest_hops_settled.get(step.neighbour, max_hops + 1) > hops + 1:
                counter += 1
                heapq.heappush(queue, (cost + step.cost, hops + 1, counter, step.neighbour, (*steps, step)))
    return None


def strongest_path(*, query: PathQuery) -> PathResult:
    """Greatest product of weights among paths of at most max_hops hops.

    Balls around both ends are grown (the smaller frontier first) until their depths add up to max_hops: every
    fact of every such path is then loaded, and the search runs on what was loaded.
    """
    if query.source == query.target:
        return PathResult(PathMode.STRONGEST, True, nodes=(query.source,), visited=1)
    sides = (_Side(query.source), _Side(query.target))
    adjacency: dict[str, dict[str, Step]] = {}
    levels = 0
    cut = None
    while sides[0].depth + sides[1].depth < query.max_hops:
        near = min(sides, key=lambda side: len(side.frontier))
        if not near.frontier:
            break
        steps, full = _expand(query, near.frontier)
        levels += 1
        near.depth += 1
        next_frontier = []
        for step in steps:
            adjacency.setdefault(step.node, {})[step.edge + ">" + step.neighbour] = step
            back = _reverse(step)
            adjacency.setdefault(back.node, {})[back.edge + ">" + back.neighbour] = back
            if step.neighbour not in near.reached:
                near.reached[step.neighbour] = near.depth
                next_frontier.append(step.neighbour)
        near.frontier = next_frontier
        if full or _visited(sides) > query.max_visited:
            cut = "max_visited"
            break
    ordered = {node: sorted(out.values(), key=lambda s: (s.edge, s.neighbour)) for node, out in adjacency.items()}
    found = _strongest_within(ordered, query.source, query.target, query.max_hops)
    visited = _visited(sides)
    if found is None:
        return PathResult(PathMode.STRONGEST, False, visited=visited, levels=levels, cut=cut or "max_hops")
    nodes, steps = found
    return PathResult(PathMode.STRONGEST, True, nodes=nodes, steps=steps, visited=visited, levels=levels, cut=cut)


def path_find(*, query: PathQuery, mode: PathMode | str) -> PathResult:
    """The path of the asked mode between two memories of the group (NodeNotFound for an end it lacks)."""
    try:
        mode = PathMode(mode)
    except ValueError as error:
        raise InvalidInput(f"mode: {mode!r} is not one of {', '.join(PathMode)}") from error
    ends = [query.source, query.target]
    stored = {row["id"] for row in driver.read(ENDS_IN_GROUP, ids=ends, group=query.group)}
    for end in ends:
        if end not in stored:
            raise NodeNotFound(f"no memory {end!r} in group {query.group!r}")
    finder = shortest_path if mode is PathMode.SHORTEST else strongest_path
    return finder(query=query)
