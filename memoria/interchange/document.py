"""The graph document (docs/import-format.md): parsing and validation, before any write.

Everything is checked over the whole document first, so a document with any
error writes nothing; each problem names its item (`edges[12].weight`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from memoria.errors import InvalidGraphDocument
from memoria.graph import kinds
from memoria.graph.rules import (
    ID_PATTERN,
    MAX_NAME_LENGTH,
    MAX_RELATION_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_TEXT_LENGTH,
    MAX_WEIGHT,
    MIN_WEIGHT,
    derived_edge_id,
    normalise_tag,
    normalise_timestamp,
)
from memoria.interchange.jsontext import json_decode, shown

PROPERTY_KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}\Z")
# Counts a legitimate document stays far below; a hostile one costs an error instead of memory and a huge write.
MAX_LABELS = 16
MAX_PROPERTIES = 100
MAX_PROPERTY_LIST = 1_000
MAX_EDGE_EPISODES = 10_000
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_PROBLEMS = 100  # listed per document; the rest are counted, so a million bad items give a short answer
# Never in any text: control characters (NUL...) other than tab and line breaks.
FORBIDDEN_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Never in a one-line text (a name, a relation, a tag): any control character, nor the bidirectional overrides
# and isolates that make text display in another order than it is stored.
FORBIDDEN_IN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A relation is a predicate name: letters, digits and combining marks of any script, spaces and this punctuation.
RELATION_PUNCTUATION = "_-.',()&:+/"
NOT_RELATION_WORD = re.compile(r"[^\w " + re.escape(RELATION_PUNCTUATION) + "]")

NODE_KEYS = {
    "id",
    "name",
    "labels",
    "summary",
    "properties",
    "content",
    "source",
    "source_description",
    "valid_at",
}
EDGE_KEYS = {
    "id",
    "source",
    "target",
    "relation",
    "weight",
    "tags",
    "fact",
    "category",
    "valid_at",
    "invalid_at",
    "episodes",
}
TOP_KEYS = {"nodes", "edges", "mentions", "memberships"}
EPISODE_ONLY_KEYS = ("content", "source", "source_description", "valid_at")


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


def text_problem(value: str, *, single_line: bool) -> str | None:
    """Why a text may not be stored (the first forbidden character, by code point), or None."""
    found = (FORBIDDEN_IN_LINE if single_line else FORBIDDEN_IN_TEXT).search(value)
    if found is None:
        return None
    kind = "one-line text" if single_line else "text"
    return f"holds U+{ord(found.group()):04X} at character {found.start()}, which a {kind} may not hold"


def relation_problem(value: str) -> str | None:
    """Why a relation name is refused: it is shown and filtered on as a name, so it holds no markup or code."""
    if problem := text_problem(value, single_line=True):
        return problem
    normal = unicodedata.normalize("NFKC", value)
    if normal != value:
        # Fullwidth letters, ligatures, mathematical letters: a lookalike of another relation, never a new one.
        return f"is not in Unicode NFKC form (it holds compatibility characters); write {shown(normal)}"
    for found in NOT_RELATION_WORD.finditer(value):
        if not unicodedata.category(found.group()).startswith("M"):
            return (
                f"holds {found.group()!r} (U+{ord(found.group()):04X}) at character {found.start()}; a relation "
                f"may hold letters, digits, spaces and {RELATION_PUNCTUATION}"
            )
    return None


class _Checker:
    """Collects every problem of a document instead of stopping at the first (up to MAX_PROBLEMS, then counts)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.unlisted = 0
        self.unlisted_in: dict[str, None] = {}  # the top-level lists they are in, in order: `edges`, `nodes`

    def fail(self, where: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"{where}: {message}")
            return
        self.unlisted += 1
        # The summary names where the rest are, as every problem names its field (`edges: and 12 more …`).
        self.unlisted_in[re.split(r"[.\[]", where, maxsplit=1)[0] or "document"] = None
        summary = f"{', '.join(self.unlisted_in)}: and {self.unlisted} more problem(s) not listed"
        if self.unlisted == 1:
            self.problems.append(summary)
        else:
            self.problems[-1] = summary

    def string(
        self, item: dict, key: str, where: str, *, required: bool, max_length: int, single_line: bool | None = None
    ) -> str | None:
        """A string field; by default one no longer than a name is a one-line text."""
        value = item.get(key)
        if value is None:
            if required:
                self.fail(f"{where}.{key}", "is required")
            return None
        if not isinstance(value, str):
            self.fail(f"{where}.{key}", f"must be a string, not {type(value).__name__}")
            return None
        if required and not value.strip():
            self.fail(f"{where}.{key}", "must not be empty")
            return None
        if len(value) > max_length:
            self.fail(f"{where}.{key}", f"is longer than {max_length} characters")
            return None
        if single_line is None:
            single_line = max_length <= MAX_NAME_LENGTH
        if problem := text_problem(value, single_line=single_line):
            self.fail(f"{where}.{key}", problem)
            return None
        return value

    def identifier(self, item: dict, key: str, where: str) -> str | None:
        value = self.string(item, key, where, required=True, max_length=200)
        if value is not None and not ID_PATTERN.match(value):
            self.fail(f"{where}.{key}", f"{shown(value)} may hold only letters, digits and ._:/@#-")
            return None
        return value

    def timestamp(self, item: dict, key: str, where: str) -> str | None:
        value = item.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(f"{where}.{key}", "must be an ISO 8601 date-time string")
            return None
        try:
            return normalise_timestamp(value)
        except ValueError as error:
            # The parser's own message quotes the whole value: only the time-zone hint is worth passing on.
            reason = str(error) if "time zone" in str(error) else "expected e.g. 2025-03-01T09:30:00Z"
            self.fail(f"{where}.{key}", f"{shown(value)} is not a usable ISO 8601 date-time: {reason}")
            return None

    def object_keys(self, item: Any, allowed: set[str], where: str) -> bool:
        if not isinstance(item, dict):
            self.fail(where, f"must be an object, not {type(item).__name__}")
            return False
        unknown = sorted(set(item) - allowed)
        if unknown:
            more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            self.fail(where, f"unknown key(s) {', '.join(map(shown, unknown[:5]))}{more}")
        return True


