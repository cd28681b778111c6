"""Running a validated retrieval request: resolve seeds and query tags, then stream the engine's events.

The REST view, the websocket consumer and the benchmark all call this; none has its own copy of the algorithm.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from memoria.observability import retrieval_id_events
from memoria.requests.moment import AsOfInput
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.budget import RetrievalBudget, server_limits
from memoria.retrieval.engines import EngineChoice, default_engine, engine_events
from memoria.retrieval.event_types import RetrievalEvent, RetrievalFinished, RetrievalStarted, SeedFinished
from memoria.retrieval.query_tags import derive_query_tags
from memoria.retrieval.request import ActivationRequest
from memoria.search.service import search_seeds


def new_retrieval_id() -> str:
    return uuid.uuid4().hex


def activation_run(
    request: ActivationRequest, *, retrieval_id: str | None = None, requested_by: str | None = None
) -> AsyncIterator[RetrievalEvent]:
    """Events of one Activation Energy retrieval, from `retrieval_started` to `retrieval_finished`; everything it
    logs (its Cypher round trips too) carries the retrieval id."""
    retrieval_id = retrieval_id or new_retrieval_id()
    return retrieval_id_events(retrieval_id, _activation_events(request, retrieval_id, requested_by))


async def _activation_events(
    request: ActivationRequest, retrieval_id: str, requested_by: str | None
) -> AsyncIterator[RetrievalEvent]:
    # Started before seeds are searched for: finding them is part of the retrieval's time.
    budget = RetrievalBudget(request.budget or server_limits())
    moment = request.moment or AsOfInput().resolved()
    seeds = request.seeds
    seed_source = "caller"
    if seeds is None:
        # Embedding the query and reading two indexes block; keep them off the event loop.
        found = await asyncio.to_thread(
            search_seeds, group=request.group, query=request.query or "", scope=request.scope
        )
        seeds = tuple(Seed(node_id, score) for node_id, score in found)
        seed_source = "search"
    query_tags = request.query_tags
    tag_source = "caller"
    if query_tags is None:
        query_tags = tuple(
            await asyncio.to_thread(derive_query_tags, group=request.group, text=request.query) if request.query else ()
        )
        tag_source = "query" if request.query else "none"
    context = {
        "query": request.query,
        "seed_source": seed_source,
        "tag_source": tag_source,
        "requested_by": requested_by,
        "explain": request.explain,
    }

    def run(engine: EngineChoice) -> AsyncIterator[RetrievalEvent]:
        return activation_events(
            group=request.group,
            seeds=seeds,
            query_tags=query_tags,
            params=request.params,
            explain=request.explain,
            retrieval_id=retrieval_id,
            context=context,
            budget=budget,
            engine=engine,
            moment=moment,
        )

    async for event in engine_events(
        group=request.group, requested=request.engine or default_engine(), budget=budget, run=run
    ):
        yield event


def activation_response(events: Sequence[RetrievalEvent]) -> dict[str, Any]:
    """The REST answer collected from a finished event stream."""
    started, finished = events[0], events[-1]
    if not isinstance(started, RetrievalStarted) or not isinstance(finished, RetrievalFinished):
        raise ValueError("an activation answer is collected from a whole stream, retrieval_started to _finished")
    seeds = [
        {
            "seed_id": event.seed_id,
            "status": event.status,
            "score": event.score,
            "name": event.name,
            "labels": event.labels or [],
            "paths": [
                {
                    "nodes": path["nodes"],
                    "hops": path["hops"],
                    "depth": path["depth"],
                    "energy": path["energy"],
                    "end_reason": path["end_reason"],
                }
                for path in event.paths
            ],
            **({"error": event.error} if event.error is not None else {}),
        }
        for event in events
        if isinstance(event, SeedFinished)
    ]
    order = {seed["id"]: index for index, seed in enumerate(started.seeds)}
    seeds.sort(key=lambda seed: order.get(seed["seed_id"], len(order)))
    return {
        "retrieval_id": started.retrieval_id,
        "group": started.group,
        "query_tags": started.query_tags,
        "params": started.params,
        "seed_source": started.seed_source,
        "engine": started.engine,
        "time": started.time,
        "seeds": seeds,
        "stats": {
            key: getattr(finished, key)
            for key in ("status", "elapsed_ms", "round_trips", "paths", "candidates", "budget")
        },
    }
