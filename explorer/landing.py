"""The home page's first view: the group to start in and, when it holds the demo, questions to run live.

The home page used to count every visible group's episodes, entities and facts (2 s on a server with big groups);
it now reads nothing per group. Counts stay on `GET /api/groups`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest

from explorer.current_group import current_group, switchable_groups
from memoria.browse.selectors import node_cards
from memoria.datasets.demo import MARKER_ID, SAMPLE_QUERIES


@dataclass(frozen=True)
class Landing:
    group: str | None
    groups: list[str]
    suggestions: tuple[str, ...]  # queries the demo is shaped for, offered as a first live retrieval


def sample_queries(group: str) -> tuple[str, ...]:
    """One indexed lookup: whether the group holds the demo, whose sample queries are worth watching."""
    return SAMPLE_QUERIES if node_cards(group=group, ids=[MARKER_ID]) else ()


def landing(request: HttpRequest) -> Landing:
    group = current_group(request)
    return Landing(group=group, groups=switchable_groups(request), suggestions=sample_queries(group) if group else ())