def _scalar_ok(value: Any) -> bool:
    if isinstance(value, bool | str):
        return isinstance(value, bool) or (len(value) <= MAX_TEXT_LENGTH and not FORBIDDEN_IN_TEXT.search(value))
    if isinstance(value, int):
        return INT64_MIN <= value <= INT64_MAX  # what the graph server stores; Python's ints have no bound
    if isinstance(value, float):
        return math.isfinite(value)
    return False


def _parse_node(check: _Checker, item: Any, where: str) -> NodeRecord | None:
    if not check.object_keys(item, NODE_KEYS, where):
        return None
    node_id = check.identifier(item, "id", where)
    name = check.string(item, "name", where, required=True, max_length=MAX_NAME_LENGTH)
    labels = item.get("labels", [])
    kind = kinds.ENTITY
    extra: list[str] = []
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        check.fail(f"{where}.labels", "must be a list of strings")
        labels = []
    elif len(labels) > MAX_LABELS:
        check.fail(f"{where}.labels", f"has {len(labels)} labels; at most {MAX_LABELS} are allowed")
        labels = []
    kind_labels = [label for label in labels if label in kinds.NODE_KINDS]
    allowed_extra = kinds.entity_labels()
    if len(set(kind_labels)) > 1:
        check.fail(f"{where}.labels", f"has more than one kind label {sorted(set(kind_labels))}")
    elif kind_labels:
        kind = kind_labels[0]
    for label in labels:
        if label in kinds.NODE_KINDS or label == kinds.MEMORY_LABEL:
            continue
        if label not in allowed_extra:
            check.fail(f"{where}.labels", f"label {shown(label)} is not allowed (allowed: {', '.join(allowed_extra)})")
        elif kind != kinds.ENTITY:
            check.fail(f"{where}.labels", f"label {shown(label)} is only allowed on entities")
        elif label not in extra:
            extra.append(label)
    summary = check.string(item, "summary", where, required=False, max_length=MAX_TEXT_LENGTH) or ""
    attributes = item.get("properties", {})
    if not isinstance(attributes, dict):
        check.fail(f"{where}.properties", "must be an object")
        attributes = {}
    elif len(attributes) > MAX_PROPERTIES:
        check.fail(f"{where}.properties", f"has {len(attributes)} keys; at most {MAX_PROPERTIES} are allowed")
        attributes = {}
    for key, value in attributes.items():
        if not PROPERTY_KEY_PATTERN.match(key):
            check.fail(f"{where}.properties", f"key {shown(key)} must match [a-z][a-z0-9_]* (≤ 64 characters)")
        elif isinstance(value, list) and len(value) > MAX_PROPERTY_LIST:
            check.fail(f"{where}.properties.{key}", f"has {len(value)} items; at most {MAX_PROPERTY_LIST} are allowed")
        elif not (_scalar_ok(value) or (isinstance(value, list) and all(_scalar_ok(v) for v in value))):
            check.fail(
                f"{where}.properties.{key}",
                f"must be a string (≤ {MAX_TEXT_LENGTH} characters, no control characters), a finite number "
                "(integers within 64 bits), a boolean or a list of those",
            )
    episode_fields: dict[str, str | None] = {}
    for key in EPISODE_ONLY_KEYS:
        if key in item and item[key] is not None and kind != kinds.EPISODE:
            check.fail(f"{where}.{key}", "is only allowed on episodes")
    if kind == kinds.EPISODE:
        episode_fields["content"] = check.string(item, "content", where, required=False, max_length=MAX_TEXT_LENGTH)
        source = item.get("source")
        if source is not None and source not in kinds.EPISODE_SOURCES:
            check.fail(f"{where}.source", f"must be one of {', '.join(kinds.EPISODE_SOURCES)}")
        episode_fields["source"] = source if source in kinds.EPISODE_SOURCES else kinds.EPISODE_SOURCES[1]
        episode_fields["source_description"] = check.string(
            item, "source_description", where, required=False, max_length=MAX_NAME_LENGTH
        )
        episode_fields["valid_at"] = check.timestamp(item, "valid_at", where)
    if node_id is None or name is None:
        return None
    return NodeRecord(
        id=node_id,
        name=name,
        kind=kind,
        extra_labels=tuple(extra),
        summary=summary,
        attributes=dict(attributes),
        **episode_fields,
    )


