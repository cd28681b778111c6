"""MCP overhead benchmark: the same reads through an MCP tool and through the REST call it wraps, on one daphne.

Each pair is timed at the client, alternately (REST first on even runs, MCP first on odd ones) so both meet the
same load, over the same kind of HTTP client with keep-alive. The difference is what the MCP face adds: JSON-RPC
framing, the SDK's per-request transport (stateless HTTP), the pydantic input model and the structured output.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import ClientSession
from mcp.shared._httpx_utils import create_mcp_http_client

from memoria.evaluation.timing import percentile
from memoria.mcp.client import http_session

LIMIT = 10
CONTEXT_BUDGET = 1000  # tokens: about a page of prompt


class BenchCallFailed(RuntimeError):
    """A timed call did not succeed: a benchmark of errors would measure nothing."""


@dataclass(frozen=True)
class Pair:
    """One MCP tool and the REST call it wraps, each given the run's query text."""

    name: str
    rest: Callable[[Any, str, str], Awaitable[None]]
    mcp: Callable[[ClientSession, str, str], Awaitable[None]]


def _rest_ok(response: Any) -> None:
    if response.status_code != 200:
        raise BenchCallFailed(f"REST {response.request.url.path}: {response.status_code} {response.text[:200]}")


async def _tool(session: ClientSession, name: str, arguments: dict[str, Any], **options: Any) -> None:
    result = await session.call_tool(name, arguments, **options)
    if result.is_error:
        raise BenchCallFailed(f"MCP {name}: {result.content[0].text[:200]}")


async def _ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


PAIRS: tuple[Pair, ...] = (
    Pair(
        "list_groups",
        lambda rest, group, query: _check(rest.get("/api/groups")),
        lambda session, group, query: _tool(session, "list_groups", {}),
    ),
    Pair(
        "search_memory",
        lambda rest, group, query: _check(
            rest.get("/api/search", params={"q": query, "group": group, "scope": "facts", "limit": LIMIT})
        ),
        lambda session, group, query: _tool(
            session, "search_memory", {"group": group, "query": query, "scopes": ["facts"], "limit": LIMIT}
        ),
    ),
    Pair(
        "get_context",
        lambda rest, group, query: _check(
            rest.post("/api/context", json={"group": group, "query": query, "budget_tokens": CONTEXT_BUDGET})
        ),
        lambda session, group, query: _tool(
            # JSON, as REST answers by default: the pair times the same answer through each face.
            session,
            "get_context",
            {"group": group, "query": query, "budget_tokens": CONTEXT_BUDGET, "format": "json"},
        ),
    ),
    Pair(
        "retrieve",
        lambda rest, group, query: _check(
            rest.post("/api/retrieval/activation", json={"group": group, "query": query})
        ),
        lambda session, group, query: _tool(session, "retrieve", {"group": group, "query": query}),
    ),
    Pair(
        "retrieve+progress",
        lambda rest, group, query: _check(
            rest.post("/api/retrieval/activation", json={"group": group, "query": query})
        ),
        lambda session, group, query: _tool(
            session, "retrieve", {"group": group, "query": query}, progress_callback=_ignore_progress
        ),
    ),
)


async def _check(pending: Awaitable[Any]) -> None:
    _rest_ok(await pending)


def _series(seconds: list[float]) -> dict[str, float]:
    return {"p50_ms": percentile(seconds, 0.5) * 1000, "p95_ms": percentile(seconds, 0.95) * 1000}


async def mcp_overhead_benchmark(
    *, base_url: str, token: str, group: str, queries: list[str], runs: int, warmup: int
) -> dict[str, dict[str, dict[str, float]]]:
    """{pair: {"rest": {p50_ms, p95_ms}, "mcp": {...}}} over `runs` timed calls of each face after `warmup`."""
    results: dict[str, dict[str, dict[str, float]]] = {}
    headers = {"Authorization": f"Token {token}"}
    async with (
        create_mcp_http_client(headers=headers) as rest,
        http_session(base_url, token) as session,
    ):
        rest.base_url = base_url
        for pair in PAIRS:
            timings: dict[str, list[float]] = {"rest": [], "mcp": []}
            for index in range(warmup + runs):
                query = queries[index % len(queries)]
                calls: list[tuple[str, Callable[[Any, str, str], Awaitable[None]], Any]] = [
                    ("rest", pair.rest, rest),
                    ("mcp", pair.mcp, session),
                ]
                for face, call, client in calls if index % 2 == 0 else reversed(calls):
                    started = time.perf_counter()
                    await call(client, group, query)
                    if index >= warmup:
                        timings[face].append(time.perf_counter() - started)
            results[pair.name] = {face: _series(seconds) for face, seconds in timings.items()}
    return results


def mcp_overhead_report(results: dict[str, dict[str, dict[str, float]]]) -> list[str]:
    lines = []
    for name, faces in results.items():
        rest, mcp = faces["rest"], faces["mcp"]
        lines.append(
            f"  {name:18s} REST p50 {rest['p50_ms']:7.2f} ms p95 {rest['p95_ms']:7.2f} ms | MCP p50 "
            f"{mcp['p50_ms']:7.2f} ms p95 {mcp['p95_ms']:7.2f} ms | MCP − REST p50 "
            f"{mcp['p50_ms'] - rest['p50_ms']:+6.2f} ms | ratio p50 {mcp['p50_ms'] / max(rest['p50_ms'], 1e-9):4.2f}× "
            f"p95 {mcp['p95_ms'] / max(rest['p95_ms'], 1e-9):4.2f}×"
        )
    return lines
