"""`MemoriaClient`: the REST API over the standard library's http.client (no dependency beyond the stdlib).

Retries are for answers that say "try again later" — 429 and 503, after their Retry-After — and for nothing else:
a 4xx other than 429 is deterministic (the same request fails the same way), so it is raised at once.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memoria_client.errors import MemoriaError, error_for_status
from memoria_client.models import Fact, GroupSummary, SearchResults

RETRY_STATUSES = frozenset({429, 503})
DEFAULT_WAIT = 1.0  # seconds, when a 429/503 comes without a usable Retry-After


@dataclass(frozen=True)
class Response:
    """One HTTP answer: status, headers (lower-case names) and the decoded JSON (or text when it is not JSON)."""

    status: int
    headers: dict[str, str]
    body: Any

    @property
    def retry_after(self) -> float | None:
        """Retry-After in seconds (the server only sends the delta-seconds form), None when absent or unreadable."""
        value = self.headers.get("retry-after")
        try:
            return max(0.0, float(value)) if value is not None else None
        except ValueError:
            return None


def auth_headers(token: str) -> dict[str, str]:
    """How programs authenticate, over REST and the websocket alike: a DRF token."""
    return {"Authorization": f"Token {token}"}


class MemoriaClient:
    """Synchronous REST client. `max_tries` bounds attempts of a 429/503; a Retry-After above `max_wait` seconds is
    not waited for (the error is raised with its `retry_after`), so a call never blocks longer than the caller allows.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 30.0,
        max_tries: int = 4,
        max_wait: float = 30.0,
        on_retry: Callable[[MemoriaError, float], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"base_url must be http(s)://host[:port], not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.max_tries = max(1, max_tries)
        self.max_wait = max_wait
        self.on_retry = on_retry
        self._sleep = sleep
        self._parsed = parsed

    # --- transport ----------------------------------------------------------------------------------------------

    def send(self, method: str, path: str, *, body: Any = None, query: Mapping[str, Any] | None = None) -> Response:
        """One request on its own connection, whatever its status: no retry, no exception for a refusal.

        For callers that account for statuses themselves (the load test); others use `request`.
        """
        if query:
            path += "?" + urllib.parse.urlencode(
                [(key, item) for key, value in query.items() if value is not None for item in _values(value)]
            )
        connection_class = http.client.HTTPSConnection if self._parsed.scheme == "https" else http.client.HTTPConnection
        connection = connection_class(self._parsed.hostname, self._parsed.port, timeout=self.timeout)
        headers = auth_headers(self.token) | {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            connection.request(method, self._parsed.path + path, body=payload, headers=headers)
            answer = connection.getresponse()
            raw = answer.read()
            answer_headers = {name.lower(): value for name, value in answer.getheaders()}
        finally:
            connection.close()
        try:
            decoded = json.loads(raw) if raw else None
        except json.JSONDecodeError:  # an HTML error page from a proxy, say: kept short, as text
            decoded = raw[:200].decode(errors="replace")
        return Response(answer.status, answer_headers, decoded)

    def request(self, method: str, path: str, *, body: Any = None, query: Mapping[str, Any] | None = None) -> Any:
        """The decoded body of a 2xx answer; a refusal raises its `MemoriaError`, after retries of 429/503."""
        for attempt in range(1, self.max_tries + 1):
            response = self.send(method, path, body=body, query=query)
            if 200 <= response.status < 300:
                return response.body
            error = error_for_status(response.status, response.body, response.retry_after)
            if response.status not in RETRY_STATUSES or attempt == self.max_tries:
                raise error
            wait = DEFAULT_WAIT if response.retry_after is None else response.retry_after
            if wait > self.max_wait:
                raise error
            if self.on_retry is not None:
                self.on_retry(error, wait)
            self._sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    # --- operations ---------------------------------------------------------------------------------------------

    def groups(self) -> list[GroupSummary]:
        """The groups this token can see, with their sizes."""
        return [GroupSummary.from_json(row) for row in self.request("GET", "/api/groups")]

    def search(
        self,
        group: str,
        query: str,
        *,
        recipe: str | None = None,
        scope: str | None = None,
        limit: int | None = None,
        valid_at: str | None = None,
        center: str | None = None,
    ) -> SearchResults:
        """`GET /api/search` in one group (docs/search.md)."""
        params = {"q": query, "group": group, "recipe": recipe, "scope": scope, "limit": limit}
        params |= {"valid_at": valid_at, "center": center}
        return SearchResults.from_json(self.request("GET", "/api/search", query=params))

    def context(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """`POST /api/context`: the body as docs/agents.md ("Context for a prompt") describes it; decoded JSON back."""
        return self.request("POST", "/api/context", body=dict(body))

    def episodes_add(self, group: str, episodes: dict[str, Any] | Iterable[dict[str, Any]]) -> dict[str, Any]:
        """`POST /api/groups/<group>/episodes`: one episode object, or a list of them (docs/ingestion.md)."""
        body = episodes if isinstance(episodes, dict) else list(episodes)
        return self.request("POST", f"/api/groups/{_quote(group)}/episodes", body=body)

    def node(self, group: str, node_id: str) -> dict[str, Any]:
        """`GET /api/groups/<group>/nodes/<id>`: one node with its neighbourhood (docs/explorer.md)."""
        return self.request("GET", f"/api/groups/{_quote(group)}/nodes/{_quote(node_id)}")

    def fact(self, group: str, fact_id: str) -> Fact:
        """`GET /api/groups/<group>/edges/<id>`: one fact with its source episodes and version (docs/curation.md)."""
        return Fact.from_json(self.request("GET", f"/api/groups/{_quote(group)}/edges/{_quote(fact_id)}"))

    def activation(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """`POST /api/retrieval/activation`: the whole retrieval in one answer (the websocket streams it)."""
        return self.request("POST", "/api/retrieval/activation", body=dict(body))

    def export(self, group: str) -> dict[str, Any]:
        """`GET /api/groups/<group>/export`: the group as a graph document (docs/import-format.md)."""
        return self.request("GET", f"/api/groups/{_quote(group)}/export")

    def import_document(self, group: str, document: Mapping[str, Any]) -> dict[str, Any]:
        """`POST /api/groups/<group>/import`: upsert a graph document, all or nothing."""
        return self.request("POST", f"/api/groups/{_quote(group)}/import", body=dict(document))


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _values(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]