def _parse_edge(check: _Checker, item: Any, where: str, group: str) -> EdgeRecord | None:
    if not check.object_keys(item, EDGE_KEYS, where):
        return None
    source = check.identifier(item, "source", where)
    target = check.identifier(item, "target", where)
    relation = check.string(item, "relation", where, required=True, max_length=MAX_RELATION_LENGTH)
    if relation is not None and (problem := relation_problem(relation)):
        check.fail(f"{where}.relation", problem)
        relation = None
    weight = item.get("weight")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not _scalar_ok(weight):
        check.fail(f"{where}.weight", "must be a number in [0.25, 1.0]")
        weight = None
    elif not MIN_WEIGHT <= weight <= MAX_WEIGHT:
        check.fail(f"{where}.weight", f"{weight} is outside [0.25, 1.0]")
        weight = None
    raw_tags = item.get("tags", [])
    tags: list[str] = []
    if not isinstance(raw_tags, list) or not all(isinstance(tag, str) for tag in raw_tags):
        check.fail(f"{where}.tags", "must be a list of strings")
    elif len(raw_tags) > MAX_TAGS:
        check.fail(f"{where}.tags", f"has {len(raw_tags)} tags; at most {MAX_TAGS} are allowed")
    else:
        for tag in raw_tags:
            normal = normalise_tag(tag)
            if not 1 <= len(normal) <= MAX_TAG_LENGTH:
                check.fail(f"{where}.tags", f"tag {shown(tag)} must be 1–{MAX_TAG_LENGTH} characters")
            elif problem := text_problem(normal, single_line=True):
                check.fail(f"{where}.tags", f"tag {shown(tag)} {problem}")
            elif normal not in tags:
                tags.append(normal)
    fact = check.string(item, "fact", where, required=False, max_length=MAX_TEXT_LENGTH) or ""
    category = item.get("category")
    if category is not None and category not in kinds.RELATION_CATEGORIES:
        check.fail(f"{where}.category", f"must be one of {', '.join(kinds.RELATION_CATEGORIES)}")
        category = None
    if source is not None and source == target:
        # A loop would count twice in a node's degree on some servers; retrieval needs one meaning.
        check.fail(f"{where}.target", "must differ from source (self-loops are not allowed)")
    valid_at = check.timestamp(item, "valid_at", where)
    invalid_at = check.timestamp(item, "invalid_at", where)
    if valid_at and invalid_at and invalid_at < valid_at:
        check.fail(f"{where}.invalid_at", "is before valid_at")
    episodes = item.get("episodes", [])
    if isinstance(episodes, list) and len(episodes) > MAX_EDGE_EPISODES:
        check.fail(f"{where}.episodes", f"has {len(episodes)} ids; at most {MAX_EDGE_EPISODES} are allowed")
        episodes = []
    elif not isinstance(episodes, list) or not all(isinstance(e, str) and ID_PATTERN.match(e) for e in episodes):
        check.fail(f"{where}.episodes", "must be a list of episode ids")
        episodes = []
    edge_id = item.get("id")
    if edge_id is not None:
        edge_id = check.identifier(item, "id", where)
    if None in (source, target, relation, weight):
        return None
    return EdgeRecord(
        id=edge_id or derived_edge_id(group, source, relation, target),
        source=source,
        target=target,
        relation=relation.strip(),
        weight=float(weight),
        tags=tuple(tags),
        fact=fact,
        category=category,
        valid_at=valid_at,
        invalid_at=invalid_at,
        episodes=tuple(dict.fromkeys(episodes)),
    )


