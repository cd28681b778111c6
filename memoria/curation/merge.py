"""Merging a duplicate entity B into entity A: B's facts, mentions and memberships move to A, then B goes.

Facts keep their ids and properties, with B's end replaced by A. A moved fact that says what a
current fact of A already says (ingestion's duplicate rule: same ends, same relation or a text as
close as DUPLICATE_FACT_SCORE) is folded into it as ingestion folds a repeated fact: episodes
extended, tags united, weights combined by noisy-or. A fact between A and B would become a loop,
which the graph does not allow: it is deleted (the audit entry keeps it for undo). B's name and
aliases become aliases of A; A's labels, name and summary stay (B's summary fills an empty one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memoria.curation.commit import Change, ChangeOutcome, change_commit, version_check
from memoria.curation.errors import ItemNotFound
from memoria.curation.inputs import EntityMerge
from memoria.curation.models import ENTITY, ENTITY_MERGE
from memoria.curation.selectors import entity_state_get
from memoria.curation.state import EdgeState, GraphState, Link, NodeState
from memoria.embeddings import configured_model_id
from memoria.errors import InvalidInput
from memoria.graph import driver, kinds
from memoria.graph.rules import MIN_WEIGHT
from memoria.graph.schema import LEGACY_VECTOR_MODEL, VECTOR_MODEL
from memoria.ingest import text
from memoria.ingest.persist import attributes_json
from memoria.ingest.resolve_facts import FactState, NewFact, duplicate_of, sightings_fold

FACTS_OF = f"""
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: $id}})-[r:{kinds.RELATES}]-(m)
WHERE r.group_id = $group
RETURN r.id AS id, startNode(r).id AS source, endNode(r).id AS target, properties(r) AS props
"""
# {type} is kinds.MENTIONS or kinds.HAS_MEMBER.
LINKED_FROM = """
MATCH (s:Memory)-[:{type}]->(n:Memory {{group_id: $group, id: $id}})
RETURN DISTINCT s.id AS source
"""


@dataclass(frozen=True)
class _Fact:
    """A stored fact with its vector, which tells duplicates by meaning."""

    state: EdgeState
    vector: list[float] | None


def _facts_of(group: str, entity_id: str) -> dict[str, _Fact]:
    rows = driver.read(FACTS_OF, id=entity_id, group=group)
    model = configured_model_id()
    return {
        row["id"]: _Fact(
            EdgeState.of(row["source"], row["target"], row["props"]), _configured_vector(row["props"], model)
        )
        for row in rows
    }


def _configured_vector(props: dict, model: str) -> list[float] | None:
    """The fact's stored vector if the configured model made it; another model's is never compared."""
    return props.get("fact_embedding") if (props.get(VECTOR_MODEL) or LEGACY_VECTOR_MODEL) == model else None


def _fact_state(edge_id: str, edge: EdgeState, vector: list[float] | None) -> FactState:
    props = edge.props
    return FactState(
        id=edge_id,
        source=edge.source,
        target=edge.target,
        relation=props.get("relation") or "",
        category=props.get("relation_category"),
        fact=props.get("fact") or "",
        weight=float(props.get("weight") or 0.0),
        tags=tuple(props.get("tags") or ()),
        episodes=tuple(props.get("episodes") or ()),
        valid_at=props.get("valid_at"),
        invalid_at=props.get("invalid_at"),
        vector=vector,
    )


def _as_new_fact(fact: FactState) -> NewFact:
    return NewFact(
        source=fact.source,
        target=fact.target,
        relation=fact.relation,
        category=fact.category,
        fact=fact.fact,
        valid_at=fact.valid_at or "",
        weight=fact.weight,
        tags=fact.tags,
        vector=fact.vector,
    )


def fact_absorb(kept: EdgeState, absorbed: EdgeState) -> EdgeState:
    """The kept fact after a duplicate folds into it, by ingestion's rule for a fact seen again."""

    def sightings(props: dict[str, Any]) -> tuple[list[str], list[str], float]:
        return props.get("episodes") or [], props.get("tags") or [], float(props.get("weight", MIN_WEIGHT))

    episodes, tags, weight = sightings_fold(sightings(kept.props), sightings(absorbed.props))
    return kept.with_props(episodes=list(episodes), tags=list(tags), weight=weight)


def _attributes(node: NodeState) -> dict[str, Any]:
    raw = node.props.get("attributes")
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw else {}
    except json.JSONDecodeError:
        value = {}
    return value if isinstance(value, dict) else {}


