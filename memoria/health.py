"""Is this process able to serve? The graph server, the channel layer and the embedding model, each checked for real.

Each check does the smallest real piece of work (a Cypher round trip, a message sent and received, a text
embedded), is timed and bounded by MEMORIA_HEALTH_TIMEOUT_SECONDS, and never raises: a failure is a
"down" status with the reason, for operators; what an anonymous caller may see of it is the view's choice.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from memoria.graph.health import graph_health
from memoria.projection.cache import projection_cache
from memoria.readmodel.cache import view_cache

logger = logging.getLogger(__name__)

UP = "up"
DOWN = "down"
PROBE_TEXT = "health check"
PROBE_MESSAGE_TYPE = "health.probe"


@dataclass(frozen=True)
class ComponentHealth:
    status: str  # UP or DOWN
    latency_ms: float
    detail: str

    @property
    def up(self) -> bool:
        return self.status == UP

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class SystemHealth:
    components: dict[str, ComponentHealth]

    @property
    def up(self) -> bool:
        return all(component.up for component in self.components.values())


def _graph_check() -> str:
    health = graph_health()  # the same round trip /api/health reports
    if not health.up:
        raise RuntimeError(health.detail)
    return f"{health.dialect} answered"


async def _channel_layer_check() -> str:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured (CHANNEL_LAYERS)")
    channel = await layer.new_channel("health.")
    nonce = uuid.uuid4().hex
    await layer.send(channel, {"type": PROBE_MESSAGE_TYPE, "nonce": nonce})
    message = await layer.receive(channel)
    if message.get("nonce") != nonce:
        raise RuntimeError("the channel layer returned another message than the one sent")
    return f"{type(layer).__name__} delivered a message"


def _embedding_check() -> str:
    from memoria.embeddings import embedder  # lazy: importing the model's libraries takes seconds
    from memoria.graph.schema import embedding_dimensions

    vector = embedder().embed_one(PROBE_TEXT)
    if len(vector) != embedding_dimensions():
        raise RuntimeError(f"the model made a {len(vector)}-dimensional vector, not {embedding_dimensions()}")
    return f"embedded a text into {len(vector)} dimensions"


async def _timed(name: str, check: Callable[[], Awaitable[str]], timeout: float) -> ComponentHealth:
    started = time.perf_counter()
    try:
        detail = await asyncio.wait_for(check(), timeout)
        status = UP
    except TimeoutError:
        status, detail = DOWN, f"no answer within {timeout:g} s"
    except Exception as error:  # a health check reports every failure; it must not become one
        status, detail = DOWN, str(error) or type(error).__name__
    latency = round((time.perf_counter() - started) * 1000, 2)
    if status == DOWN:
        logger.warning("health: %s is down: %s", name, detail, extra={"component": name, "latency_ms": latency})
    return ComponentHealth(status, latency, str(detail))


async def system_health() -> SystemHealth:
    """All components checked at once, so the answer takes as long as the slowest, not their sum."""
    timeout = float(settings.MEMORIA_HEALTH_TIMEOUT_SECONDS)
    checks: dict[str, Callable[[], Awaitable[str]]] = {
        "graph": sync_to_async(_graph_check, thread_sensitive=False),
        "channel_layer": _channel_layer_check,
        "embedding_model": sync_to_async(_embedding_check, thread_sensitive=False),
    }
    results = await asyncio.gather(*(_timed(name, check, timeout) for name, check in checks.items()))
    return SystemHealth(dict(zip(checks, results, strict=True)))


def memory_report() -> dict[str, object]:
    """What this process holds in memory per group (search views and PPR projections), against their budgets."""
    views = view_cache()
    projections = projection_cache()
    return {
        "views": [size.as_dict() for size in views.sizes()],
        "view_bytes": sum(size.bytes for size in views.sizes()),
        "view_budget_bytes": views.max_bytes,
        "projections": projections.sizes(),
        "projection_budget_edges": projections.max_edges,
    }
