"""`bench explorer`: the server time of the explorer's home page, search-as-you-type and the search page on one group.

Pages are asked through Django's test client in this process (the whole middleware stack, no network), signed in
as an admin, who sees every stored group: the home page is what used to count them all. The typed queries are
prefixes of the group's entity names, two characters and longer, as a person typing them sends them (the boxes
wait ~200 ms after the last key, so only some prefixes are sent; every one is timed here).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.evaluation.timing import percentile
from memoria.graph import driver

BENCH_USER = "bench-explorer"
ENTITY_NAMES = "MATCH (n:Entity {group_id: $group}) RETURN n.name AS name ORDER BY n.id LIMIT $limit"


@dataclass(frozen=True)
class Timings:
    label: str
    milliseconds: list[float]

    def line(self) -> str:
        ms = self.milliseconds
        return (
            f"{self.label}: n={len(ms)} p50 {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
            f"max {max(ms):.1f} ms"
        )


def _timed(client: Client, url: str) -> float:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"GET {url} answered {response.status_code}: {response.content[:200]!r}")
    return elapsed


def typed_prefixes(names: list[str]) -> list[str]:
    """What a person typing each name sends: every prefix of its first three words, from two characters on."""
    prefixes: list[str] = []
    for name in names:
        typed = " ".join(name.split()[:3])
        prefixes += [typed[:end] for end in range(2, len(typed) + 1) if not typed[:end].endswith(" ")]
    return list(dict.fromkeys(prefixes))


def explorer_benchmark(*, group: str, runs: int, names: int, say: Callable[[str], None]) -> list[Timings]:
    # The settings' first allowed host: the test client's own "testserver" is allowed only under the test settings.
    client = Client(HTTP_HOST=next((host for host in settings.ALLOWED_HOSTS if "*" not in host), "localhost"))
    client.force_login(user_grant(username=BENCH_USER, role=Role.ADMIN))
    _timed(client, "/")  # the first request warms caches every later one shares
    home = [_timed(client, "/") for _ in range(runs)]
    picked = [row["name"] for row in driver.read(ENTITY_NAMES, group=group, limit=names)]
    prefixes = typed_prefixes(picked)
    say(f"{len(prefixes)} typed prefixes of {len(picked)} entity names of group {group!r}")
    # What the header box and the graph's add box send (explorer/static/explorer/js/suggest.js).
    suggest = [_timed(client, "/api/search/suggest?" + urlencode({"q": text, "group": group})) for text in prefixes]
    # The search page of the group, made current as the header's group menu does, asked for each whole name.
    switched = client.post("/group/", {"group": group, "next": "/search/"})
    if switched.status_code != 302:
        raise RuntimeError(f"could not make {group!r} the current group: {switched.status_code}")
    searches = [_timed(client, "/search/?" + urlencode({"q": name})) for name in picked]
    return [
        Timings("home page GET /", home),
        Timings("search-as-you-type GET /api/search/suggest", suggest),
        Timings("search page GET /search/?q=<an entity name>", searches),
    ]
