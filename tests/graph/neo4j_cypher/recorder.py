"""A pytest plugin: with MEMORIA_CYPHER_CHECK=1 (as `make test` sets it), every Cypher text that Memoria's own code
sends during the run is kept, and at the end those that are not named constants (checked by
tests/graph/test_neo4j_cypher.py) go through Neo4j's linter; a text Neo4j would refuse fails the run.

Texts that tests send themselves (fixtures, probes of the server) are not Memoria's and are left out: the sender
is the nearest frame outside the driver's plumbing. So are texts the graph server refused: the check is for what
ArcadeDB runs and Neo4j would not, and a test that breaks a query on purpose wants it refused anyway.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

import pytest

ENABLED = os.environ.get("MEMORIA_CYPHER_CHECK") == "1"
PLUMBING = ("memoria.graph.driver", "memoria.graph.retry", "memoria.observability")
sent: set[str] = set()


def _sent_by_memoria(depth: int) -> bool:
    frame = sys._getframe(depth)
    for _ in range(60):
        if frame is None:
            return False
        module = frame.f_globals.get("__name__", "")
        if module.startswith("tests."):
            return False
        if module.startswith(("memoria.", "explorer.")) and not module.startswith(PLUMBING):
            return True
        frame = frame.f_back
    return False


def _recording(run: Callable[..., Any]) -> Callable[..., Any]:
    def ours(query: Any) -> str | None:
        text = getattr(query, "text", query)  # a neo4j.Query carries its text
        return text if isinstance(text, str) and _sent_by_memoria(3) else None

    # Recorded once the server took it: tests that break a query on purpose want ArcadeDB to refuse it too.
    if inspect.iscoroutinefunction(run):

        @functools.wraps(run)
        async def recorded_async(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            text = ours(query)
            result = await run(self, query, *args, **kwargs)
            if text:
                sent.add(text)
            return result

        return recorded_async

    @functools.wraps(run)
    def recorded(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        text = ours(query)
        result = run(self, query, *args, **kwargs)
        if text:
            sent.add(text)
        return result

    return recorded


def pytest_configure(config: pytest.Config) -> None:
    if not ENABLED:
        return
    import neo4j
    from neo4j._async.work.transaction import AsyncTransactionBase
    from neo4j._sync.work.transaction import TransactionBase

    for owner in (neo4j.Session, neo4j.AsyncSession, TransactionBase, AsyncTransactionBase):
        owner.run = _recording(owner.run)
    for owner in (neo4j.Driver, neo4j.AsyncDriver):
        owner.execute_query = _recording(owner.execute_query)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not ENABLED or not sent:
        return
    from tests.graph.neo4j_cypher import lint, linter_ready, refusals, static_texts

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    write = reporter.write_line if reporter else print
    problem = linter_ready()
    if problem:
        write(f"Cypher check: {problem}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    checked, _ = static_texts()
    fresh = sorted(sent - set(checked.values()))
    found = refusals(lint({f"sent text {index}": text for index, text in enumerate(fresh)}), names=False)
    write(f"Cypher check: {len(sent)} texts sent by Memoria, {len(fresh)} beyond the named constants, linted")
    for where, problems in found.items():
        text = fresh[int(where.rsplit(" ", 1)[1])]
        write(f"Neo4j would refuse or warn about:\n{text}\n  " + "\n  ".join(problems), red=True)
    if found:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
