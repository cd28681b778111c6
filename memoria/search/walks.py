"""Search methods that find candidates by walking the graph from what the query names, not by reading an index.

Search declares such a method (its name in `SearchMethod`, listed in `config.WALK_METHODS`) and how a walk's
candidates are fused with the text methods' (service.py); the package that owns the walk registers its runner
here when the app starts (memoria/apps.py). So search never imports the walk, and the walk, which seeds itself
from search, sits above it: arrows point down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memoria.graph.versions import GroupVersion
from memoria.search.config import WALK_METHODS, SearchMethod
from memoria.search.methods import Candidate


@dataclass(frozen=True)
class WalkRequest:
    """What one scope's walk is asked: from the query, in the group, at most `limit` candidates.

    `version` is the group's version as the search read it for this request (None: the walk reads it), and
    `known_texts` gives the texts the search's views already hold, so only the rest are read from the server.
    """

    group: str
    query: str
    limit: int
    damping: float
    valid_at: str | None
    seed_share: float | None
    version: GroupVersion | None
    known_texts: Callable[[list[str]], dict[str, str]]


Walk = Callable[[WalkRequest], list[Candidate]]

_walks: dict[SearchMethod, Walk] = {}


def walk_register(method: SearchMethod, walk: Walk) -> None:
    """Make `walk` the runner of a declared walk method (called once, when the app starts)."""
    if method not in WALK_METHODS:
        raise ValueError(f"{method.value} is not declared a walk method (memoria.search.config.WALK_METHODS)")
    _walks[method] = walk


def walk_run(method: SearchMethod, request: WalkRequest) -> list[Candidate]:
    """The candidates of a walk method; a method whose runner was never registered is a wiring fault, said so."""
    walk = _walks.get(method)
    if walk is None:
        raise LookupError(
            f"the search method {method.value} has no runner: the package that owns it registers one when the app"
            " starts (memoria/apps.py)"
        )
    return walk(request)
