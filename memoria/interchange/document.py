"""The graph document (docs/import-format.md): parsing and validation, before any write.

Everything is checked over the whole document first, so a document with any
error writes nothing; each problem names its item (`edges[12].weight`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memoria.errors import InvalidGraphDocument
from memoria.graph import kinds
from memoria.graph.rules import derived_edge_id, shown
from memoria.interchange.jsontext import json_decode
from memoria.interchange.records import (
    DOCUMENT_KEYS,
    EdgeRecordBody,
    MembershipBody,
    MentionBody,
    NodeRecordBody,
    record_parse,
)

Body = TypeVar("Body", NodeRecordBody, EdgeRecordBody, MentionBody, MembershipBody)
MAX_PROBLEMS = 100  # listed per document; the rest are counted, so a million bad items give a short answer


@dataclass(frozen=True)
class NodeRecord:
    id: str
    name: str
    kind: str
    extra_labels: tuple[str, ...] = ()
    summary: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    content: str | None = None
    source: str | None = None
    source_description: str | None = None
    valid_at: str | None = None


@dataclass(frozen=True)
class EdgeRecord:
    id: str
    source: str
    target: str
    relation: str
    weight: float
    tags: tuple[str, ...]
    fact: str = ""
    category: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None
    episodes: tuple[str, ...] = ()


@dataclass(frozen=True)
class LinkRecord:
    """A MENTIONS (episode → entity) or HAS_MEMBER (community → entity) link."""

    source: str
    target: str


@dataclass(frozen=True)
class GraphDocument:
    nodes: tuple[NodeRecord, ...]
    edges: tuple[EdgeRecord, ...]
    mentions: tuple[LinkRecord, ...] = ()
    memberships: tuple[LinkRecord, ...] = ()

    def node_ids(self) -> set[str]:
        return {node.id for node in self.nodes}

    def referenced_ids(self) -> set[str]:
        """Ids the document points at; those not among its nodes must already be stored."""
        ids: set[str] = set()
        for edge in self.edges:
            ids.update((edge.source, edge.target), edge.episodes)
        for link in (*self.mentions, *self.memberships):
            ids.update((link.source, link.target))
        return ids


class _Problems:
    """Collects every problem of a document instead of stopping at the first (up to MAX_PROBLEMS, then counts)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.unlisted = 0
        self.unlisted_in: dict[str, None] = {}  # the top-level lists they are in, in order: `edges`, `nodes`

    def fail(self, where: str, message: str) -> None:
        self.add(f"{where}: {message}")

    def add(self, problem: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)
            return
        self.unlisted += 1
        # The summary names where the rest are, as every problem names its field (`edges: and 12 more …`).
        self.unlisted_in[re.split(r"[.\[:]", problem, maxsplit=1)[0] or "document"] = None
        summary = f"{', '.join(self.unlisted_in)}: and {self.unlisted} more problem(s) not listed"
        if self.unlisted == 1:
            self.problems.append(summary)
        else:
            self.problems[-1] = summary


def _records(check: _Problems, items: list[Any], name: str, model: type[Body]) -> list[tuple[int, Body]]:
    """Each record through its model; the valid ones with their index, the problems of the others in `check`."""
    valid: list[tuple[int, Body]] = []
    for index, item in enumerate(items):
        problems: list[str] = []
        record = record_parse(model, item, f"{name}[{index}]", problems)
        if record is not None:
            valid.append((index, record))
        for problem in problems:
            check.add(problem)
    return valid


def _node_record(body: NodeRecordBody) -> NodeRecord:
    episode = body.kind == kinds.EPISODE
    return NodeRecord(
        id=body.id,
        name=body.name,
        kind=body.kind,
        extra_labels=body.extra_labels,
        summary=body.summary or "",
        attributes=dict(body.properties),
        content=body.content if episode else None,
        source=(body.source or kinds.EPISODE_SOURCES[1]) if episode else None,
        source_description=body.source_description if episode else None,
        valid_at=body.valid_at if episode else None,
    )