def merged_entity(kept: NodeState, duplicate: NodeState) -> NodeState:
    """A with B's name and aliases among its aliases (by name key, as ingestion compares names) and B's
    attributes filling keys A lacks."""
    kept_attributes, duplicate_attributes = _attributes(kept), _attributes(duplicate)
    aliases: list[str] = [alias for alias in kept_attributes.get("aliases", []) if isinstance(alias, str)]
    seen = {text.name_key(kept.name), *(text.name_key(alias) for alias in aliases)}
    for name in (duplicate.name, *duplicate_attributes.get("aliases", [])):
        if isinstance(name, str) and name.strip() and text.name_key(name) not in seen:
            seen.add(text.name_key(name))
            aliases.append(name)
    attributes = {**duplicate_attributes, **kept_attributes}
    if aliases:
        attributes["aliases"] = aliases
    props = {**kept.props, "attributes": attributes_json(attributes)}
    if not props.get("summary") and duplicate.props.get("summary"):
        props["summary"] = duplicate.props["summary"]
    return NodeState.of(kept.labels, props)


def _moved_links(group: str, entity_id: str, duplicate_id: str) -> tuple[dict[Link, bool], dict[Link, bool]]:
    """Episodes mentioning B and communities holding B, before and after they point at A instead."""
    before: dict[Link, bool] = {}
    after: dict[Link, bool] = {}
    for link_type in (kinds.MENTIONS, kinds.HAS_MEMBER):
        query = LINKED_FROM.format(type=link_type)
        sources = [row["source"] for row in driver.read(query, id=duplicate_id, group=group)]
        if not sources:
            continue
        already = {row["source"] for row in driver.read(query, id=entity_id, group=group)}
        for source in sources:
            before[Link(link_type, source, duplicate_id)] = True
            after[Link(link_type, source, duplicate_id)] = False
            before[Link(link_type, source, entity_id)] = source in already
            after[Link(link_type, source, entity_id)] = True
    return before, after


def _moved_facts(
    group: str, entity_id: str, duplicate_id: str
) -> tuple[dict[str, EdgeState | None], dict[str, EdgeState | None]]:
    duplicate_facts = _facts_of(group, duplicate_id)
    own = {key: fact for key, fact in _facts_of(group, entity_id).items() if key not in duplicate_facts}
    before: dict[str, EdgeState | None] = {key: fact.state for key, fact in duplicate_facts.items()}
    after: dict[str, EdgeState | None] = {}
    # The current facts a moved fact may duplicate: A's, then those already moved.
    current: list[FactState] = [
        _fact_state(key, fact.state, fact.vector)
        for key, fact in sorted(own.items())
        if "invalid_at" not in fact.state.props
    ]
    for key, fact in sorted(duplicate_facts.items()):
        ends = tuple(entity_id if end == duplicate_id else end for end in (fact.state.source, fact.state.target))
        if ends[0] == ends[1]:
            after[key] = None
            continue
        moved = EdgeState.of(ends[0], ends[1], fact.state.props)
        if "invalid_at" not in moved.props:
            candidate = _fact_state(key, moved, fact.vector)
            duplicate = duplicate_of(_as_new_fact(candidate), current)
            if duplicate is not None:
                if duplicate.id in own:
                    before.setdefault(duplicate.id, own[duplicate.id].state)
                after[duplicate.id] = fact_absorb(after.get(duplicate.id) or own[duplicate.id].state, moved)
                after[key] = None
                continue
            current.append(candidate)
        after[key] = moved
    return before, after


def entity_merge(*, group: str, entity_id: str, merge: EntityMerge, actor: str) -> ChangeOutcome:
    """Merge `merge.source_id` into `entity_id` in one transaction; the entry's `before` can restore B whole."""
    if merge.source_id == entity_id:
        raise InvalidInput("merge.from: must differ from the entity it is merged into")
    kept = entity_state_get(group=group, entity_id=entity_id)
    if kept is None:
        raise ItemNotFound(f"no entity {entity_id!r} in group {group!r}")
    duplicate = entity_state_get(group=group, entity_id=merge.source_id)
    if duplicate is None:
        raise InvalidInput(f"merge.from: {merge.source_id!r} is not an entity of this group")
    version_check(what=f"entity {entity_id!r}", state=kept, version=merge.version)
    version_check(what=f"entity {merge.source_id!r}", state=duplicate, version=merge.source_version)
    edges_before, edges_after = _moved_facts(group, entity_id, merge.source_id)
    links_before, links_after = _moved_links(group, entity_id, merge.source_id)
    change = Change(
        group=group,
        action=ENTITY_MERGE,
        item_kind=ENTITY,
        item_id=entity_id,
        before=GraphState(nodes={entity_id: kept, merge.source_id: duplicate}, edges=edges_before, links=links_before),
        after=GraphState(
            nodes={entity_id: merged_entity(kept, duplicate), merge.source_id: None},
            edges=edges_after,
            links=links_after,
        ),
    )
    return change_commit(change=change, actor=actor)
