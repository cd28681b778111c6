"""How far retrievals reach: the shape of a query's activation paths (depth, branching, pruning).

The demo memory is meant to show the algorithm at work, so its sample queries must expand several levels with
branching and pruning on screen. `demo_depths` prints these figures and a test holds the demo to them; both run
the real retrieval (seeds and tags found from the query, default parameters) through `activation_run`.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memoria.retrieval.event_types import RetrievalEvent, SeedFinished
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.request import ActivationRequest
from memoria.retrieval.runs import activation_run


@dataclass(frozen=True)
class QueryDepth:
    """One query's retrieval, reduced to its shape."""

    query: str
    seed_depths: tuple[int, ...]  # each seed's deepest path, in the seeds' order
    paths: int
    branching: int  # nodes from which two or more paths go on by different edges
    end_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def deepest(self) -> int:
        return max(self.seed_depths, default=0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "deepest": self.deepest,
            "seed_depths": list(self.seed_depths),
            "paths": self.paths,
            "branching": self.branching,
            "end_reasons": self.end_reasons,
        }


def query_depth(query: str, events: Iterable[RetrievalEvent]) -> QueryDepth:
    """The shape of one finished event stream (activation_run's events)."""
    seeds = [event for event in events if isinstance(event, SeedFinished)]
    paths = [path for seed in seeds for path in seed.paths]
    children: dict[str, set[str]] = {}
    for path in paths:
        for parent, child in zip(path["nodes"], path["nodes"][1:], strict=False):
            children.setdefault(parent, set()).add(child)
    return QueryDepth(
        query=query,
        seed_depths=tuple(max((path["depth"] for path in seed.paths), default=0) for seed in seeds),
        paths=len(paths),
        branching=sum(len(next_nodes) >= 2 for next_nodes in children.values()),
        end_reasons=dict(Counter(path["end_reason"] for path in paths)),
    )


async def query_depths(*, group: str, queries: list[str], params: ActivationParams | None = None) -> list[QueryDepth]:
    """Run each query as a retrieval would (seeds and query tags from its text) and measure its paths."""
    measured = []
    for query in queries:
        request = ActivationRequest(group=group, query=query, params=params or ActivationParams())
        events = [event async for event in activation_run(request)]
        measured.append(query_depth(query, events))
    return measured


def median_deepest(measured: list[QueryDepth]) -> float:
    """The figure the demo is held to: the median over queries of each one's deepest path."""
    return statistics.median(item.deepest for item in measured) if measured else 0.0
