"""Is the graph server answering? One cheap query, timed, never raising."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from memoria.errors import GraphUnavailable
from memoria.graph import driver
from memoria.graph.dialect import graph_dialect


@dataclass(frozen=True)
class GraphHealth:
    status: str  # "up" or "down"
    detail: str
    dialect: str | None = None
    latency_ms: float | None = None

    @property
    def up(self) -> bool:
        return self.status == "up"

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def graph_health() -> GraphHealth:
    started = time.perf_counter()
    try:
        driver.read("RETURN 1 AS ok")
        dialect = graph_dialect().name
    except GraphUnavailable as error:
        return GraphHealth("down", str(error))
    latency = (time.perf_counter() - started) * 1000
    return GraphHealth("up", "graph server answered", dialect, round(latency, 2))
