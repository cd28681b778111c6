"""Typed errors of the memory engine; the error table (memoria/admission/problems.py) says what each answers."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# A URL, an IPv4 or bracketed IPv6 address, or a host name followed by a port: what a driver's message names.
_ADDRESS = re.compile(
    r"\b[a-z][a-z0-9+.-]*://\S+"  # bolt://host:7687, neo4j+s://...
    r"|\[[0-9a-f:.]+\](?::\d+)?"  # [::1]:7687
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"  # 127.0.0.1:7687
    r"|\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*:\d{2,5}\b",  # localhost:7687, graph.internal:7687 (not 12:30)
    re.IGNORECASE,
)


class MemoriaError(Exception):
    """Base class: every error the engine raises on purpose."""


def without_addresses(text: str) -> str:
    """`text` with every URL and host:port replaced: clients are never told where our servers are."""
    return _ADDRESS.sub("<graph server>", text)


class GraphUnavailable(MemoriaError):
    """The graph server cannot be reached or stopped answering.

    Its message reaches clients (REST `reason`, websocket frames, the 503 page, /api/health), so it says what
    failed in our words; the driver's text, which names hosts and ports, goes to the log where the failure is
    met. As a guard for messages built elsewhere, any network address left in one is replaced.
    """

    def __init__(self, message: str = "the graph server is unavailable") -> None:
        super().__init__(without_addresses(message))


class QueryTooLarge(MemoriaError):
    """The graph server refused a query because what it would hold in memory passes the server's per-query
    budget (ArcadeDB's arcadedb.queryMaxHeapRAM, Neo4j's db.memory.transaction.max).

    The same query fails the same way every time, so it is never retried and is not an outage: the caller has to
    ask for less (fewer episodes per request, a smaller limit) or the operator has to raise the budget.
    `what` names the part of the query that was too large, as the server said it (e.g. "ORDER BY").
    """

    def __init__(self, what: str, *, setting: str) -> None:
        self.what = what
        self.setting = setting
        super().__init__(
            f"the graph server refused the query: its {what} needs more memory than the server allows one query"
            f" ({setting}); ask for less at once (fewer items per request, a lower limit), or raise {setting}"
        )


class NeedsAJob(MemoriaError):
    """Work too big for one request (it would hold the connection for more than a few seconds): the same request
    is refused the same way every time, so it is not retried; the caller starts it as a background job instead."""

    def __init__(self, kind: str, *, group: str, size: int, limit: int, what: str) -> None:
        self.kind = str(kind)
        self.group = group
        super().__init__(
            f"{what} {size:,} items, more than the {limit:,} one request handles; start it as a background job"
            f" ('{kind}'), which reports its progress and can be cancelled"
        )


class ProjectionLoading(GraphUnavailable):
    """A group's in-memory graph projection is still loading in the background; asking again shortly works."""


class EmbeddedServerError(MemoriaError):
    """The embedded graph server could not be started or controlled."""


class InvalidInput(MemoriaError):
    """Input was rejected before anything was written; `problems` name each offending item."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        shown = "; ".join(self.problems[:10])
        more = len(self.problems) - 10
        super().__init__(shown + (f"; and {more} more" if more > 0 else ""))


def names_shown(names: Iterable[str]) -> str:
    """Names for a message, comma-separated; a blank one quoted, so an empty parameter name is still seen."""
    return ", ".join(name if name.strip() else repr(name) for name in names)


def unknown_keys_problem(raw: Mapping[str, object], known: Iterable[str], *, where: str, noun: str) -> str | None:
    """The problem naming the keys of `raw` outside `known` (listed in their given order), or None."""
    listed = list(known)
    unknown = sorted(set(raw) - set(listed))
    return f"{where}: unknown {noun} {', '.join(unknown)} (known: {', '.join(listed)})" if unknown else None


class InvalidGraphDocument(InvalidInput):
    """A graph document (import JSON) broke a rule of docs/import-format.md."""


class WriteConflict(MemoriaError):
    """Concurrent writers kept changing what this write depends on; nothing was written and retrying is safe.

    `retry_after`: the seconds after which the same request may well succeed (answered as `retry_after` and
    `Retry-After`), or None for a conflict the same request can never get past (it was made on a state that is
    gone: the caller reads again first)."""

    retry_after: int | None = 1


class NotAuthenticated(MemoriaError):
    """The caller is not (or no longer) signed in: a token deleted, or its user deactivated, since it was accepted."""


class GroupNotFound(MemoriaError):
    """The group does not exist or the user may not see it (the two are not told apart)."""


class NodeNotFound(GroupNotFound):
    """No memory with this id in the group: answered like an unseen group, so ids of other groups are not revealed."""


class EmbeddingModelError(MemoriaError):
    """The embedding model is missing, does not match its pinned weights, or has the wrong dimension."""


class LlmUnavailable(MemoriaError):
    """No LLM is configured, or it cannot be reached, or it kept failing after bounded retries."""


class LlmInvalidAnswer(LlmUnavailable):
    """The LLM answered, but not with JSON of the asked shape: nothing of such an answer is used."""


class BackupInvalid(InvalidInput):
    """A backup file this Memoria cannot restore: another format or version, truncated, or altered since written."""


class GroupNotEmpty(MemoriaError):
    """A restore would overwrite a group that already holds memories or audit entries (and replacing was not asked)."""


def request_too_large_problem(limit: int) -> dict[str, object]:
    """The 413 body for a request body past MEMORIA_MAX_REQUEST_BYTES, whoever refuses it: the API when Django reads
    the body, the HTTP edge (memoria/serving.py) as soon as the headers announce it or a chunked body passes it."""
    return {
        "detail": f"The request body is larger than this server accepts ({limit} bytes, set by "
        "MEMORIA_MAX_REQUEST_BYTES); send less at once, e.g. split an import into several documents.",
        "code": "request_too_large",
        "limit_bytes": limit,
    }