def _edge_record(body: EdgeRecordBody, group: str) -> EdgeRecord:
    return EdgeRecord(
        id=body.id or derived_edge_id(group, body.source, body.relation, body.target),
        source=body.source,
        target=body.target,
        relation=body.relation,
        weight=body.weight,
        tags=body.tags,
        fact=body.fact or "",
        category=body.category,
        valid_at=body.valid_at,
        invalid_at=body.invalid_at,
        episodes=body.episodes,
    )


def _links(check: _Problems, items: Any, name: str, model: type[MentionBody | MembershipBody]) -> list[LinkRecord]:
    if items is None:
        return []
    if not isinstance(items, list):
        check.fail(name, "must be a list")
        return []
    source_key, target_key = model.model_fields
    return [
        LinkRecord(source=getattr(link, source_key), target=getattr(link, target_key))
        for _, link in _records(check, items, name, model)
    ]


def parse_graph_document(data: Any, *, group: str) -> GraphDocument:
    """Validate a decoded JSON document; raise InvalidGraphDocument listing every problem.

    Each record goes through its model (memoria.interchange.records); the rules between records follow on the
    valid ones: an id given twice, links joining the wrong kinds.
    """
    check = _Problems()
    if not isinstance(data, dict):
        raise InvalidGraphDocument(f"document: must be a JSON object, not {type(data).__name__}")
    unknown = sorted(set(data) - DOCUMENT_KEYS)
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        check.fail("document", f"unknown key(s) {', '.join(map(shown, unknown[:5]))}{more}")
    for key in ("nodes", "edges"):
        if not isinstance(data.get(key), list):
            check.fail(key, "is required and must be a list")
    if check.problems:
        raise InvalidGraphDocument(check.problems)

    nodes: list[NodeRecord] = []
    seen: set[str] = set()
    for index, body in _records(check, data["nodes"], "nodes", NodeRecordBody):
        if body.id in seen:
            check.fail(f"nodes[{index}].id", f"{body.id!r} appears twice")
        seen.add(body.id)
        nodes.append(_node_record(body))
    edges = [_edge_record(body, group) for _, body in _records(check, data["edges"], "edges", EdgeRecordBody)]
    edge_ids: dict[str, int] = {}
    for index, edge in enumerate(edges):
        if edge.id in edge_ids:
            check.fail(f"edges[{index}]", f"duplicates edge {edge_ids[edge.id]} (same id {edge.id!r})")
        edge_ids.setdefault(edge.id, index)
    mentions = _links(check, data.get("mentions"), "mentions", MentionBody)
    memberships = _links(check, data.get("memberships"), "memberships", MembershipBody)
    _check_local_kinds(check, nodes, edges, mentions, memberships)
    if check.problems:
        raise InvalidGraphDocument(check.problems)
    return GraphDocument(tuple(nodes), tuple(edges), tuple(mentions), tuple(memberships))


def _check_local_kinds(
    check: _Problems,
    nodes: list[NodeRecord],
    edges: list[EdgeRecord],
    mentions: list[LinkRecord],
    memberships: list[LinkRecord],
) -> None:
    """Links whose ends are in the document must join the right kinds; stored ends are checked at write time."""
    kind_of = {node.id: node.kind for node in nodes}
    for index, edge in enumerate(edges):
        for episode in edge.episodes:
            if episode in kind_of and kind_of[episode] != kinds.EPISODE:
                check.fail(f"edges[{index}].episodes", f"{episode!r} is not an episode")
    for name, links, (source_kind, target_kind) in (
        ("mentions", mentions, (kinds.EPISODE, kinds.ENTITY)),
        ("memberships", memberships, (kinds.COMMUNITY, kinds.ENTITY)),
    ):
        for index, link in enumerate(links):
            for end, expected in ((link.source, source_kind), (link.target, target_kind)):
                if end in kind_of and kind_of[end] != expected:
                    check.fail(f"{name}[{index}]", f"{end!r} is a {kind_of[end]}, expected {expected}")


def load_graph_document(text: str | bytes, *, group: str) -> GraphDocument:
    """Decode JSON text (UTF-8) and validate it; malformed JSON is reported with its line and column."""
    return parse_graph_document(json_decode(text, where="document", error=InvalidGraphDocument), group=group)
