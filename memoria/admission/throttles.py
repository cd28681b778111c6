"""The throttle policy: per-user request rates of the expensive calls (retrieval, search, ingest), whichever face
they come through, counted in Django's cache.

Rates come from settings.MEMORIA_THROTTLE_RATES (the environment, memoria/settings.py) and are read at every
request, so a changed setting applies at once. Counts live in the default cache: with the local-memory cache
each server process counts alone (N processes allow N times the rate); MEMORIA_REDIS_URL gives them one shared
cache. A retrieval started on the websocket counts against the same "retrieval" rate as a REST one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from memoria.errors import MemoriaError

RETRIEVAL = "retrieval"
SEARCH = "search"
INGEST = "ingest"
SCOPES = (RETRIEVAL, SEARCH, INGEST)
PERIOD_NAMES = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}


class RateLimited(MemoriaError):
    """A caller spent its rate of `scope`: what was throttled, its limit, and when to come back (the error table
    answers it as a 429 with Retry-After, a `throttled` frame or tool error)."""

    def __init__(self, *, scope: str, requests: int, period_seconds: int, wait: float | None) -> None:
        self.retry_after = max(1, math.ceil(wait or 0))  # a header of 0 would invite an instant retry
        self.scope = scope
        self.requests = requests
        self.period_seconds = period_seconds
        period = PERIOD_NAMES.get(period_seconds, f"{period_seconds} s")
        self.message = (
            f"Too many {scope} requests: at most {requests} per {period} per user. Retry in {self.retry_after} s."
        )
        super().__init__(self.message)

    def limit(self) -> dict[str, int]:
        return {"requests": self.requests, "period_seconds": self.period_seconds}


class ScopeRateThrottle(SimpleRateThrottle):
    """DRF's sliding window, keyed by user and scope; the rate read from settings at each request.

    (DRF's ScopedRateThrottle reads its rates once, at import, so tests and changed settings would not reach it.)
    """

    scope: str

    def get_rate(self) -> str | None:
        return getattr(settings, "MEMORIA_THROTTLE_RATES", {}).get(self.scope)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None  # every throttled endpoint refuses anonymous callers before it counts them
        return self.cache_format % {"scope": self.scope, "ident": user.pk}

    def allow_request(self, request: Any, view: Any) -> bool:
        if super().allow_request(request, view):
            return True
        raise RateLimited(scope=self.scope, requests=self.num_requests, period_seconds=self.duration, wait=self.wait())


class RetrievalThrottle(ScopeRateThrottle):
    scope = RETRIEVAL


class SearchThrottle(ScopeRateThrottle):
    scope = SEARCH


class IngestThrottle(ScopeRateThrottle):
    scope = INGEST


THROTTLES: dict[str, type[ScopeRateThrottle]] = {
    RETRIEVAL: RetrievalThrottle,
    SEARCH: SearchThrottle,
    INGEST: IngestThrottle,
}


@dataclass(frozen=True)
class _Caller:
    """All a throttle reads of a request: who sent it (a websocket message or an MCP call has no DRF request)."""

    user: Any


def throttle_count(*, scope: str, user: Any) -> None:
    """Count one call made outside DRF's views (a websocket retrieval, an MCP tool call) against the user's rate
    of `scope`, in the same cache window as the REST calls; RateLimited once it is spent."""
    THROTTLES[scope]().allow_request(_Caller(user), None)


def retrieval_count(*, user: Any) -> None:
    """Count one websocket retrieval against the user's retrieval rate; RateLimited once it is spent."""
    throttle_count(scope=RETRIEVAL, user=user)
