"""PPR as an event stream (the retrieval websocket, its watchers and journal): started, the top nodes every few
iterations while the scores converge, then the answer.

A solve takes milliseconds to a few hundred; showing every iteration would flood a socket for nothing and
showing none hides how the walk spreads. So an iteration is shown when ITERATION_EVERY have passed or
ITERATION_SECONDS since the last one shown, the first always: a fast solve still shows a few frames.
Cancelling stops the solve at its next iteration (the hook raises in the worker thread).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

from memoria.observability import retrieval_id_events
from memoria.ppr.request import PprRequest
from memoria.ppr.service import ScoredNode, ppr_run
from memoria.projection.cache import ProjectionCache
from memoria.requests.moment import AsOfInput
from memoria.retrieval.budget import server_limits
from memoria.retrieval.event_types import (
    Algorithm,
    PprFinished,
    PprIteration,
    RetrievalEvent,
    RetrievalFinished,
    RetrievalStarted,
)

ITERATION_EVERY = 3
ITERATION_SECONDS = 0.05


class RunCancelled(Exception):
    """Raised by the iteration hook once the run's consumer has gone: the solve stops there."""


@dataclass
class _Pace:
    """When the last iteration was shown; touched only by the worker thread."""

    iteration: int = 0
    at: float = 0.0

    def due(self, iteration: int, now: float) -> bool:
        if self.iteration and iteration - self.iteration < ITERATION_EVERY and now - self.at < ITERATION_SECONDS:
            return False
        self.iteration, self.at = iteration, now
        return True


def ppr_started(request: PprRequest, *, retrieval_id: str, requested_by: str | None) -> RetrievalStarted:
    """What was asked, as watchers and the journal list it (seeds as given; the answer says which were used)."""
    return RetrievalStarted(
        retrieval_id=retrieval_id,
        algorithm=Algorithm.PPR,
        group=request.group,
        requested_by=requested_by,
        query=request.query,
        seeds=[{"id": seed.id, "weight": seed.weight} for seed in request.seeds or ()],
        params={
            "damping": request.damping,
            "top_k": request.top_k,
            "directed": request.directed,
            "mentions": request.mentions,
            "relation_aware": request.relation_aware,
            "betas": request.betas.as_dict() if request.betas else None,
            "betas_source": request.betas_source,
            "filter": request.fact_filter,
        },
        budget=(request.budget or server_limits(ppr=True)).as_dict(),  # the limits; the end says what was used
        time=request.moment.as_dict() if request.moment else None,
    )


def ppr_events(
    request: PprRequest,
    *,
    retrieval_id: str,
    requested_by: str | None = None,
    cache: ProjectionCache | None = None,
) -> AsyncIterator[RetrievalEvent]:
    """Events of one PPR run; engine errors (InvalidInput, ProjectionLoading, ...) raise after `retrieval_started`.
    Everything it logs carries the retrieval id."""
    return retrieval_id_events(retrieval_id, _ppr_events(request, retrieval_id, requested_by, cache))


async def _ppr_events(
    request: PprRequest, retrieval_id: str, requested_by: str | None, cache: ProjectionCache | None
) -> AsyncIterator[RetrievalEvent]:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[RetrievalEvent | None] = asyncio.Queue()
    stop = threading.Event()
    pace = _Pace()
    began = time.perf_counter()
    request = replace(request, moment=request.moment or AsOfInput().resolved())  # one moment for start and solve

    def on_iteration(iteration: int, bound: float, top: Callable[[], tuple[ScoredNode, ...]]) -> None:
        if stop.is_set():
            raise RunCancelled
        if not pace.due(iteration, time.perf_counter()):
            return
        event = PprIteration(
            retrieval_id=retrieval_id, iteration=iteration, error_bound=bound, top=[vars(node) for node in top()]
        )
        loop.call_soon_threadsafe(queue.put_nowait, event)

    yield ppr_started(request, retrieval_id=retrieval_id, requested_by=requested_by)
    solve = asyncio.ensure_future(asyncio.to_thread(ppr_run, request, cache=cache, on_iteration=on_iteration))
    # The thread's frames are queued before its result is: the None marking the end comes after them.
    solve.add_done_callback(lambda _: queue.put_nowait(None))
    try:
        while (event := await queue.get()) is not None:
            yield event
        answer = solve.result()
    except Exception as error:
        # Watchers and the journal see the run end; the caller's error frame, with its code, follows.
        yield _finished(retrieval_id, began, status="failed", error=str(error))
        raise
    finally:
        stop.set()
        solve.add_done_callback(lambda done: done.cancelled() or done.exception())  # a stopped solve's error is seen
    yield PprFinished(retrieval_id=retrieval_id, answer=answer.as_dict())
    yield _finished(
        retrieval_id,
        began,
        status=answer.status,  # completed, or budget_exhausted (ppr_finished holds the iterate it stopped at)
        iterations=answer.result.iterations,
        converged=answer.result.converged,
        budget=answer.budget,
    )


def _finished(retrieval_id: str, began: float, *, status: str, **details: Any) -> RetrievalFinished:
    return RetrievalFinished(
        retrieval_id=retrieval_id,
        algorithm=Algorithm.PPR,
        status=status,
        elapsed_ms=round((time.perf_counter() - began) * 1000, 3),
        **details,
    )