def _parse_links(check: _Checker, items: Any, name: str, keys: tuple[str, str]) -> list[LinkRecord]:
    if items is None:
        return []
    if not isinstance(items, list):
        check.fail(name, "must be a list")
        return []
    links = []
    for index, item in enumerate(items):
        where = f"{name}[{index}]"
        if not check.object_keys(item, set(keys), where):
            continue
        source, target = (check.identifier(item, key, where) for key in keys)
        if source and target:
            links.append(LinkRecord(source=source, target=target))
    return links


def parse_graph_document(data: Any, *, group: str) -> GraphDocument:
    """Validate a decoded JSON document; raise InvalidGraphDocument listing every problem."""
    check = _Checker()
    if not isinstance(data, dict):
        raise InvalidGraphDocument(f"document: must be a JSON object, not {type(data).__name__}")
    check.object_keys(data, TOP_KEYS, "document")
    for key in ("nodes", "edges"):
        if not isinstance(data.get(key), list):
            check.fail(key, "is required and must be a list")
    if check.problems:
        raise InvalidGraphDocument(check.problems)

    nodes: list[NodeRecord] = []
    seen: set[str] = set()
    for index, item in enumerate(data["nodes"]):
        node = _parse_node(check, item, f"nodes[{index}]")
        if node is None:
            continue
        if node.id in seen:
            check.fail(f"nodes[{index}].id", f"{node.id!r} appears twice")
        seen.add(node.id)
        nodes.append(node)
    edges = [
        edge
        for index, item in enumerate(data["edges"])
        if (edge := _parse_edge(check, item, f"edges[{index}]", group)) is not None
    ]
    edge_ids: dict[str, int] = {}
    for index, edge in enumerate(edges):
        if edge.id in edge_ids:
            check.fail(f"edges[{index}]", f"duplicates edge {edge_ids[edge.id]} (same id {edge.id!r})")
        edge_ids.setdefault(edge.id, index)
    mentions = _parse_links(check, data.get("mentions"), "mentions", ("episode", "entity"))
    memberships = _parse_links(check, data.get("memberships"), "memberships", ("community", "entity"))
    _check_local_kinds(check, nodes, edges, mentions, memberships)
    if check.problems:
        raise InvalidGraphDocument(check.problems)
    return GraphDocument(tuple(nodes), tuple(edges), tuple(mentions), tuple(memberships))


def _check_local_kinds(
    check: _Checker,
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
